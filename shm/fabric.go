package shm

import (
	"fmt"
	"unsafe"

	"mpix/transport"
)

// fabric opens shared-memory endpoints for the registry, one per VCI, and arenas for
// collectives.
type fabric struct{}

func init() { transport.Register(fabric{}) }

func (fabric) Name() string { return "shared memory" }
func (fabric) Local() bool  { return true }

// Open creates VCI vci's region; its files are named after the job and the VCI.
func (fabric) Open(s *transport.Setup, vci int) (transport.Endpoint, error) {
	job := s.Job
	if vci > 0 {
		job = fmt.Sprintf("%s-v%d", job, vci)
	}
	return Create(Config{Job: job, Rank: s.Rank, NodeRanks: s.Node, PIDs: s.PIDs})
}

// Connect maps the peers' regions (transport.Connecter).
func (e *Endpoint) ConnectPeers(*transport.Setup, int) error { return e.Attach() }

// Settle removes the region's name once every peer mapped it (transport.Settler).
func (e *Endpoint) Settle() { e.Unlink() }

// CView is the address of the endpoint's FastView, for the VCI's page shared with C
// (transport.CView).
func (e *Endpoint) CView() uintptr { return uintptr(unsafe.Pointer(e.FastView())) }

func (fabric) CreateArena(job string, ctx uint32, leader, n, slotSize int) (transport.Arena, error) {
	a, err := CreateArena(ArenaPath(job, ctx, leader), n, 0, slotSize)
	if err != nil {
		return nil, err
	}
	return a, nil
}

func (fabric) OpenArena(job string, ctx uint32, leader, n, me, slotSize int) (transport.Arena, error) {
	a, err := OpenArena(ArenaPath(job, ctx, leader), n, me, slotSize)
	if err != nil {
		return nil, err
	}
	return a, nil
}

func (fabric) RemoveArena(job string, ctx uint32, leader int) { Unlink(ArenaPath(job, ctx, leader)) }

var (
	_ transport.Collectives = fabric{}
	_ transport.Connecter   = (*Endpoint)(nil)
	_ transport.Settler     = (*Endpoint)(nil)
	_ transport.CView       = (*Endpoint)(nil)
)
