package core

import (
	"testing"

	"mpix/vci"
)

// Both sides of a message compute its VCI from what the receiver knows: the
// sender's rank in the communicator and the tag.
func TestSpreadPick(t *testing.T) {
	set := []*Engine{{VCI: vci.New(4, 0)}, {VCI: vci.New(5, 0)}, {VCI: vci.New(6, 0)}}
	tests := []struct {
		by       uint8
		src, tag int
		want     int
	}{
		{vci.SpreadSource, 0, 9, 4},
		{vci.SpreadSource, 1, 9, 5},
		{vci.SpreadSource, 5, 0, 6},
		{vci.SpreadTag, 7, 1, 5},
		{vci.SpreadTag, 0, 2, 6},
		{vci.SpreadSource | vci.SpreadTag, 1, 1, 6},
		{vci.SpreadSource | vci.SpreadTag, 2, 1, 4},
	}
	for _, tt := range tests {
		rt := vciRoute{set: set, by: tt.by}
		if got := rt.pick(tt.src, tt.tag).Index(); got != tt.want {
			t.Errorf("by %d, pick(%d, %d) = VCI %d, want %d", tt.by, tt.src, tt.tag, got, tt.want)
		}
		sender := &Comm{Rank: tt.src, vr: rt}
		recv := &Comm{vr: rt}
		if s, r := sender.sendEng(0, tt.tag), recv.recvEng(tt.src, tt.tag); s != r {
			t.Errorf("by %d, (%d, %d): sender uses VCI %d, receiver VCI %d", tt.by, tt.src, tt.tag, s.Index(), r.Index())
		}
	}
}

func TestSpreadWildcards(t *testing.T) {
	set := []*Engine{{VCI: vci.New(1, 0)}, {VCI: vci.New(2, 0)}}
	tests := []struct {
		by          uint8
		source, tag int
		class       int // 0: accepted
	}{
		{vci.SpreadSource, AnySource, 3, ErrRank},
		{vci.SpreadSource, 1, AnyTag, 0},
		{vci.SpreadTag, AnySource, 3, 0},
		{vci.SpreadTag, 0, AnyTag, ErrTag},
		{vci.SpreadSource | vci.SpreadTag, 0, 0, 0},
	}
	for _, tt := range tests {
		c := &Comm{vr: vciRoute{set: set, by: tt.by}}
		err := c.checkSpreadWildcards(tt.source, tt.tag)
		got := 0
		if err != nil {
			got = AsError(err).Class
		}
		if got != tt.class {
			t.Errorf("by %d, (%d, %d): class %d, want %d (%v)", tt.by, tt.source, tt.tag, got, tt.class, err)
		}
	}
	// A communicator that does not spread accepts every wildcard.
	if err := (&Comm{}).checkSpreadWildcards(AnySource, AnyTag); err != nil {
		t.Fatal(err)
	}
}
