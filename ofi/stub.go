//go:build !cgo || mpix_noofi

package ofi

import (
	"errors"
	"fmt"
	"unsafe"

	"mpix/transport"
	"mpix/transport/epshare"
)

// EnvProvider is the environment variable that names the provider when
// Config.Provider is empty.
const EnvProvider = "MPIX_OFI_PROVIDER"

// ErrNoProvider is wrapped by Open's error when no provider offers what mpix needs.
var ErrNoProvider = errors.New("ofi: no suitable libfabric provider")

// EnvRMA is the environment variable that, set to 0, turns RMA off.
const EnvRMA = "MPIX_OFI_RMA"

// Config says which provider to use and where this process sits in the world.
type Config struct {
	Provider   string
	Rank, Size int
	NoRMA      bool
	ThreadSafe bool
	Domain     *Domain
	STX        *STX
	SharedCQ   *SharedCQ
}

// Endpoint is never created in a build without libfabric.
type Endpoint struct{ spare *Endpoint }

// Domain, STX and the mpi_threads views are never created either.
type Domain struct{}
type STX struct{}
type SharedCQ struct{}
type muxShared struct{}

func SharedDomain(provider string) (*Domain, error)            { return nil, errNoOFI }
func OpenSTX(d *Domain, provider string) (*STX, error)         { return nil, errNoOFI }
func Caps(provider string) epshare.FabricCaps                  { return epshare.FabricCaps{Provider: provider} }
func (d *Domain) Unused() bool                                 { return false }
func (d *Domain) Release()                                     {}
func OpenSharedCQ(d *Domain, endpoints int) (*SharedCQ, error) { return nil, errNoOFI }
func (q *SharedCQ) Unused() bool                               { return false }
func (q *SharedCQ) Release()                                   {}
func MemoryRegistrations() int64                               { return 0 }
func (e *Endpoint) BufferBytes() int64                         { return 0 }
func newMux(ep *Endpoint, vcis int) *muxShared                 { return nil }
func (m *muxShared) view(vci int) transport.Endpoint           { return nil }

var errNoOFI = fmt.Errorf("%w: mpix was built without libfabric (cgo disabled or tag mpix_noofi)", ErrNoProvider)

var (
	_ transport.Endpoint     = (*Endpoint)(nil)
	_ transport.RemoteMemory = (*Endpoint)(nil)
)

// Open always fails: this mpix was built without libfabric.
func Open(cfg Config) (*Endpoint, error) {
	return nil, fmt.Errorf("%w: mpix was built without libfabric (cgo disabled or tag mpix_noofi)", ErrNoProvider)
}

// Available lists no providers.
func Available() ([]string, error) { return nil, nil }

// VerbsDevices says that this build does not look for RDMA devices.
func VerbsDevices() ([]string, error) {
	return nil, errors.New("mpix was built without libfabric (cgo disabled or tag mpix_noofi)")
}

func (e *Endpoint) Name() []byte                   { return nil }
func (e *Endpoint) Connect(names [][]byte) error   { return ErrNoProvider }
func (e *Endpoint) Provider() string               { return "" }
func (e *Endpoint) Err() error                     { return nil }
func (e *Endpoint) MaxPayload() int                { return 0 }
func (e *Endpoint) Reaches(dst int) bool           { return false }
func (e *Endpoint) Close() error                   { return nil }
func (e *Endpoint) Poll(transport.DeliverFunc) int { return 0 }
func (e *Endpoint) Send(dst int, h *transport.Header, payload []byte) error {
	return ErrNoProvider
}
func (e *Endpoint) ReadFrom(peer int, addr uintptr, dst []byte) error {
	return transport.ErrNoSingleCopy
}

func (e *Endpoint) RMA() bool { return false }
func (e *Endpoint) RegisterMemory(base unsafe.Pointer, n int64) ([]byte, any, error) {
	return nil, nil, transport.ErrNoRemoteMemory
}
func (e *Endpoint) DeregisterMemory(reg any) error { return transport.ErrNoRemoteMemory }
func (e *Endpoint) StartWrite(peer int, key []byte, addr uint64, src []byte) error {
	return transport.ErrNoRemoteMemory
}
func (e *Endpoint) StartRead(peer int, key []byte, addr uint64, dst []byte) error {
	return transport.ErrNoRemoteMemory
}
func (e *Endpoint) WriteRemote(peer int, key []byte, addr uint64, src []byte) error {
	return transport.ErrNoRemoteMemory
}
func (e *Endpoint) ReadRemote(peer int, key []byte, addr uint64, dst []byte) error {
	return transport.ErrNoRemoteMemory
}
func (e *Endpoint) Flush(peer int) error  { return transport.ErrNoRemoteMemory }
func (e *Endpoint) Pending(peer int) bool { return false }
