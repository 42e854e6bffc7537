package ofi

import (
	"encoding/hex"
	"fmt"

	"mpix/transport"
)

// fabric opens libfabric endpoints for the registry, one per VCI; processes exchange
// their endpoint names through the process manager.
type fabric struct{}

func init() { transport.Register(fabric{}) }

func (fabric) Name() string { return "libfabric" }
func (fabric) Local() bool  { return false }

func nameKey(rank, vci int) string { return fmt.Sprintf("mpix-ofi-%d-%d", rank, vci) }

// Open opens VCI vci's endpoint and publishes its name.
func (fabric) Open(s *transport.Setup, vci int) (transport.Endpoint, error) {
	e, err := Open(Config{Provider: s.Provider, Rank: s.Rank, Size: s.Size})
	if err != nil {
		return nil, err
	}
	if err := s.Put(nameKey(s.Rank, vci), hex.EncodeToString(e.Name())); err != nil {
		e.Close()
		return nil, fmt.Errorf("PMI put: %w", err)
	}
	return e, nil
}

// ConnectPeers reads every process's name for VCI vci and connects to them
// (transport.Connecter): every process opened libfabric, since whether one is needed
// depends only on the nodes, which all processes know.
func (e *Endpoint) ConnectPeers(s *transport.Setup, vci int) error {
	names := make([][]byte, s.Size)
	for r := range names {
		val, err := s.Get(r, nameKey(r, vci))
		if err != nil {
			return fmt.Errorf("rank %d published no libfabric address: %w", r, err)
		}
		if names[r], err = hex.DecodeString(val); err != nil {
			return fmt.Errorf("rank %d's libfabric address: %w", r, err)
		}
	}
	return e.Connect(names)
}

var _ transport.Connecter = (*Endpoint)(nil)
