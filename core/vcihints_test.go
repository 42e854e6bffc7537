package core

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"mpix/vci"
)

func TestParseVCIHints(t *testing.T) {
	tests := []struct {
		name string
		kv   map[string]string
		want vciHints
	}{
		{"none", nil, noHints},
		{"no any source", map[string]string{hintNoAnySource: "true"}, vciHints{spread: spreadSource, explicit: -1}},
		{"both, any case", map[string]string{hintNoAnySource: "TRUE", hintNoAnyTag: " true "}, vciHints{spread: spreadSource | spreadTag, explicit: -1}},
		{"false is no hint", map[string]string{hintNoAnyTag: "false"}, noHints},
		{"overtaking alone does not spread", map[string]string{hintAllowOvertaking: "true"}, noHints},
		{"vci", map[string]string{hintVCI: "3"}, vciHints{explicit: 3}},
		{"receiver_vci wins", map[string]string{hintVCI: "3", hintSenderVCI: "1", hintReceiverVCI: "2"}, vciHints{explicit: 2}},
		{"sender_vci alone", map[string]string{hintSenderVCI: "5"}, vciHints{explicit: 5}},
		{"bad vci ignored", map[string]string{hintVCI: "x", hintSenderVCI: "-4"}, noHints},
		{"single thread", map[string]string{hintSingleThread: "true"}, vciHints{explicit: -1, single: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in *Info
			if tt.kv != nil {
				in = &Info{vals: map[string]string{}}
				for k, v := range tt.kv {
					if err := in.Set(k, v); err != nil {
						t.Fatal(err)
					}
				}
			}
			if diff := cmp.Diff(tt.want, parseVCIHints(in), cmp.AllowUnexported(vciHints{})); diff != "" {
				t.Fatalf("hints (-want +got):\n%s", diff)
			}
		})
	}
}

// Both sides of a message compute its VCI from what the receiver knows: the
// sender's rank in the communicator and the tag.
func TestSpreadPick(t *testing.T) {
	set := []*Engine{{VCI: vci.New(4, 0)}, {VCI: vci.New(5, 0)}, {VCI: vci.New(6, 0)}}
	tests := []struct {
		by       uint8
		src, tag int
		want     int
	}{
		{spreadSource, 0, 9, 4},
		{spreadSource, 1, 9, 5},
		{spreadSource, 5, 0, 6},
		{spreadTag, 7, 1, 5},
		{spreadTag, 0, 2, 6},
		{spreadSource | spreadTag, 1, 1, 6},
		{spreadSource | spreadTag, 2, 1, 4},
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
		{spreadSource, AnySource, 3, ErrRank},
		{spreadSource, 1, AnyTag, 0},
		{spreadTag, AnySource, 3, 0},
		{spreadTag, 0, AnyTag, ErrTag},
		{spreadSource | spreadTag, 0, 0, 0},
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
