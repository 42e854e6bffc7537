package core

import (
	"testing"

	"mpix/transport"
)

// An endpoints communicator of 3 endpoints on world rank 0 and 2 on world rank 1:
// ranks 0-2 and 3-4. Messages to endpoint j of a process carry context base+j*stride;
// the sending endpoint's index tells the endpoints of one process apart.
func TestEndpointAddressing(t *testing.T) {
	const base = 800
	ep := &epInfo{self: 1, idx: []uint16{0, 1, 2, 0, 1}, first: []int{0, 3}}
	c := &Comm{ContextID: base + ctxStride, sendCtx: base, peers: []int{0, 0, 0, 1, 1}, ep: ep}
	for _, tt := range []struct {
		peer    int
		wantCtx uint32
	}{{0, base}, {2, base + 2*ctxStride}, {3, base}, {4, base + ctxStride}} {
		ctx, src := c.envelope(tt.peer)
		if ctx != tt.wantCtx || src != 1 {
			t.Errorf("envelope(%d) = (%d, %d), want (%d, 1)", tt.peer, ctx, src, tt.wantCtx)
		}
	}
	for _, tt := range []struct {
		src   int32
		srcEP uint16
		rank  int
	}{{0, 0, 0}, {0, 2, 2}, {1, 0, 3}, {1, 1, 4}, {7, 0, Undefined}} {
		h := &transport.Header{Src: tt.src, SrcEP: tt.srcEP}
		if got := c.sourceOf(h); got != tt.rank {
			t.Errorf("sourceOf(world %d, endpoint %d) = %d, want %d", tt.src, tt.srcEP, got, tt.rank)
		}
		if tt.rank != Undefined && !c.sameEndpoint(tt.rank, h) {
			t.Errorf("rank %d does not match its own message", tt.rank)
		}
	}
	if c.sameEndpoint(4, &transport.Header{Src: 1, SrcEP: 0}) {
		t.Error("rank 4 matched a message from rank 3 (same process, other endpoint)")
	}
	// A plain communicator: its own context, source by world rank.
	p := &Comm{ContextID: 16, sendCtx: 16, peers: []int{0, 1}, identity: true}
	if ctx, src := p.envelope(1); ctx != 16 || src != 0 {
		t.Errorf("plain envelope = (%d, %d)", ctx, src)
	}
	if got := p.sourceOf(&transport.Header{Src: 1}); got != 1 {
		t.Errorf("plain sourceOf = %d", got)
	}
}
