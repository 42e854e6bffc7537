//go:build !cgo || mpix_noofi

package ofi

import (
	"errors"
	"fmt"

	"mpix/transport"
)

// EnvProvider is the environment variable that names the provider when
// Config.Provider is empty.
const EnvProvider = "MPIX_OFI_PROVIDER"

// ErrNoProvider is wrapped by Open's error when no provider offers what mpix needs.
var ErrNoProvider = errors.New("ofi: no suitable libfabric provider")

// Config says which provider to use and where this process sits in the world.
type Config struct {
	Provider   string
	Rank, Size int
}

// Endpoint is never created in a build without libfabric.
type Endpoint struct{}

var _ transport.Endpoint = (*Endpoint)(nil)

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
