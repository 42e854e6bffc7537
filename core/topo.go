package core

import (
	"math"
	"slices"
	"sort"
)

// Virtual topologies (MPI-4.1 chapter 8): Cartesian grids, graphs and distributed
// graphs attached to a communicator. A topology is immutable once made, so
// communicators share it (a duplicate gets its parent's) and queries need no lock
// beyond the one Comm.Topo takes. Process ranks are never reordered: the
// reorder argument of the constructors is allowed to be ignored, and keeping the old
// ranks makes every process's rank in the new communicator its rank in the old one.

// Topology kinds as MPI_Topo_test reports them (MPICH's values).
const (
	TopoGraph     = 1 // MPI_GRAPH
	TopoCart      = 2 // MPI_CART
	TopoDistGraph = 3 // MPI_DIST_GRAPH
)

// CartTopo is a Cartesian topology: a grid of dims processes, wrapping around in the
// periodic dimensions, with ranks numbered in row-major order (the last coordinate
// varies fastest).
type CartTopo struct {
	dims    []int
	periods []bool
}

// Kind is MPI_CART.
func (t *CartTopo) Kind() int { return TopoCart }

// NDims is the number of dimensions.
func (t *CartTopo) NDims() int { return len(t.dims) }

// Dims returns the extent of each dimension (not to be modified).
func (t *CartTopo) Dims() []int { return t.dims }

// Periods says which dimensions wrap around (not to be modified).
func (t *CartTopo) Periods() []bool { return t.periods }

// size is the number of processes in the grid.
func (t *CartTopo) size() int {
	n := 1
	for _, d := range t.dims {
		n *= d
	}
	return n
}

// Coords returns the grid coordinates of rank.
func (t *CartTopo) Coords(rank int) ([]int, error) {
	if rank < 0 || rank >= t.size() {
		return nil, Errorf(ErrRank, "invalid rank %d in a Cartesian grid of %d processes", rank, t.size())
	}
	c := make([]int, len(t.dims))
	for i := len(t.dims) - 1; i >= 0; i-- {
		c[i] = rank % t.dims[i]
		rank /= t.dims[i]
	}
	return c, nil
}

// Rank returns the rank at coords; coordinates outside a periodic dimension wrap
// around, outside a non-periodic one they are an error.
func (t *CartTopo) Rank(coords []int) (int, error) {
	if len(coords) != len(t.dims) {
		return 0, Errorf(ErrArg, "%d coordinates for a %d-dimensional grid", len(coords), len(t.dims))
	}
	r := 0
	for i, x := range coords {
		d := t.dims[i]
		if x < 0 || x >= d {
			if !t.periods[i] {
				return 0, Errorf(ErrArg, "coordinate %d of dimension %d is outside 0..%d and the dimension is not periodic", x, i, d-1)
			}
			x = ((x % d) + d) % d
		}
		r = r*d + x
	}
	return r, nil
}

// Shift is MPI_Cart_shift for the process rank: the ranks disp steps back (source)
// and forward (destination) along direction; MPI_PROC_NULL off a non-periodic edge.
func (t *CartTopo) Shift(rank, direction, disp int) (source, dest int, err error) {
	if direction < 0 || direction >= len(t.dims) {
		return 0, 0, Errorf(ErrArg, "invalid direction %d for a %d-dimensional grid", direction, len(t.dims))
	}
	coords, err := t.Coords(rank)
	if err != nil {
		return 0, 0, err
	}
	at := func(delta int) int {
		c := slices.Clone(coords)
		x, d := c[direction]+delta, t.dims[direction]
		if x < 0 || x >= d {
			if !t.periods[direction] {
				return ProcNull
			}
			x = ((x % d) + d) % d
		}
		c[direction] = x
		r, _ := t.Rank(c)
		return r
	}
	return at(-disp), at(disp), nil
}

// GraphTopo is a graph topology (MPI_Graph_create): every process knows the whole
// graph; node i's neighbours are edges[index[i-1]:index[i]].
type GraphTopo struct {
	index []int
	edges []int
}

// Kind is MPI_GRAPH.
func (t *GraphTopo) Kind() int { return TopoGraph }

// Index and Edges return the graph as given to MPI_Graph_create (not to be modified).
func (t *GraphTopo) Index() []int { return t.index }
func (t *GraphTopo) Edges() []int { return t.edges }

// Neighbors returns rank's neighbours in adjacency order (not to be modified).
func (t *GraphTopo) Neighbors(rank int) ([]int, error) {
	if rank < 0 || rank >= len(t.index) {
		return nil, Errorf(ErrRank, "invalid rank %d in a graph of %d nodes", rank, len(t.index))
	}
	lo := 0
	if rank > 0 {
		lo = t.index[rank-1]
	}
	return t.edges[lo:t.index[rank]], nil
}

// DistGraphTopo is a distributed graph topology: each process knows only its own
// incoming (sources) and outgoing (destinations) edges, with weights when the graph
// was created weighted.
type DistGraphTopo struct {
	sources, sourceWeights []int
	dests, destWeights     []int
	weighted               bool
}

// Kind is MPI_DIST_GRAPH.
func (t *DistGraphTopo) Kind() int { return TopoDistGraph }

// Sources, Destinations and their weights (nil when unweighted); not to be modified.
func (t *DistGraphTopo) Sources() []int       { return t.sources }
func (t *DistGraphTopo) SourceWeights() []int { return t.sourceWeights }
func (t *DistGraphTopo) Dests() []int         { return t.dests }
func (t *DistGraphTopo) DestWeights() []int   { return t.destWeights }

// Weighted reports whether weights were given at creation.
func (t *DistGraphTopo) Weighted() bool { return t.weighted }

// copyTopo gives a duplicate its parent's topology (MPI_Comm_dup keeps it; the
// topology is immutable, so sharing is safe). Called by Dup once the child exists.
func copyTopo(parent, child *Comm) {
	if t := parent.Topo(); t != nil {
		child.SetTopo(t)
	}
}

// TopoTest is MPI_Topo_test: the kind of c's topology, MPI_UNDEFINED for none.
func TopoTest(c *Comm) int {
	if t := c.Topo(); t != nil {
		return t.Kind()
	}
	return Undefined
}

// CartOf returns c's Cartesian topology, or MPI_ERR_TOPOLOGY.
func CartOf(c *Comm) (*CartTopo, error) {
	if t, ok := c.Topo().(*CartTopo); ok {
		return t, nil
	}
	return nil, Errorf(ErrTopology, "the communicator has no Cartesian topology")
}

// GraphOf returns c's graph topology, or MPI_ERR_TOPOLOGY.
func GraphOf(c *Comm) (*GraphTopo, error) {
	if t, ok := c.Topo().(*GraphTopo); ok {
		return t, nil
	}
	return nil, Errorf(ErrTopology, "the communicator has no graph topology")
}

// DistGraphOf returns c's distributed graph topology, or MPI_ERR_TOPOLOGY.
func DistGraphOf(c *Comm) (*DistGraphTopo, error) {
	if t, ok := c.Topo().(*DistGraphTopo); ok {
		return t, nil
	}
	return nil, Errorf(ErrTopology, "the communicator has no distributed graph topology")
}

func checkTopoParent(c *Comm, what string) error {
	if c.IsInter() {
		return Errorf(ErrComm, "%s needs an intracommunicator", what)
	}
	return nil
}

// checkGrid validates dims and returns the number of processes of the grid, which
// must not exceed size.
func checkGrid(dims []int, size int, what string) (int, error) {
	n := 1
	for i, d := range dims {
		if d <= 0 {
			return 0, Errorf(ErrDims, "%s: dims[%d] is %d; every dimension needs at least one process", what, i, d)
		}
		if n > size/d { // n*d > size, without overflowing
			return 0, Errorf(ErrTopology, "%s: the grid has more processes than the communicator's %d", what, size)
		}
		n *= d
	}
	return n, nil
}

// firstRanks is the group of c's first n ranks.
func firstRanks(c *Comm, n int) *Group {
	return NewGroup(slices.Clone(c.group.ranks[:n]))
}

// CartCreate is MPI_Cart_create: c's first prod(dims) processes form the grid in
// rank order; the others get MPI_COMM_NULL (nil).
func CartCreate(c *Comm, dims []int, periods []bool, reorder bool) (*Comm, error) {
	if err := checkTopoParent(c, "MPI_Cart_create"); err != nil {
		return nil, err
	}
	if len(periods) != len(dims) {
		return nil, Errorf(ErrArg, "MPI_Cart_create: %d periods for %d dimensions", len(periods), len(dims))
	}
	n, err := checkGrid(dims, c.Size, "MPI_Cart_create")
	if err != nil {
		return nil, err
	}
	nc, err := Create(c, firstRanks(c, n))
	if err != nil || nc == nil {
		return nil, err
	}
	nc.SetTopo(&CartTopo{dims: slices.Clone(dims), periods: slices.Clone(periods)})
	return nc, nil
}

// CartSub is MPI_Cart_sub: the processes that share the coordinates of the dropped
// dimensions form a grid of the kept ones (a zero-dimensional grid of one process
// when none is kept).
func CartSub(c *Comm, remain []bool) (*Comm, error) {
	t, err := CartOf(c)
	if err != nil {
		return nil, err
	}
	if len(remain) != t.NDims() {
		return nil, Errorf(ErrArg, "MPI_Cart_sub: %d entries in remain_dims for a %d-dimensional grid", len(remain), t.NDims())
	}
	coords, err := t.Coords(c.Rank)
	if err != nil {
		return nil, err
	}
	color := 0
	sub := &CartTopo{dims: []int{}, periods: []bool{}}
	for i, keep := range remain {
		if keep {
			sub.dims = append(sub.dims, t.dims[i])
			sub.periods = append(sub.periods, t.periods[i])
		} else {
			color = color*t.dims[i] + coords[i]
		}
	}
	// Row-major order is kept within each subgrid, so the old rank orders the new one.
	nc, err := Split(c, color, c.Rank, nil)
	if err != nil || nc == nil {
		return nil, err
	}
	nc.SetTopo(sub)
	return nc, nil
}

// CartMap is MPI_Cart_map: the rank this process would have in such a grid (its own,
// since ranks are never reordered), MPI_UNDEFINED when it is not in the grid.
func CartMap(c *Comm, dims []int, periods []bool) (int, error) {
	if err := checkTopoParent(c, "MPI_Cart_map"); err != nil {
		return 0, err
	}
	n, err := checkGrid(dims, c.Size, "MPI_Cart_map")
	if err != nil {
		return 0, err
	}
	if c.Rank < n {
		return c.Rank, nil
	}
	return Undefined, nil
}

// checkGraph validates an MPI_Graph_create description of nnodes = len(index) nodes.
func checkGraph(c *Comm, index, edges []int, what string) error {
	if len(index) > c.Size {
		return Errorf(ErrTopology, "%s: %d nodes but the communicator has %d processes", what, len(index), c.Size)
	}
	prev := 0
	for i, x := range index {
		if x < prev {
			return Errorf(ErrArg, "%s: index[%d] is %d, below index[%d]; index must not decrease", what, i, x, i-1)
		}
		prev = x
	}
	if prev != len(edges) {
		return Errorf(ErrArg, "%s: index ends at %d but %d edges were given", what, prev, len(edges))
	}
	for i, e := range edges {
		if e < 0 || e >= len(index) {
			return Errorf(ErrRank, "%s: edges[%d] is %d, not a node of a graph of %d nodes", what, i, e, len(index))
		}
	}
	return nil
}

// GraphCreate is MPI_Graph_create: c's first len(index) processes form the graph's
// nodes in rank order; the others get MPI_COMM_NULL (nil). Self-loops and repeated
// edges are allowed.
func GraphCreate(c *Comm, index, edges []int, reorder bool) (*Comm, error) {
	if err := checkTopoParent(c, "MPI_Graph_create"); err != nil {
		return nil, err
	}
	if err := checkGraph(c, index, edges, "MPI_Graph_create"); err != nil {
		return nil, err
	}
	nc, err := Create(c, firstRanks(c, len(index)))
	if err != nil || nc == nil {
		return nil, err
	}
	nc.SetTopo(&GraphTopo{index: slices.Clone(index), edges: slices.Clone(edges)})
	return nc, nil
}

// GraphMap is MPI_Graph_map: the process's own rank when it is one of the nnodes
// nodes, else MPI_UNDEFINED.
func GraphMap(c *Comm, index, edges []int) (int, error) {
	if err := checkTopoParent(c, "MPI_Graph_map"); err != nil {
		return 0, err
	}
	if err := checkGraph(c, index, edges, "MPI_Graph_map"); err != nil {
		return 0, err
	}
	if c.Rank < len(index) {
		return c.Rank, nil
	}
	return Undefined, nil
}

// checkEdges validates neighbour ranks and weights (weights nil: unweighted).
func checkEdges(c *Comm, ranks, weights []int, what string) error {
	for i, r := range ranks {
		if r < 0 || r >= c.Size {
			return Errorf(ErrRank, "%s: rank %d is not in a communicator of size %d", what, r, c.Size)
		}
		if weights != nil && weights[i] < 0 {
			return Errorf(ErrArg, "%s: weight %d is negative", what, weights[i])
		}
	}
	return nil
}

// DistGraphCreateAdjacent is MPI_Dist_graph_create_adjacent: each process names its
// own neighbours, so making the communicator is a duplicate of c carrying them (info
// holds hints, which are not used).
// Weights nil means MPI_UNWEIGHTED (then both must be nil).
func DistGraphCreateAdjacent(c *Comm, sources, sourceWeights, dests, destWeights []int, info *Info, reorder bool) (*Comm, error) {
	if err := checkTopoParent(c, "MPI_Dist_graph_create_adjacent"); err != nil {
		return nil, err
	}
	if (sourceWeights == nil) != (destWeights == nil) {
		return nil, Errorf(ErrArg, "MPI_Dist_graph_create_adjacent: MPI_UNWEIGHTED must be given for both weight arrays or neither")
	}
	if err := firstErr(checkEdges(c, sources, sourceWeights, "MPI_Dist_graph_create_adjacent: sources"),
		checkEdges(c, dests, destWeights, "MPI_Dist_graph_create_adjacent: destinations")); err != nil {
		return nil, err
	}
	t := &DistGraphTopo{sources: slices.Clone(sources), dests: slices.Clone(dests), weighted: sourceWeights != nil}
	if t.weighted {
		t.sourceWeights, t.destWeights = slices.Clone(sourceWeights), slices.Clone(destWeights)
	}
	return dupWithTopo(c, t)
}

// dupWithTopo makes a communicator of c's whole group (MPI_Comm_create with c's group:
// a new context, the same ranks) and attaches t. The creation hints are accepted and
// not used, so the new communicator carries none.
func dupWithTopo(c *Comm, t Topology) (*Comm, error) {
	nc, err := Create(c, c.group)
	if err != nil {
		return nil, err
	}
	nc.SetTopo(t)
	return nc, nil
}

// An edge record of MPI_Dist_graph_create's redistribution: [kind, other end, weight].
const (
	edgeOut   = 0 // the receiver has an edge to "other end"
	edgeIn    = 1 // the receiver has an edge from "other end"
	edgeWords = 3
)

// DistGraphCreate is MPI_Dist_graph_create: this process contributes, for each
// sources[i], degrees[i] edges to the next entries of dests (with weights, nil when
// unweighted). Every edge s->d is sent to s (an outgoing edge) and to d (an incoming
// one) with an all-to-all exchange, so each process learns its own neighbours. Each
// process's lists come in the order of the contributing ranks, then of their
// arguments, the same order at both ends of an edge, which is what pairs repeated
// edges in neighbourhood collectives.
func DistGraphCreate(c *Comm, sources, degrees, dests, weights []int, info *Info, reorder bool) (*Comm, error) {
	const what = "MPI_Dist_graph_create"
	if err := checkTopoParent(c, what); err != nil {
		return nil, err
	}
	if len(degrees) != len(sources) {
		return nil, Errorf(ErrArg, "%s: %d degrees for %d sources", what, len(degrees), len(sources))
	}
	total := 0
	for i, d := range degrees {
		if d < 0 {
			return nil, Errorf(ErrArg, "%s: degrees[%d] is negative (%d)", what, i, d)
		}
		total += d
	}
	if len(dests) != total || (weights != nil && len(weights) != total) {
		return nil, Errorf(ErrArg, "%s: the degrees add up to %d but %d destinations were given", what, total, len(dests))
	}
	if err := firstErr(checkEdges(c, sources, nil, what+": sources"), checkEdges(c, dests, weights, what+": destinations")); err != nil {
		return nil, err
	}

	// Records for each process, in the order this process gives the edges.
	out := make([][]int64, c.Size)
	k := 0
	for i, s := range sources {
		for j := 0; j < degrees[i]; j++ {
			d, w := dests[k], 0
			if weights != nil {
				w = weights[k]
			}
			out[s] = append(out[s], edgeOut, int64(d), int64(w))
			out[d] = append(out[d], edgeIn, int64(s), int64(w))
			k++
		}
	}
	in, err := exchangeInts(c, out)
	if err != nil {
		return nil, err
	}
	t := &DistGraphTopo{sources: []int{}, dests: []int{}, weighted: weights != nil}
	if t.weighted {
		t.sourceWeights, t.destWeights = []int{}, []int{}
	}
	for i := 0; i+edgeWords <= len(in); i += edgeWords {
		other, w := int(in[i+1]), int(in[i+2])
		if in[i] == edgeOut {
			t.dests = append(t.dests, other)
			if t.weighted {
				t.destWeights = append(t.destWeights, w)
			}
		} else {
			t.sources = append(t.sources, other)
			if t.weighted {
				t.sourceWeights = append(t.sourceWeights, w)
			}
		}
	}
	return dupWithTopo(c, t)
}

// exchangeInts sends out[p] to each process p of c and returns what every process
// sent to this one, concatenated in rank order: an all-to-all of the counts, then an
// all-to-all of the values.
func exchangeInts(c *Comm, out [][]int64) ([]int64, error) {
	n, bt := c.Size, byteType()
	scounts, rcounts := make([]int64, n), make([]int64, n)
	for p, v := range out {
		scounts[p] = 8 * int64(len(v))
	}
	if _, err := Alltoall(Blocking, AlltoallArgs{Sbuf: ints8(scounts), Scount: 8, St: bt,
		Rbuf: ints8(rcounts), Rcount: 8, Rt: bt}, c); err != nil {
		return nil, err
	}
	var flat []int64
	sdispl, rdispl := make([]int64, n), make([]int64, n)
	var rtotal int64
	for p := 0; p < n; p++ {
		sdispl[p] = 8 * int64(len(flat))
		flat = append(flat, out[p]...)
		rdispl[p] = rtotal
		rtotal += rcounts[p]
	}
	if rtotal%8 != 0 {
		return nil, Errorf(ErrIntern, "edge exchange received %d bytes, not whole values", rtotal)
	}
	in := make([]int64, rtotal/8)
	if _, err := Alltoall(Blocking, AlltoallArgs{Sbuf: ints8(flat), Scounts: scounts, Sdispl: sdispl, St: bt,
		Rbuf: ints8(in), Rcounts: rcounts, Rdispl: rdispl, Rt: bt}, c); err != nil {
		return nil, err
	}
	return in, nil
}

// DimsCreate is MPI_Dims_create: it fills the zero entries of dims so that the
// product of all entries is nnodes, with the filled entries as close to each other as
// possible (the smallest difference between the largest and the smallest) and in
// non-increasing order. Positive entries are kept; negative ones are an error.
func DimsCreate(nnodes int, dims []int) error {
	if nnodes <= 0 {
		return Errorf(ErrArg, "MPI_Dims_create: nnodes must be positive (%d)", nnodes)
	}
	fixed, free := 1, 0
	for i, d := range dims {
		switch {
		case d < 0:
			return Errorf(ErrDims, "MPI_Dims_create: dims[%d] is negative (%d)", i, d)
		case d == 0:
			free++
		default:
			if fixed > nnodes/d {
				return Errorf(ErrDims, "MPI_Dims_create: the given dimensions hold more than %d processes", nnodes)
			}
			fixed *= d
		}
	}
	if nnodes%fixed != 0 {
		return Errorf(ErrDims, "MPI_Dims_create: %d processes do not divide into the given dimensions (product %d)", nnodes, fixed)
	}
	m := nnodes / fixed
	if free == 0 {
		if m != 1 {
			return Errorf(ErrDims, "MPI_Dims_create: the given dimensions hold %d processes, not %d", fixed, nnodes)
		}
		return nil
	}
	f := balancedFactors(m, free)
	k := 0
	for i := range dims {
		if dims[i] == 0 {
			dims[i] = f[k]
			k++
		}
	}
	return nil
}

// balancedFactors splits m into k factors, non-increasing, whose largest and smallest
// differ least (the smallest largest one among equals). A depth-first search over
// divisors, pruned by bounds: the factors still to choose lie between the k-th root
// of what remains and the previous factor.
func balancedFactors(m, k int) []int {
	var divs []int
	for d := 1; d*d <= m; d++ {
		if m%d == 0 {
			divs = append(divs, d)
			if d*d != m {
				divs = append(divs, m/d)
			}
		}
	}
	sort.Ints(divs)
	best := make([]int, k)
	for i := range best {
		best[i] = 1
	}
	best[0] = m
	bestSpread := m - 1
	cur := make([]int, k)
	var search func(i, rest, prev int)
	search = func(i, rest, prev int) {
		left := k - i
		if left == 1 {
			cur[i] = rest
			if rest <= prev && cur[0]-rest < bestSpread {
				bestSpread = cur[0] - rest
				copy(best, cur)
			}
			return
		}
		lo := rootCeil(rest, left)
		start := sort.SearchInts(divs, lo)
		for _, f := range divs[start:] {
			if f > prev || f > rest {
				break
			}
			if rest%f != 0 {
				continue
			}
			top := cur[0]
			if i == 0 {
				top = f
			}
			// The smallest factor will be at most the (left-1)-th root of what remains.
			if top-rootFloor(rest/f, left-1) >= bestSpread {
				break
			}
			cur[i] = f
			search(i+1, rest/f, f)
		}
	}
	search(0, m, m)
	return best
}

// powAtLeast reports whether x^k >= n (x >= 1, without overflow).
func powAtLeast(x, k, n int) bool {
	p := 1
	for i := 0; i < k; i++ {
		if p >= (n+x-1)/x { // p*x >= n
			return true
		}
		p *= x
	}
	return p >= n
}

// rootCeil is the smallest x >= 1 with x^k >= n.
func rootCeil(n, k int) int {
	x := max(1, int(math.Pow(float64(n), 1/float64(k))))
	for x > 1 && powAtLeast(x-1, k, n) {
		x--
	}
	for !powAtLeast(x, k, n) {
		x++
	}
	return x
}

// rootFloor is the largest x >= 1 with x^k <= n (n >= 1).
func rootFloor(n, k int) int {
	x := rootCeil(n, k)
	if !powAtLeast(x, k, n+1) { // x^k <= n
		return x
	}
	return max(1, x-1)
}
