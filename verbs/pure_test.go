package verbs

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"mpix/transport"
)

// Bringing an RC QP up: RESET -> INIT -> RTR -> RTS, with the attributes
// ibv_modify_qp(3) requires for each.
func TestBringUp(t *testing.T) {
	want := [][2]QPState{{Reset, Init}, {Init, RTR}, {RTR, RTS}}
	steps := BringUp()
	if len(steps) != len(want) {
		t.Fatalf("%d steps", len(steps))
	}
	for i, s := range steps {
		if s.From != want[i][0] || s.To != want[i][1] {
			t.Errorf("step %d: %s -> %s", i, s.From, s.To)
		}
		if err := s.Check(s.Required); err != nil {
			t.Errorf("step %d: its own required mask: %v", i, err)
		}
	}
	// INIT -> RTR without the remote QP number is refused and names what is missing.
	tr, _ := Lookup(Init, RTR)
	err := tr.Check(tr.Required &^ AttrDestQPN)
	if err == nil || !strings.Contains(err.Error(), "DEST_QPN") {
		t.Errorf("INIT->RTR without DEST_QPN: %v", err)
	}
	// RESET -> INIT does not take a path MTU.
	tr, _ = Lookup(Reset, Init)
	if err := tr.Check(tr.Required | AttrPathMTU); err == nil || !strings.Contains(err.Error(), "PATH_MTU") {
		t.Errorf("RESET->INIT with PATH_MTU: %v", err)
	}
	if _, err := Lookup(Reset, RTS); err == nil {
		t.Error("RESET -> RTS allowed")
	}
	for _, s := range []QPState{Reset, Init, RTR, RTS, SQD, SQE} {
		if tr, err := Lookup(s, Error); err != nil || tr.Check(AttrState) != nil {
			t.Errorf("%s -> ERR: %v", s, err)
		}
	}
}

func TestQPAddr(t *testing.T) {
	a := QPAddr{LID: 0x12, QPN: 0xabcdef, PSN: 0x123456, MTU: 5}
	a.GID[15] = 7
	b, err := ParseQPAddr(a.String())
	if err != nil || b != a {
		t.Fatalf("round trip: %+v %v", b, err)
	}
	for _, bad := range []string{"zz", "00", (QPAddr{QPN: 1 << 24, MTU: 1}).String(), (QPAddr{QPN: 1, MTU: 9}).String()} {
		if _, err := ParseQPAddr(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if PathMTU(QPAddr{MTU: 5}, QPAddr{MTU: 3}) != 3 || !UsesGID(QPAddr{}) || UsesGID(a) {
		t.Error("PathMTU or UsesGID")
	}
	if AddrKey(1, 2, 3) == AddrKey(1, 3, 2) {
		t.Error("AddrKey collides")
	}
}

func TestFrame(t *testing.T) {
	slot := make([]byte, 256)
	h := transport.Header{Kind: transport.KindEager, Src: 3, Tag: 9, Size: 5}
	n, err := Encode(slot, &h, []byte("hello"))
	if err != nil || n != transport.HeaderSize+5 {
		t.Fatalf("Encode: %d %v", n, err)
	}
	g, p, err := Decode(slot, n)
	if err != nil || g != h || !bytes.Equal(p, []byte("hello")) {
		t.Fatalf("Decode: %+v %q %v", g, p, err)
	}
	if _, err := Encode(slot, &h, make([]byte, 256)); err == nil {
		t.Error("oversized payload encoded")
	}
	if _, _, err := Decode(slot, 3); !errors.Is(err, ErrFrame) {
		t.Errorf("short message: %v", err)
	}
	if _, _, err := Decode(make([]byte, 256), transport.HeaderSize); !errors.Is(err, ErrFrame) {
		t.Errorf("kind 0: %v", err)
	}
}

// A simulation of two sides of a connection under random sends, polls, reposts and
// credit writes landing late: no message ever arrives without a posted buffer, and with
// every action still possible all messages of both sides get through (no side waits
// for credits the other owes).
func TestCreditsSimulation(t *testing.T) {
	const posted = 4
	type side struct {
		c        *Credits
		free     int      // receive buffers posted for the peer
		toRepost int      // consumed, not yet reposted
		in       []uint32 // arrived messages (their immediates), in order
		writes   []uint32 // credit writes in flight to the peer
		word     uint32   // the credit word the peer writes here
		sent     int
		got      int
	}
	for seed := uint64(0); seed < 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 1))
		s := [2]*side{{c: NewCredits(posted), free: posted}, {c: NewCredits(posted), free: posted}}
		const goal = 300
		step := func(i int) bool {
			me, peer := s[i], s[1-i]
			switch rng.IntN(6) {
			case 0: // send a message
				if me.sent < goal && me.c.Take() {
					peer.in = append(peer.in, me.c.Tell())
					me.sent++
					return true
				}
			case 1: // poll one arrived message
				if len(me.in) > 0 {
					if me.free == 0 {
						t.Fatalf("seed %d: a message found no buffer posted on side %d", seed, i)
					}
					me.free--
					me.toRepost++
					me.c.Update(me.in[0])
					me.in = me.in[1:]
					me.got++
					return true
				}
			case 2: // repost
				if me.toRepost > 0 {
					me.toRepost--
					me.free++
					me.c.Reposted()
					return true
				}
			case 3: // a credit write when due
				if me.c.Due() {
					me.writes = append(me.writes, me.c.Tell())
					return true
				}
			case 4: // the oldest credit write in flight lands (writes overtake nothing on RC, but land late)
				if len(me.writes) > 0 {
					peer.word = me.writes[0]
					me.writes = me.writes[1:]
					return true
				}
			case 5: // read the credit word
				if me.c.Avail() == 0 || rng.IntN(4) == 0 {
					before := me.c.Avail()
					me.c.Update(me.word)
					return me.c.Avail() != before
				}
			}
			return false
		}
		for idle := 0; idle < 2000; {
			if step(rng.IntN(2)) {
				idle = 0
			} else {
				idle++
			}
		}
		if s[0].got != goal || s[1].got != goal {
			t.Fatalf("seed %d: got %d and %d of %d messages: %+v %+v / %+v %+v", seed, s[0].got, s[1].got, goal, *s[0], *s[0].c, *s[1], *s[1].c)
		}
	}
	// Counts wrap: an update from before the wrap changes nothing after it.
	c := NewCredits(2)
	c.peerPosted, c.sent = 1<<32-1, 1<<32-2
	c.Update(1)
	if c.Avail() != 3 {
		t.Errorf("after the wrap: %d credits, want 3", c.Avail())
	}
	c.Update(1<<32 - 5)
	if c.Avail() != 3 {
		t.Errorf("an old count changed the credits to %d", c.Avail())
	}
}
