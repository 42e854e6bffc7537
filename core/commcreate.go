package core

import (
	"hash/fnv"
	"slices"
	"sort"
	"unsafe"

	"mpix/vci"
)

// Communicator creation. Every constructor is a schedule on the parent's internal
// context: members exchange what they need (colors and keys, group lists, context
// proposals), agree on a context id, and the last step makes the communicator. So
// MPI_Comm_idup is the same code as MPI_Comm_dup, only not waited for.
//
// Context ids: each process has a counter of ids it never used (nextContext). The
// members propose their counters, take the largest, and each claims it with one
// compare-and-swap; if a concurrent creation on another thread got there first, the
// members learn it in the next exchange and try again higher. No lock is shared
// between threads, and disjoint communicators may use the same id.

// ints8 is the byte view of a []int64 for exchanges.
func ints8(v []int64) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(v)) }

// gatherInts appends stages that gather k int64 values from every member of view v to
// its rank 0 (into all, n*k values; all is only filled at rank 0).
func gatherInts(s *schedule, v *Comm, mine, all []int64) {
	k := len(mine)
	if v.Rank != 0 {
		s.sendOn(v, 0, mine)
		s.next()
		return
	}
	copy(all[:k], mine)
	for i := 1; i < v.Size; i++ {
		s.recvOn(v, i, all[i*k:(i+1)*k])
	}
	s.next()
}

// bcastInts appends stages broadcasting vals from view v's rank 0.
func bcastInts(s *schedule, v *Comm, vals []int64) {
	if v.Rank == 0 {
		for i := 1; i < v.Size; i++ {
			s.sendOn(v, i, vals)
		}
	} else {
		s.recvOn(v, 0, vals)
	}
	s.next()
}

// allgatherInts appends stages after which all holds every member's k values.
func allgatherInts(s *schedule, v *Comm, mine, all []int64) {
	gatherInts(s, v, mine, all)
	bcastInts(s, v, all)
}

// agree appends stages that reduce every member's values with f (folding the values
// of all members, in rank order, local group first) so that each member of c ends
// with the same result in out, then calls done. On an intercommunicator the two
// groups' leaders swap their groups' results.
func agree(s *schedule, c *Comm, mine []int64, f func(acc, x []int64), out []int64, done func() error) {
	k := len(mine)
	lc := c.internal
	if c.IsInter() {
		lc = c.localComm.internal
	}
	all := make([]int64, k*lc.Size)
	gatherInts(s, lc, mine, all)
	s.then(func() error {
		if lc.Rank != 0 {
			return nil
		}
		copy(out, all[:k])
		for i := 1; i < lc.Size; i++ {
			f(out, all[i*k:(i+1)*k])
		}
		if !c.IsInter() {
			return nil
		}
		theirs := make([]int64, k)
		s.sendOn(c.internal, 0, out)
		s.recvOn(c.internal, 0, theirs)
		s.then(func() error { f(out, theirs); return nil })
		return nil
	})
	bcastInts(s, lc, out)
	s.then(done)
}

func maxInts(acc, x []int64) {
	for i := range acc {
		acc[i] = max(acc[i], x[i])
	}
}

// claimContext takes context block id for this process if no id at or above it was
// ever used here.
func claimContext(id uint32) bool {
	for {
		v := nextContext.Load()
		if v > id {
			return false
		}
		if nextContext.CompareAndSwap(v, id+ctxStride) {
			return true
		}
	}
}

// allocContext appends the agreement on a fresh context block among c's members
// (both groups of an intercommunicator); done receives it.
func allocContext(s *schedule, c *Comm, done func(id uint32) error) {
	proposal := []int64{int64(nextContext.Load())}
	agreed := make([]int64, 1)
	agree(s, c, proposal, maxInts, agreed, func() error {
		id := uint32(agreed[0])
		if id >= ctxLimit {
			return Errorf(ErrOther, "out of communicator context ids")
		}
		ok := []int64{0}
		if claimContext(id) {
			ok[0] = 1
		}
		allOK := make([]int64, 1)
		agree(s, c, ok, func(acc, x []int64) { acc[0] = min(acc[0], x[0]) }, allOK, func() error {
			if allOK[0] == 1 {
				return done(id)
			}
			allocContext(s, c, done) // someone's id was taken meanwhile: go higher
			return nil
		})
		return nil
	})
}

// allocContextVCI is allocContext for a communicator that gets VCIs of its own: the
// members first agree on its VCIs (one that none of them uses yet, the fallback VCI
// 0 if there is none, or what its hints ask for: vcihints.go), then on a context;
// done receives both. The communicator done makes must be given the rest of the
// plan with apply.
func allocContextVCI(s *schedule, c *Comm, h vci.Hints, done func(id uint32, p *vciPlan) error) {
	if vcis == nil || vcis.Len() == 1 {
		allocContext(s, c, func(id uint32) error { return done(id, planFor(c.eng)) })
		return
	}
	agreeVCIs(s, c, h, func(p *vciPlan) error {
		allocContext(s, c, func(id uint32) error { return done(id, p) })
		return nil
	})
}

// sendOn and recvOn add transfers of int64 values on a view other than the
// schedule's own; the Tagged forms also use a tag other than the schedule's.
func (s *schedule) sendOn(v *Comm, peer int, vals []int64) {
	s.xferInts(true, v, peer, vals, false, 0)
}

func (s *schedule) recvOn(v *Comm, peer int, vals []int64) {
	s.xferInts(false, v, peer, vals, false, 0)
}

func (s *schedule) sendTagged(v *Comm, peer, tag int, vals []int64) {
	s.xferInts(true, v, peer, vals, true, tag)
}

func (s *schedule) recvTagged(v *Comm, peer, tag int, vals []int64) {
	s.xferInts(false, v, peer, vals, true, tag)
}

func (s *schedule) xferInts(send bool, v *Comm, peer int, vals []int64, tagSet bool, tag int) {
	st := s.last()
	st.xfers = append(st.xfers, xfer{send: send, buf: ints8(vals), count: 8 * int64(len(vals)), dtype: byteType(),
		peer: peer, on: v, tagSet: tagSet, tag: tag})
}

// runInternal runs a creation schedule on c's internal context in the given mode
// (Blocking or Nonblocking); build appends its stages.
func runInternal(m CollMode, c *Comm, tag int, ownTag bool, build func(s *schedule)) (*Request, error) {
	if c.ep != nil {
		return nil, Errorf(ErrComm, "communicator constructors are not supported on an endpoints communicator")
	}
	view := c.internal
	if !ownTag {
		tag = view.collTag()
	}
	s := newSchedule(view, tag)
	build(s)
	if m == Blocking {
		s.req = getBlocking(reqColl)
		s.req.eng = c.eng
		s.start()
		if !s.req.Done() {
			c.eng.wait(s.req.Done)
		}
		st := s.req.status
		putBlocking(s.req)
		if st.Error != Success {
			return nil, Errorf(st.Error, "communicator creation failed")
		}
		return nil, nil
	}
	s.req = newRequest(reqColl)
	s.req.eng, s.req.comm, s.req.active, s.req.sched = c.eng, c, true, s
	s.start()
	return s.req, nil
}

// CommResult receives the communicator a creation makes (nil for MPI_COMM_NULL); an
// error fails the creation.
type CommResult func(*Comm) error

// Dup is MPI_Comm_dup, MPI_Comm_dup_with_info (info not nil) and MPI_Comm_idup.
// The new communicator reaches out once ready; attributes are copied by the caller.
func Dup(m CollMode, c *Comm, info *Info, withInfo bool, out CommResult) (*Request, error) {
	if !withInfo {
		c.mu.Lock()
		info = c.info
		c.mu.Unlock()
	}
	info = info.copyUnregistered()
	return runInternal(m, c, 0, false, func(s *schedule) {
		allocContextVCI(s, c, parseVCIHints(info), func(id uint32, p *vciPlan) error {
			nc := newComm(id, id, c.Rank, c.group, c.remote, p.base, info)
			p.apply(nc)
			copyTopo(c, nc) // a duplicate keeps the virtual topology
			return out(nc)
		})
	})
}

// Split is MPI_Comm_split: members with the same color form a communicator, ordered
// by key then by rank in c; MPI_UNDEFINED gets MPI_COMM_NULL.
func Split(c *Comm, color, key int, info *Info) (*Comm, error) {
	if c.IsInter() {
		return interSplit(c, color, key, info)
	}
	if color < 0 && color != Undefined {
		return nil, Errorf(ErrArg, "invalid color %d (must be non-negative or MPI_UNDEFINED)", color)
	}
	var result *Comm
	_, err := runInternal(Blocking, c, 0, false, func(s *schedule) {
		all := make([]int64, 2*c.Size)
		allgatherInts(s, c.internal, []int64{int64(color), int64(key)}, all)
		s.then(func() error {
			allocContextVCI(s, c, parseVCIHints(info), func(id uint32, p *vciPlan) error {
				if color == Undefined {
					disownPlan(p) // nothing to own here
					return nil
				}
				type member struct{ key, rank int }
				var ms []member
				for r := 0; r < c.Size; r++ {
					if int(all[2*r]) == color {
						ms = append(ms, member{int(all[2*r+1]), r})
					}
				}
				sort.SliceStable(ms, func(i, j int) bool { return ms[i].key < ms[j].key })
				ranks := make([]int, len(ms))
				me := 0
				for i, m := range ms {
					ranks[i] = c.group.ranks[m.rank]
					if m.rank == c.Rank {
						me = i
					}
				}
				result = newComm(id, id, me, NewGroup(ranks), nil, p.base, info.copyUnregistered())
				p.apply(result)
				return nil
			})
			return nil
		})
	})
	return result, err
}

// Create is MPI_Comm_create: the members of g (a subgroup of c's group, the same on
// every process) get a communicator, the others MPI_COMM_NULL.
func Create(c *Comm, g *Group) (*Comm, error) {
	if c.IsInter() {
		return interCreate(c, g)
	}
	for _, w := range g.ranks {
		if c.group.RankOfWorld(w) == Undefined {
			return nil, Errorf(ErrGroup, "the group has a process (world rank %d) that is not in the communicator", w)
		}
	}
	var result *Comm
	_, err := runInternal(Blocking, c, 0, false, func(s *schedule) {
		allocContextVCI(s, c, noHints, func(id uint32, p *vciPlan) error {
			if me := g.Rank(); me != Undefined {
				result = newComm(id, id, me, g, nil, p.base, nil)
				p.apply(result)
			}
			return nil
		})
	})
	return result, err
}

// CreateGroup is MPI_Comm_create_group: collective over g only, so the exchange runs
// on a temporary communicator of g's members on c's internal context, apart from
// other concurrent calls by its tag.
func CreateGroup(c *Comm, g *Group, tag int) (*Comm, error) {
	if c.IsInter() {
		return nil, Errorf(ErrComm, "MPI_Comm_create_group on an intercommunicator is not supported yet")
	}
	if tag < 0 || tag > TagUB {
		return nil, Errorf(ErrTag, "invalid tag %d", tag)
	}
	me := g.Rank()
	if me == Undefined {
		return nil, Errorf(ErrGroup, "the calling process is not in the group")
	}
	for _, w := range g.ranks {
		if c.group.RankOfWorld(w) == Undefined {
			return nil, Errorf(ErrGroup, "the group has a process (world rank %d) that is not in the communicator", w)
		}
	}
	return createOverGroup(c.internal.ContextID, g, me, tag, c.eng, nil)
}

// createOverGroup makes a communicator for g's members, bootstrapping the agreement
// on context ctx with the given tag; info (nil for none) becomes its hints.
func createOverGroup(ctx uint32, g *Group, me, tag int, eng *Engine, info *Info) (*Comm, error) {
	tmp := &Comm{ContextID: ctx}
	tmp.init(me, g, nil, eng)
	tmp.internal = tmp // the bootstrap exchanges run on ctx itself
	var result *Comm
	_, err := runInternal(Blocking, tmp, tag, true, func(s *schedule) {
		allocContextVCI(s, tmp, parseVCIHints(info), func(id uint32, p *vciPlan) error {
			result = newComm(id, id, me, g, nil, p.base, info.copyUnregistered())
			p.apply(result)
			return nil
		})
	})
	return result, err
}

// CreateFromGroup is MPI_Comm_create_from_group: no parent communicator, so the
// bootstrap uses MPI_COMM_WORLD's internal context (every process has it) with a tag
// derived from the string tag.
func CreateFromGroup(g *Group, stringTag string, info *Info) (*Comm, error) {
	me := g.Rank()
	if me == Undefined {
		return nil, Errorf(ErrGroup, "the calling process is not in the group")
	}
	h := fnv.New32a()
	h.Write([]byte(stringTag))
	tag := int(h.Sum32() & 0x3fffffff)
	return createOverGroup(CommWorld.internal.ContextID, g, me, tag, CommWorld.eng, info)
}

// IntercommCreate is MPI_Intercomm_create: each group agrees on its own context over
// local, the leaders swap contexts and member lists over peer (with the user's tag),
// and each leader tells its group.
func IntercommCreate(local *Comm, localLeader int, peer *Comm, remoteLeader, tag int) (*Comm, error) {
	if local.IsInter() {
		return nil, Errorf(ErrComm, "the local communicator of MPI_Intercomm_create must be an intracommunicator")
	}
	if localLeader < 0 || localLeader >= local.Size {
		return nil, Errorf(ErrRank, "invalid local leader %d in communicator of size %d", localLeader, local.Size)
	}
	isLeader := local.Rank == localLeader
	if isLeader {
		if peer == nil {
			return nil, Errorf(ErrComm, "the leader needs a peer communicator")
		}
		if err := peer.CheckRank(remoteLeader, false, false); err != nil {
			return nil, err
		}
	}
	if tag < 0 || tag > TagUB {
		return nil, Errorf(ErrTag, "invalid tag %d", tag)
	}
	var result *Comm
	finish := func(id uint32, remote []int64) error {
		result = finishIntercomm(local, id, remote)
		return nil
	}
	lv := local.internal
	_, err := runInternal(Blocking, local, 0, false, func(s *schedule) {
		allocContext(s, local, func(id uint32) error {
			mine := make([]int64, 0, 2+local.Size)
			mine = append(mine, int64(id), int64(local.Size))
			for _, w := range local.group.ranks {
				mine = append(mine, int64(w))
			}
			hdr := make([]int64, 2)
			if !isLeader {
				s.recvOn(lv, localLeader, hdr)
				s.then(func() error {
					remote := make([]int64, 2+hdr[1])
					s.recvOn(lv, localLeader, remote)
					s.then(func() error { return finish(id, remote) })
					return nil
				})
				return nil
			}
			pv := peer.internal
			s.sendTagged(pv, remoteLeader, tag, mine[:2])
			s.recvTagged(pv, remoteLeader, tag, hdr)
			s.then(func() error {
				remote := make([]int64, 2+hdr[1])
				s.sendTagged(pv, remoteLeader, tag, mine)
				s.recvTagged(pv, remoteLeader, tag, remote)
				s.then(func() error {
					for i := 0; i < local.Size; i++ {
						if i != localLeader {
							s.sendOn(lv, i, hdr)
						}
					}
					s.next()
					for i := 0; i < local.Size; i++ {
						if i != localLeader {
							s.sendOn(lv, i, remote)
						}
					}
					s.then(func() error { return finish(id, remote) })
					return nil
				})
				return nil
			})
			return nil
		})
	})
	return result, err
}

// finishIntercomm builds the intercommunicator from the agreed local context and the
// remote side's [context, size, world ranks...].
func finishIntercomm(local *Comm, id uint32, remote []int64) *Comm {
	ranks := make([]int, remote[1])
	for i := range ranks {
		ranks[i] = int(remote[2+i])
	}
	// The two groups agreed on their contexts separately, so they share no VCI but the
	// fallback.
	eng := local.eng
	if len(engines) > 0 {
		eng = engines[0]
	}
	return newComm(id, uint32(remote[0]), local.Rank, local.group, NewGroup(ranks), eng, nil)
}

// IntercommMerge is MPI_Intercomm_merge: the group that passed high=false comes first
// (when both pass the same, the group whose leader has the lower world rank).
func IntercommMerge(c *Comm, high bool) (*Comm, error) {
	if !c.IsInter() {
		return nil, Errorf(ErrComm, "MPI_Intercomm_merge needs an intercommunicator")
	}
	h := int64(0)
	if high {
		h = 1
	}
	var result *Comm
	_, err := runInternal(Blocking, c, 0, false, func(s *schedule) {
		// Learn the other group's flag: agree folds local values (all equal) then the
		// leaders swap; a max over [mine, theirs] is not enough, so exchange both.
		lc := c.localComm.internal
		mine := []int64{h}
		theirs := make([]int64, 1)
		if lc.Rank == 0 {
			s.sendOn(c.internal, 0, mine)
			s.recvOn(c.internal, 0, theirs)
			s.next()
		}
		bcastInts(s, lc, theirs)
		s.then(func() error {
			localFirst := h < theirs[0] || (h == theirs[0] && c.group.ranks[0] < c.remote.ranks[0])
			var ranks []int
			if localFirst {
				ranks = slices.Concat(c.group.ranks, c.remote.ranks)
			} else {
				ranks = slices.Concat(c.remote.ranks, c.group.ranks)
			}
			allocContextVCI(s, c, noHints, func(id uint32, p *vciPlan) error {
				g := NewGroup(ranks)
				result = newComm(id, id, g.Rank(), g, nil, p.base, nil)
				p.apply(result)
				return nil
			})
			return nil
		})
	})
	return result, err
}

// Free is MPI_Comm_free: the handle goes; operations in flight finish normally.
func (c *Comm) Free() error {
	if c == CommWorld || c == CommSelf {
		return Errorf(ErrComm, "predefined communicators cannot be freed")
	}
	c.mu.Lock()
	if c.freed {
		c.mu.Unlock()
		return Errorf(ErrComm, "communicator already freed")
	}
	c.freed = true
	c.mu.Unlock()
	unpublishComm(c)
	comms.Remove(c.Handle)
	c.closeArena()
	c.releaseVCIs()
	if e := c.errh.Swap(nil); e != nil {
		e.Release()
	}
	return nil
}

// Compare is MPI_Comm_compare.
func Compare(a, b *Comm) int {
	if a == b {
		return Ident
	}
	if a.IsInter() != b.IsInter() {
		return Unequal
	}
	r := a.group.Compare(b.group)
	if a.IsInter() {
		if rr := a.remote.Compare(b.remote); rr > r {
			r = rr
		}
	}
	if r == Ident {
		return Congruent
	}
	return r
}

// nodeColor is a non-negative number naming this process's node, equal on all
// processes of a node (MPI_COMM_TYPE_SHARED).
func nodeColor() int {
	if proc.peers == nil {
		return 0
	}
	return proc.peers[CommWorld.Rank].Node
}

// SplitType values (MPICH's).
const (
	CommTypeShared     = 1
	CommTypeHWGuided   = 2
	CommTypeHWUnguided = 3
)

// SplitType is MPI_Comm_split_type. MPI_COMM_TYPE_SHARED groups the processes of a
// node; MPI_COMM_TYPE_HW_GUIDED does the same for mpi_hw_resource_type
// "mpi_shared_memory" (the one resource every implementation must know) and gives
// MPI_COMM_NULL for resource types this library does not know;
// MPI_COMM_TYPE_HW_UNGUIDED splits at the first hardware level that divides c (see
// splitUnguided).
func SplitType(c *Comm, splitType, key int, info *Info) (*Comm, error) {
	color := Undefined
	switch splitType {
	case Undefined:
	case CommTypeHWUnguided:
		return splitUnguided(c, key, info)
	case CommTypeShared:
		color = nodeColor()
	case CommTypeHWGuided:
		v, ok := "", false
		if info != nil {
			v, ok, _ = info.Get("mpi_hw_resource_type")
		}
		if ok && v == "mpi_shared_memory" {
			color = nodeColor()
		}
	default:
		return nil, Errorf(ErrArg, "invalid split type %d", splitType)
	}
	return Split(c, color, key, info)
}

// splitUnguided is MPI_Comm_split_type with MPI_COMM_TYPE_HW_UNGUIDED: each new
// communicator is a strict subset of c, the processes that share a resource at the
// first level of the hierarchy (node, package, NUMA node, core, hardware thread) that
// divides c; its mpi_hw_resource_type info key names the level. When no level divides
// c (one process, or all on one node and unbound, as mpixexec starts them without
// -bind-to), every process gets MPI_COMM_NULL, as the standard says.
func splitUnguided(c *Comm, key int, info *Info) (*Comm, error) {
	if c.IsInter() {
		return nil, Errorf(ErrComm, "MPI_COMM_TYPE_HW_UNGUIDED needs an intracommunicator")
	}
	n := len(hwLevels)
	mine := hwLocation("/sys", nodeColor(), affinityCPUs())
	all := make([]int64, n*c.Size)
	if _, err := runInternal(Blocking, c, 0, false, func(s *schedule) {
		allgatherInts(s, c.internal, mine, all)
	}); err != nil {
		return nil, err
	}
	level := unguidedLevel(all, c.Size, n)
	color := Undefined
	if level >= 0 { // the color: the lowest rank that shares this resource
		for r := 0; r < c.Size; r++ {
			if all[r*n+level] == mine[level] {
				color = r
				break
			}
		}
	}
	nc, err := Split(c, color, key, info)
	if err != nil || nc == nil {
		return nc, err
	}
	in := nc.Info()
	in.Set("mpi_hw_resource_type", hwLevels[level])
	nc.SetInfo(in)
	in.Free()
	return nc, nil
}
