package verbs

import (
	"errors"
	"fmt"

	"mpix/transport"
)

// fabric is the verbs transport in the registry, which core opens instead of
// libfabric under MPIX_NETMOD=verbs. What exists so far is below the transport: device
// and port discovery, the resources of an epshare plan (contexts, PDs, thread and
// parent domains, CQs, RC QPs) and their bring-up to RTS, QP addresses for PMI, the
// eager framing and its credit flow control. The data path (RC QPs per peer connected
// through PMI, eager sends and receives, rendezvous and RMA) is not built, so Open
// says so, after saying whether this machine has a device at all.
type fabric struct{}

func init() { transport.Register(fabric{}) }

func (fabric) Name() string { return "verbs" }
func (fabric) Local() bool  { return false }

// ErrNoDataPath is wrapped by Open's error on a machine with an RDMA device.
var ErrNoDataPath = errors.New("the verbs transport's data path (RC QPs connected through PMI, eager messages, RDMA read/write) is not built yet; leave MPIX_NETMOD unset to use libfabric, which runs over verbs through its verbs;ofi_rxm provider")

func (fabric) Open(s *transport.Setup, vci int) (transport.Endpoint, error) {
	devs, err := Devices()
	if err != nil {
		return nil, err
	}
	d, p, err := Pick(devs)
	if err != nil {
		return nil, fmt.Errorf("%w; leave MPIX_NETMOD unset to use libfabric", err)
	}
	return nil, fmt.Errorf("%s port %d: %w", d.Name, p.Num, ErrNoDataPath)
}
