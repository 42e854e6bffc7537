package core

import "mpix/transport"

// loopFabric stands in for the real transports, which core's tests do not link (the
// library registers them from capi): it reaches the processes of a singleton job
// through one in-process memNet per VCI, which is what Init's tests need.
type loopFabric struct{}

func init() { transport.Register(loopFabric{}) }

func (loopFabric) Name() string { return "test loopback" }
func (loopFabric) Local() bool  { return false }

func (loopFabric) Open(s *transport.Setup, vci int) (transport.Endpoint, error) {
	net := &memNet{queues: make([][]memMsg, s.Size), capacity: 1 << 20, maxPayload: 64 << 10}
	return &memEP{net: net, rank: s.Rank}, nil
}
