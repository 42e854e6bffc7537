//go:build !cgo || mpix_noverbs

package verbs

import (
	"errors"

	"mpix/transport/epshare"
)

// This build has no libibverbs support (cgo off or tag mpix_noverbs).
var errNoVerbs = errors.New("verbs: mpix was built without libibverbs support (cgo disabled or tag mpix_noverbs)")

// ErrNoDevice is returned where libibverbs finds no RDMA device.
var ErrNoDevice = errors.New("verbs: no RDMA device (ibv_get_device_list found none)")

type Port struct {
	Num       int
	Active    bool
	LID       uint16
	Ethernet  bool
	ActiveMTU uint8
}

type Device struct {
	Name                      string
	GUID                      uint64
	MaxQPs, MaxCQs, MaxMRs    int
	MaxPDs, MaxQPWRs, MaxCQEs int
	Ports                     []Port
}

type Resources struct {
	Plan *epshare.Plan
	QPN  []uint32
}

func Devices() ([]Device, error)               { return nil, errNoVerbs }
func Pick(devs []Device) (Device, Port, error) { return Device{}, Port{}, errNoVerbs }
func (d Device) Limits() epshare.Limits        { return epshare.MLX5() }
func Create(p *epshare.Plan, dev Device, port Port, depth int) (*Resources, error) {
	return nil, errNoVerbs
}
func (r *Resources) Connect(i int, local, remote QPAddr) error { return errNoVerbs }
func (r *Resources) Close() error                              { return nil }
