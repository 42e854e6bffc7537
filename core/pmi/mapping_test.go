package pmi

import (
	"slices"
	"testing"
)

func TestLocalRanksFromMapping(t *testing.T) {
	tests := []struct {
		mapping    string
		rank, size int
		want       []int
		wantErr    bool
	}{
		{"", 0, 4, nil, false},
		{"(vector,(0,1,4))", 2, 4, []int{0, 1, 2, 3}, false},
		// Hydra's fork launcher: one block of one rank, wrapping around.
		{"(vector,(0,1,1))", 1, 3, []int{0, 1, 2}, false},
		// Two nodes of two ranks each.
		{"(vector,(0,2,2))", 0, 4, []int{0, 1}, false},
		{"(vector,(0,2,2))", 3, 4, []int{2, 3}, false},
		// Round robin over two nodes (-ppn 1): wraps, even ranks on node 0.
		{"(vector,(0,2,1))", 2, 5, []int{0, 2, 4}, false},
		{"(vector,(0,2,1))", 3, 5, []int{1, 3}, false},
		// Several blocks, spaces tolerated.
		{"(vector, (0,1,3), (1,2,1))", 4, 5, []int{4}, false},
		{"(vector,(0,1,3),(1,2,1))", 1, 5, []int{0, 1, 2}, false},
		{"(vector)", 0, 2, nil, false},
		{"vector,(0,1,2)", 0, 2, nil, true},
		{"(list,(0,1,2))", 0, 2, nil, true},
		{"(vector,(0,1))", 0, 2, nil, true},
		{"(vector,(0,x,2))", 0, 2, nil, true},
		{"(vector,(0,0,2))", 0, 2, nil, true},
		{"(vector,(0,1,2)", 0, 2, nil, true},
		{"(vector,(0,1,2))", 2, 2, nil, true},
	}
	for _, tt := range tests {
		got, err := localRanksFromMapping(tt.mapping, tt.rank, tt.size)
		if (err != nil) != tt.wantErr {
			t.Errorf("%q rank %d of %d: error %v, want error %v", tt.mapping, tt.rank, tt.size, err, tt.wantErr)
			continue
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q rank %d of %d = %v, want %v", tt.mapping, tt.rank, tt.size, got, tt.want)
		}
	}
}
