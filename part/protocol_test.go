package part

import (
	"testing"
	"unsafe"

	"mpix/transport"
)

// Protocol messages come from other processes: a malformed one must be dropped before
// anything in it is used.
func TestMalformedInitsAreDropped(t *testing.T) {
	before := len(reg.early)
	for _, p := range [][]byte{
		{opInit}, // too short
		append([]byte{opInit, 0, 0, 0, 0}, make([]byte, 8)...),                                          // no key count
		append(append([]byte{opInit, 4, 0, 0, 0}, make([]byte, 8)...), 1, 0, 0, 0xff, 0xff, 0xff, 0x7f), // key longer than the message
		append(append([]byte{opInit, 0, 0, 0, 0}, make([]byte, 8)...), 0),                               // no partitions
	} {
		handleInit(nil, &transport.Header{Kind: transport.KindPart, Src: 1, Size: 64}, p)
	}
	if len(reg.early) != before {
		t.Errorf("%d malformed inits kept", len(reg.early)-before)
	}
	handleInit(nil, &transport.Header{Kind: transport.KindPart, Src: 1, Size: -1},
		append(append([]byte{opInit, 4, 0, 0, 0}, make([]byte, 8)...), 0))
	if len(reg.early) != before {
		t.Error("an init with a negative size was kept")
	}
}

func TestMalformedAcksLeaveTheRequestUnmatched(t *testing.T) {
	ack := func(sparts, groups uint32, pa path, strategy aggregation) []byte {
		p := []byte{opAck}
		p = u32(p, sparts)
		p = u32(p, groups)
		p = append(p, byte(pa), byte(strategy), 1)
		return u32(p, 50)
	}
	for _, tc := range []struct {
		name string
		p    []byte
	}{
		{"short", []byte{opAck, 1, 0}},
		{"no send partitions", ack(0, 1, pathAM, aggrNone)},
		{"more groups than partitions", ack(4, 8, pathAM, aggrNone)},
		{"unknown path", ack(4, 4, path(9), aggrNone)},
		{"unknown strategy", ack(4, 4, pathAM, aggregation(7))},
		{"16-bit encoding overflow", ack(1<<16, 1, pathOFI, aggrNone)},
	} {
		r := &recvReq{}
		r.total = 64
		r.acked(&transport.Header{Kind: transport.KindPart, Size: 64, SendReq: 3}, tc.p)
		if r.matched.Load() {
			t.Errorf("%s: the ack matched the request", tc.name)
		}
	}
	r := &recvReq{}
	r.total, r.land = 64, newLocalLanding(4)
	r.acked(&transport.Header{Kind: transport.KindPart, Size: 64, SendReq: 3}, ack(4, 2, pathAM, aggrPLogGP))
	if !r.matched.Load() || r.sparts != 4 || r.spb != 16 || r.bad {
		t.Errorf("a good ack: matched %v, %d send partitions of %d bytes, bad %v", r.matched.Load(), r.sparts, r.spb, r.bad)
	}
	// Write data naming partitions outside the request, and data messages outside the
	// buffer, are ignored.
	r.wrote(uint32(3<<16 | 2)) // send partitions 3 and 4 of 4
	data := func(first, n uint32, off uint64, b []byte) []byte {
		p := u32(u32([]byte{opData}, first), n)
		p = append(p, 1) // the run's last message
		return append(u64(p, off), b...)
	}
	r.data(data(3, 2, 48, make([]byte, 16))) // partitions past the last
	r.data(data(3, 1, 60, make([]byte, 16))) // bytes past the buffer
	r.data(data(0, 1, 1<<63, nil))           // an offset past the buffer
	if r.land.landed.Load() != 0 {
		t.Errorf("out-of-range arrivals were counted: %#x", r.land.landed.Load())
	}
	// A good run lands (the buffer is the request's stage here).
	r.stage = make([]byte, 64)
	r.base = unsafe.Pointer(&r.stage[0])
	r.pb = 16
	r.data(data(0, 1, 0, []byte("0123456789abcdef")))
	if !r.land.arrived(0, r.round.Load(), 16, 4) || string(r.stage[:16]) != "0123456789abcdef" {
		t.Errorf("a good run did not land: %q, counts %#x", r.stage[:16], r.land.bytes[0].Load())
	}
}
