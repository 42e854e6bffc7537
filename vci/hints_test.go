package vci

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseHints(t *testing.T) {
	tests := []struct {
		name string
		kv   map[string]string
		want Hints
	}{
		{"none", nil, NoHints},
		{"no any source", map[string]string{HintNoAnySource: "true"}, Hints{Spread: SpreadSource, Explicit: -1}},
		{"both, any case", map[string]string{HintNoAnySource: "TRUE", HintNoAnyTag: " true "}, Hints{Spread: SpreadSource | SpreadTag, Explicit: -1}},
		{"false is no hint", map[string]string{HintNoAnyTag: "false"}, NoHints},
		{"overtaking alone does not spread", map[string]string{HintAllowOvertaking: "true"}, NoHints},
		{"vci", map[string]string{HintVCI: "3"}, Hints{Explicit: 3}},
		{"receiver_vci wins", map[string]string{HintVCI: "3", HintSenderVCI: "1", HintReceiverVCI: "2"}, Hints{Explicit: 2}},
		{"sender_vci alone", map[string]string{HintSenderVCI: "5"}, Hints{Explicit: 5}},
		{"bad vci ignored", map[string]string{HintVCI: "x", HintSenderVCI: "-4"}, NoHints},
		{"single thread", map[string]string{HintSingleThread: "true"}, Hints{Explicit: -1, Single: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			get := func(k string) (string, bool) { v, ok := tt.kv[k]; return v, ok }
			if diff := cmp.Diff(tt.want, ParseHints(get)); diff != "" {
				t.Fatalf("hints (-want +got):\n%s", diff)
			}
		})
	}
}
