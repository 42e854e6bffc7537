package core

import (
	"fmt"
	"slices"
	"testing"
)

func TestDimsCreate(t *testing.T) {
	tests := []struct {
		nnodes int
		dims   []int
		want   []int
		class  int // expected error class, 0 for success
	}{
		{6, []int{0, 0}, []int{3, 2}, 0},
		{7, []int{0, 0}, []int{7, 1}, 0},
		{6, []int{0, 3, 0}, []int{2, 3, 1}, 0},
		{12, []int{0, 0, 0}, []int{3, 2, 2}, 0},
		{16, []int{0, 0, 0}, []int{4, 2, 2}, 0},
		{16, []int{0, 0, 0, 0}, []int{2, 2, 2, 2}, 0},
		{24, []int{0, 0, 0}, []int{4, 3, 2}, 0},
		{100, []int{0, 0}, []int{10, 10}, 0},
		{1, []int{0, 0, 0}, []int{1, 1, 1}, 0},
		{4, []int{2, 0}, []int{2, 2}, 0},
		{4, []int{2, 2}, []int{2, 2}, 0},
		{5, []int{}, nil, ErrDims},
		{1, []int{}, []int{}, 0},
		{7, []int{0, 3}, nil, ErrDims},
		{6, []int{2, 2}, nil, ErrDims},
		{6, []int{-1, 0}, nil, ErrDims},
		{0, []int{0}, nil, ErrArg},
		{1 << 30, []int{1 << 20, 1 << 20, 0}, nil, ErrDims},
		{2 * 3 * 5 * 7 * 11 * 13 * 17 * 19, []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, nil, 0},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.nnodes, tc.dims), func(t *testing.T) {
			dims := slices.Clone(tc.dims)
			err := DimsCreate(tc.nnodes, dims)
			if tc.class != 0 {
				if err == nil || AsError(err).Class != tc.class {
					t.Fatalf("got %v, want class %d", err, tc.class)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.want != nil && len(tc.want) == len(dims) && !slices.Equal(dims, tc.want) {
				t.Errorf("got %v, want %v", dims, tc.want)
			}
			checkDims(t, tc.nnodes, tc.dims, dims)
		})
	}
}

// checkDims checks the properties MPI_Dims_create promises: the product, the given
// entries kept, the filled ones non-increasing.
func checkDims(t *testing.T, nnodes int, given, got []int) {
	t.Helper()
	p := 1
	last := -1
	for i, d := range got {
		p *= d
		if given[i] != 0 && d != given[i] {
			t.Errorf("dims[%d] = %d, was given as %d", i, d, given[i])
		}
		if given[i] == 0 {
			if last >= 0 && d > last {
				t.Errorf("filled dimensions %v are not non-increasing", got)
			}
			last = d
		}
	}
	if p != nnodes {
		t.Errorf("product of %v is %d, want %d", got, p, nnodes)
	}
}

// TestDimsCreateBalanced compares with an exhaustive search: no factorization into
// k factors has a smaller spread than the one DimsCreate chooses.
func TestDimsCreateBalanced(t *testing.T) {
	var all func(m, k, maxf int) [][]int
	all = func(m, k, maxf int) [][]int {
		if k == 1 {
			if m <= maxf {
				return [][]int{{m}}
			}
			return nil
		}
		var out [][]int
		for f := 1; f <= min(m, maxf); f++ {
			if m%f == 0 {
				for _, rest := range all(m/f, k-1, f) {
					out = append(out, append([]int{f}, rest...))
				}
			}
		}
		return out
	}
	for m := 1; m <= 360; m++ {
		for k := 1; k <= 4; k++ {
			dims := make([]int, k)
			if err := DimsCreate(m, dims); err != nil {
				t.Fatalf("DimsCreate(%d, %d): %v", m, k, err)
			}
			checkDims(t, m, make([]int, k), dims)
			best := m
			for _, f := range all(m, k, m) {
				best = min(best, f[0]-f[k-1])
			}
			if got := dims[0] - dims[k-1]; got != best {
				t.Errorf("DimsCreate(%d, %d) = %v, spread %d; best is %d", m, k, dims, got, best)
			}
		}
	}
}

func TestCartCoordsRank(t *testing.T) {
	topo := &CartTopo{dims: []int{2, 3, 4}, periods: []bool{false, true, false}}
	for r := 0; r < 24; r++ {
		c, err := topo.Coords(r)
		if err != nil {
			t.Fatal(err)
		}
		want := []int{r / 12, (r / 4) % 3, r % 4}
		if !slices.Equal(c, want) {
			t.Errorf("Coords(%d) = %v, want %v", r, c, want)
		}
		back, err := topo.Rank(c)
		if err != nil || back != r {
			t.Errorf("Rank(%v) = %d, %v; want %d", c, back, err, r)
		}
	}
	tests := []struct {
		coords []int
		want   int
		class  int
	}{
		{[]int{1, 2, 3}, 23, 0},
		{[]int{0, -1, 0}, 8, 0}, // periodic dimension wraps
		{[]int{0, 4, 1}, 5, 0},
		{[]int{2, 0, 0}, 0, ErrArg}, // non-periodic out of range
		{[]int{0, 0, -1}, 0, ErrArg},
		{[]int{0, 0}, 0, ErrArg},
	}
	for _, tc := range tests {
		r, err := topo.Rank(tc.coords)
		if tc.class != 0 {
			if err == nil || AsError(err).Class != tc.class {
				t.Errorf("Rank(%v) = %d, %v; want class %d", tc.coords, r, err, tc.class)
			}
			continue
		}
		if err != nil || r != tc.want {
			t.Errorf("Rank(%v) = %d, %v; want %d", tc.coords, r, err, tc.want)
		}
	}
	for _, r := range []int{-1, 24} {
		if _, err := topo.Coords(r); err == nil || AsError(err).Class != ErrRank {
			t.Errorf("Coords(%d): %v, want MPI_ERR_RANK", r, err)
		}
	}
	zero := &CartTopo{dims: []int{}, periods: []bool{}}
	if c, err := zero.Coords(0); err != nil || len(c) != 0 {
		t.Errorf("zero-dimensional Coords(0) = %v, %v", c, err)
	}
	if r, err := zero.Rank(nil); err != nil || r != 0 {
		t.Errorf("zero-dimensional Rank() = %d, %v", r, err)
	}
}

func TestCartShift(t *testing.T) {
	topo := &CartTopo{dims: []int{3, 4}, periods: []bool{true, false}}
	tests := []struct {
		rank, dir, disp int
		src, dst        int
		class           int
	}{
		{0, 0, 1, 8, 4, 0},        // periodic: (2,0) and (1,0)
		{0, 1, 1, ProcNull, 1, 0}, // non-periodic left edge
		{3, 1, 1, 2, ProcNull, 0}, // right edge
		{5, 1, 2, ProcNull, 7, 0}, // (1,1): source (1,-1) off the edge
		{5, 0, -1, 9, 1, 0},       // negative displacement
		{5, 0, 3, 5, 5, 0},        // a full turn
		{5, 0, 0, 5, 5, 0},        // no move
		{5, 1, -5, ProcNull, ProcNull, 0},
		{0, 2, 1, 0, 0, ErrArg},
		{0, -1, 1, 0, 0, ErrArg},
		{12, 0, 1, 0, 0, ErrRank},
	}
	for _, tc := range tests {
		src, dst, err := topo.Shift(tc.rank, tc.dir, tc.disp)
		if tc.class != 0 {
			if err == nil || AsError(err).Class != tc.class {
				t.Errorf("Shift(%d, %d, %d): %v, want class %d", tc.rank, tc.dir, tc.disp, err, tc.class)
			}
			continue
		}
		if err != nil || src != tc.src || dst != tc.dst {
			t.Errorf("Shift(%d, %d, %d) = %d, %d, %v; want %d, %d", tc.rank, tc.dir, tc.disp, src, dst, err, tc.src, tc.dst)
		}
	}
}

func TestNeighbours(t *testing.T) {
	graph := &GraphTopo{index: []int{2, 3, 6, 6}, edges: []int{1, 2, 0, 0, 2, 2}}
	dist := &DistGraphTopo{sources: []int{3, 1}, dests: []int{0}}
	tests := []struct {
		name     string
		topo     Topology
		rank     int
		src, dst []int
		order    []int
	}{
		{"cart 1D periodic size 1", &CartTopo{dims: []int{1}, periods: []bool{true}}, 0, []int{0, 0}, []int{0, 0}, []int{1, 0}},
		{"cart 1D open size 1", &CartTopo{dims: []int{1}, periods: []bool{false}}, 0, []int{ProcNull, ProcNull}, []int{ProcNull, ProcNull}, []int{1, 0}},
		{"cart 2x3 mixed", &CartTopo{dims: []int{2, 3}, periods: []bool{false, true}}, 4, []int{1, ProcNull, 3, 5}, []int{1, ProcNull, 3, 5}, []int{1, 0, 3, 2}},
		{"graph middle node", graph, 2, []int{0, 2, 2}, []int{0, 2, 2}, []int{0, 1, 2}},
		{"graph isolated", graph, 3, []int{}, []int{}, []int{}},
		{"dist graph", dist, 0, []int{3, 1}, []int{0}, []int{0, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			nb, err := neighbours(tc.topo, tc.rank)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(nb.src, tc.src) || !slices.Equal(nb.dst, tc.dst) || !slices.Equal(nb.recvOrder, tc.order) {
				t.Errorf("got src %v dst %v order %v; want %v %v %v", nb.src, nb.dst, nb.recvOrder, tc.src, tc.dst, tc.order)
			}
		})
	}
	if _, err := neighbours(nil, 0); err == nil || AsError(err).Class != ErrTopology {
		t.Errorf("neighbours without a topology: %v, want MPI_ERR_TOPOLOGY", err)
	}
}

// TestNeighbourPairing plays out message matching (non-overtaking: the k-th send
// from p to q meets the k-th receive q posted for p) over every process of a
// topology and checks where each sent block lands: in a Cartesian grid block s must
// land in block s^1 (MPI-4.1 §8.6); in a graph, the k-th edge p->q must meet the k-th
// edge from p at q.
func TestNeighbourPairing(t *testing.T) {
	type topoCase struct {
		name string
		n    int
		topo func(rank int) Topology
	}
	cart := func(dims []int, periods []bool) func(int) Topology {
		c := &CartTopo{dims: dims, periods: periods}
		return func(int) Topology { return c }
	}
	// A multigraph with self-loops: 0-1 twice, 1-1 twice, 1-2, 2-0.
	graph := &GraphTopo{index: []int{3, 8, 10}, edges: []int{1, 1, 2, 0, 1, 1, 0, 2, 1, 0}}
	// A directed multigraph: 0->1 twice, 1->0, 1->1, 2->0.
	dist := []*DistGraphTopo{
		{sources: []int{1, 2}, dests: []int{1, 1}},
		{sources: []int{0, 1, 0}, dests: []int{0, 1}},
		{sources: []int{}, dests: []int{0}},
	}
	cases := []topoCase{
		{"ring of 1", 1, cart([]int{1}, []bool{true})},
		{"ring of 2", 2, cart([]int{2}, []bool{true})},
		{"ring of 3", 3, cart([]int{3}, []bool{true})},
		{"line of 2", 2, cart([]int{2}, []bool{false})},
		{"2x2 torus", 4, cart([]int{2, 2}, []bool{true, true})},
		{"1x1x2", 2, cart([]int{1, 1, 2}, []bool{true, true, true})},
		{"1x2x1 mixed", 2, cart([]int{1, 2, 1}, []bool{true, false, true})},
		{"2x3 torus", 6, cart([]int{2, 3}, []bool{true, true})},
		{"graph", 3, func(int) Topology { return graph }},
		{"dist graph", 3, func(r int) Topology { return dist[r] }},
	}
	type msg struct{ from, block int }
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			nbs := make([]*neighbourhood, tc.n)
			for r := range nbs {
				nb, err := neighbours(tc.topo(r), r)
				if err != nil {
					t.Fatal(err)
				}
				nbs[r] = nb
			}
			// Channels per (from, to) pair, in send order.
			chans := map[[2]int][]msg{}
			for p, nb := range nbs {
				for i, q := range nb.dst {
					if q != ProcNull {
						chans[[2]int{p, q}] = append(chans[[2]int{p, q}], msg{p, i})
					}
				}
			}
			for q, nb := range nbs {
				for _, j := range nb.recvOrder {
					p := nb.src[j]
					if p == ProcNull {
						continue
					}
					ch := chans[[2]int{p, q}]
					if len(ch) == 0 {
						t.Fatalf("process %d posts a receive from %d for block %d that no send matches", q, p, j)
					}
					m := ch[0]
					chans[[2]int{p, q}] = ch[1:]
					if _, isCart := tc.topo(q).(*CartTopo); isCart {
						if m.block != j^1 {
							t.Errorf("block %d of %d landed in block %d of %d, want %d", m.block, p, j, q, m.block^1)
						}
						continue
					}
					// Graphs: the k-th edge p->q pairs with the k-th edge from p at q.
					k := 0
					for _, x := range nbs[p].dst[:m.block] {
						if x == q {
							k++
						}
					}
					kk := 0
					for _, x := range nb.src[:j] {
						if x == p {
							kk++
						}
					}
					if k != kk {
						t.Errorf("edge %d of %d->%d landed as edge %d", k, p, q, kk)
					}
				}
			}
			for pair, ch := range chans {
				if len(ch) != 0 {
					t.Errorf("%d sends from %d to %d never matched", len(ch), pair[0], pair[1])
				}
			}
		})
	}
}

func TestCheckGraph(t *testing.T) {
	c := &Comm{Size: 4}
	tests := []struct {
		index, edges []int
		class        int
	}{
		{[]int{1, 2}, []int{1, 0}, 0},
		{[]int{}, []int{}, 0},
		{[]int{2, 1}, []int{1, 0}, ErrArg},
		{[]int{1, 3}, []int{1, 0}, ErrArg},
		{[]int{1, 2}, []int{1, 2}, ErrRank},
		{[]int{0, 0, 0, 0, 0}, []int{}, ErrTopology},
	}
	for _, tc := range tests {
		err := checkGraph(c, tc.index, tc.edges, "test")
		got := 0
		if err != nil {
			got = AsError(err).Class
		}
		if got != tc.class {
			t.Errorf("checkGraph(%v, %v) = %v, want class %d", tc.index, tc.edges, err, tc.class)
		}
	}
}

func TestCheckGrid(t *testing.T) {
	tests := []struct {
		dims  []int
		size  int
		want  int
		class int
	}{
		{[]int{2, 3}, 6, 6, 0},
		{[]int{2, 3}, 8, 6, 0},
		{[]int{}, 1, 1, 0},
		{[]int{2, 4}, 6, 0, ErrTopology},
		{[]int{2, 0}, 6, 0, ErrDims},
		{[]int{-1}, 6, 0, ErrDims},
		{[]int{1 << 31, 1 << 31, 1 << 31}, 6, 0, ErrTopology},
	}
	for _, tc := range tests {
		n, err := checkGrid(tc.dims, tc.size, "test")
		got := 0
		if err != nil {
			got = AsError(err).Class
		}
		if got != tc.class || (err == nil && n != tc.want) {
			t.Errorf("checkGrid(%v, %d) = %d, %v; want %d, class %d", tc.dims, tc.size, n, err, tc.want, tc.class)
		}
	}
}
