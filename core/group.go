package core

import (
	"sort"
	"sync"
)

// Group is an ordered set of processes, named by their MPI_COMM_WORLD ranks. Groups are
// immutable once made, so communicators share them freely.
type Group struct {
	Handle int32
	ranks  []int // world rank of each group rank

	indexOnce sync.Once
	index     map[int]int // world rank -> group rank, built on first lookup
}

// Result values of MPI_Group_compare and MPI_Comm_compare (MPICH's).
const (
	Ident     = 0
	Congruent = 1
	Similar   = 2
	Unequal   = 3
)

// Undefined is MPI_UNDEFINED.
const Undefined = -32766

var groups = NewTable[Group](KindGroup)

// GroupEmpty is MPI_GROUP_EMPTY (0x48000000).
var GroupEmpty = &Group{Handle: BuiltinHandle(KindGroup, 0)}

// NewGroup makes a group of the given world ranks (not registered with a handle).
func NewGroup(worldRanks []int) *Group { return &Group{ranks: worldRanks} }

// Register gives the caller a handle of its own to the group: a new handle each call,
// on a handle object that shares g's members (groups never change). MPI_Comm_group
// called twice on one communicator, or from several threads at once, thus returns two
// handles that each stay valid until they themselves are freed (MPI-4.1 §7.3.2: a
// group from MPI_Comm_group is released by its own MPI_Group_free), and freeing one
// never touches the communicator's group or the other handle. A group with no
// members is MPI_GROUP_EMPTY.
func (g *Group) Register() *Group {
	if len(g.ranks) == 0 {
		return GroupEmpty
	}
	h := &Group{ranks: g.ranks}
	h.Handle = groups.Add(h)
	return h
}

// LookupGroup resolves a group handle.
func LookupGroup(h int32) (*Group, error) {
	if h == GroupEmpty.Handle {
		return GroupEmpty, nil
	}
	if g := groups.Get(h); g != nil {
		return g, nil
	}
	if h == NullHandle(KindGroup) {
		return nil, Errorf(ErrGroup, "MPI_GROUP_NULL is not a valid group here")
	}
	return nil, Errorf(ErrGroup, "invalid group handle 0x%x", uint32(h))
}

// Free releases the handle g was registered under (each handle is its own object, see
// Register); communicators keep using their own group.
func (g *Group) Free() error {
	if g == GroupEmpty || g.Handle == 0 {
		return nil // MPI allows freeing MPI_GROUP_EMPTY obtained from a call
	}
	groups.Remove(g.Handle)
	g.Handle = 0
	return nil
}

// Size is the number of processes in the group.
func (g *Group) Size() int { return len(g.ranks) }

// WorldRank is the world rank of group rank r.
func (g *Group) WorldRank(r int) int { return g.ranks[r] }

// WorldRanks returns the world ranks of the members (not to be modified).
func (g *Group) WorldRanks() []int { return g.ranks }

// RankOfWorld is the group rank of world rank w, or Undefined.
func (g *Group) RankOfWorld(w int) int {
	g.indexOnce.Do(func() {
		g.index = make(map[int]int, len(g.ranks))
		for i, x := range g.ranks {
			g.index[x] = i
		}
	})
	if r, ok := g.index[w]; ok {
		return r
	}
	return Undefined
}

// Rank is the calling process's rank in the group, or Undefined.
func (g *Group) Rank() int { return g.RankOfWorld(CommWorld.Rank) }

func (g *Group) checkRanks(ranks []int, what string) error {
	seen := make(map[int]bool, len(ranks))
	for _, r := range ranks {
		if r < 0 || r >= len(g.ranks) {
			return Errorf(ErrRank, "%s: rank %d is not in a group of size %d", what, r, len(g.ranks))
		}
		if seen[r] {
			return Errorf(ErrRank, "%s: rank %d appears twice", what, r)
		}
		seen[r] = true
	}
	return nil
}

// Incl is MPI_Group_incl: the listed ranks, in that order.
func (g *Group) Incl(ranks []int) (*Group, error) {
	if err := g.checkRanks(ranks, "MPI_Group_incl"); err != nil {
		return nil, err
	}
	out := make([]int, len(ranks))
	for i, r := range ranks {
		out[i] = g.ranks[r]
	}
	return NewGroup(out), nil
}

// Excl is MPI_Group_excl: every rank but the listed ones, in group order.
func (g *Group) Excl(ranks []int) (*Group, error) {
	if err := g.checkRanks(ranks, "MPI_Group_excl"); err != nil {
		return nil, err
	}
	drop := make(map[int]bool, len(ranks))
	for _, r := range ranks {
		drop[r] = true
	}
	var out []int
	for i, w := range g.ranks {
		if !drop[i] {
			out = append(out, w)
		}
	}
	return NewGroup(out), nil
}

// expandRanges turns MPI (first, last, stride) triplets into ranks.
func (g *Group) expandRanges(ranges [][3]int, what string) ([]int, error) {
	var out []int
	for _, t := range ranges {
		first, last, stride := t[0], t[1], t[2]
		if stride == 0 {
			return nil, Errorf(ErrArg, "%s: stride 0 in range (%d, %d, 0)", what, first, last)
		}
		for _, r := range []int{first, last} {
			if r < 0 || r >= len(g.ranks) {
				return nil, Errorf(ErrRank, "%s: rank %d is not in a group of size %d", what, r, len(g.ranks))
			}
		}
		for r := first; (stride > 0 && r <= last) || (stride < 0 && r >= last); r += stride {
			out = append(out, r)
		}
	}
	return out, g.checkRanks(out, what)
}

// RangeIncl is MPI_Group_range_incl.
func (g *Group) RangeIncl(ranges [][3]int) (*Group, error) {
	ranks, err := g.expandRanges(ranges, "MPI_Group_range_incl")
	if err != nil {
		return nil, err
	}
	return g.Incl(ranks)
}

// RangeExcl is MPI_Group_range_excl.
func (g *Group) RangeExcl(ranges [][3]int) (*Group, error) {
	ranks, err := g.expandRanges(ranges, "MPI_Group_range_excl")
	if err != nil {
		return nil, err
	}
	return g.Excl(ranks)
}

// Union is MPI_Group_union: g's members, then h's members not in g.
func (g *Group) Union(h *Group) *Group {
	out := append([]int(nil), g.ranks...)
	for _, w := range h.ranks {
		if g.RankOfWorld(w) == Undefined {
			out = append(out, w)
		}
	}
	return NewGroup(out)
}

// Intersection is MPI_Group_intersection: g's members also in h, in g's order.
func (g *Group) Intersection(h *Group) *Group {
	var out []int
	for _, w := range g.ranks {
		if h.RankOfWorld(w) != Undefined {
			out = append(out, w)
		}
	}
	return NewGroup(out)
}

// Difference is MPI_Group_difference: g's members not in h, in g's order.
func (g *Group) Difference(h *Group) *Group {
	var out []int
	for _, w := range g.ranks {
		if h.RankOfWorld(w) == Undefined {
			out = append(out, w)
		}
	}
	return NewGroup(out)
}

// TranslateRanks maps ranks of g to ranks of h (Undefined when absent; MPI_PROC_NULL
// maps to itself).
func (g *Group) TranslateRanks(ranks []int, h *Group) ([]int, error) {
	out := make([]int, len(ranks))
	for i, r := range ranks {
		if r == ProcNull {
			out[i] = ProcNull
			continue
		}
		if r < 0 || r >= len(g.ranks) {
			return nil, Errorf(ErrRank, "MPI_Group_translate_ranks: rank %d is not in a group of size %d", r, len(g.ranks))
		}
		out[i] = h.RankOfWorld(g.ranks[r])
	}
	return out, nil
}

// Compare is MPI_Group_compare.
func (g *Group) Compare(h *Group) int {
	if len(g.ranks) != len(h.ranks) {
		return Unequal
	}
	same := true
	for i := range g.ranks {
		if g.ranks[i] != h.ranks[i] {
			same = false
			break
		}
	}
	if same {
		return Ident
	}
	a := append([]int(nil), g.ranks...)
	b := append([]int(nil), h.ranks...)
	sort.Ints(a)
	sort.Ints(b)
	for i := range a {
		if a[i] != b[i] {
			return Unequal
		}
	}
	return Similar
}
