package core

import (
	"hash/fnv"
	"sort"
)

// Communicator constructors on intercommunicators (MPI-4.1 §7.4.2) and
// MPI_Intercomm_create_from_groups (§7.6.2). Each group learns what it needs of its
// own members over the local intracommunicator, the two leaders (local rank 0) swap
// their groups' answers over the intercommunicator, and each leader tells its group;
// then both groups agree on one context id (allocContext over the intercommunicator)
// and every process builds its side of the new intercommunicator.

// exchangeGroups adds stages after which theirs (at every process) holds what the
// other group's leader sent as its group's mine; mine must be the same at every member
// of a group, and theirs must be long enough for the other group's.
func exchangeGroups(s *schedule, c *Comm, mine, theirs []int64) {
	if c.localComm.Rank == 0 {
		s.sendOn(c.internal, 0, mine)
		s.recvOn(c.internal, 0, theirs)
		s.next()
	}
	bcastInts(s, c.localComm.internal, theirs)
}

// interCreate is MPI_Comm_create on an intercommunicator: each group passes a subgroup
// of its own group, and the processes in those subgroups get an intercommunicator
// between them. If either subgroup is empty, or the caller is not in its group's,
// the result is MPI_COMM_NULL.
func interCreate(c *Comm, g *Group) (*Comm, error) {
	for _, w := range g.ranks {
		if c.group.RankOfWorld(w) == Undefined {
			return nil, Errorf(ErrGroup, "the group has a process (world rank %d) that is not in the intercommunicator's local group", w)
		}
	}
	me := g.RankOfWorld(c.group.ranks[c.Rank])
	var result *Comm
	_, err := runInternal(Blocking, c, 0, false, func(s *schedule) {
		// [size, world ranks...] of each group's subgroup.
		mine := make([]int64, 0, 1+g.Size())
		mine = append(mine, int64(g.Size()))
		for _, w := range g.ranks {
			mine = append(mine, int64(w))
		}
		theirs := make([]int64, 1+c.RemoteSize())
		exchangeGroups(s, c, mine, theirs)
		s.then(func() error {
			allocContext(s, c, func(id uint32) error {
				if me == Undefined || g.Size() == 0 || theirs[0] == 0 {
					return nil
				}
				remote := make([]int, theirs[0])
				for i := range remote {
					remote[i] = int(theirs[1+i])
				}
				result = newComm(id, id, me, g, NewGroup(remote), c.eng, nil)
				return nil
			})
			return nil
		})
	})
	return result, err
}

// interSplit is MPI_Comm_split on an intercommunicator: the processes of each group
// with one color, ordered by key then rank, get an intercommunicator with those of the
// other group with the same color. MPI_UNDEFINED, or a color the other group does not
// use, gets MPI_COMM_NULL.
func interSplit(c *Comm, color, key int, info *Info) (*Comm, error) {
	if color < 0 && color != Undefined {
		return nil, Errorf(ErrArg, "invalid color %d (must be non-negative or MPI_UNDEFINED)", color)
	}
	var result *Comm
	_, err := runInternal(Blocking, c, 0, false, func(s *schedule) {
		n, m := c.Size, c.RemoteSize()
		mine := make([]int64, 2*n)
		allgatherInts(s, c.localComm.internal, []int64{int64(color), int64(key)}, mine)
		theirs := make([]int64, 2*m)
		exchangeGroups(s, c, mine, theirs)
		s.then(func() error {
			allocContext(s, c, func(id uint32) error {
				if color == Undefined {
					return nil
				}
				local := colored(mine, c.group, color)
				remote := colored(theirs, c.remote, color)
				if len(remote) == 0 {
					return nil
				}
				lg := NewGroup(local)
				result = newComm(id, id, lg.RankOfWorld(c.group.ranks[c.Rank]), lg, NewGroup(remote), c.eng, info.copyUnregistered())
				return nil
			})
			return nil
		})
	})
	return result, err
}

// colored lists, as world ranks ordered by key then rank, the members of g whose
// [color, key] pair in table (one per rank of g) has the given color.
func colored(table []int64, g *Group, color int) []int {
	type member struct{ key, rank int }
	var ms []member
	for r := 0; r < g.Size(); r++ {
		if int(table[2*r]) == color {
			ms = append(ms, member{int(table[2*r+1]), r})
		}
	}
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].key < ms[j].key })
	out := make([]int, len(ms))
	for i, m := range ms {
		out[i] = g.ranks[m.rank]
	}
	return out
}

// IntercommCreateFromGroups is MPI_Intercomm_create_from_groups. With no parent
// communicator, every exchange runs on MPI_COMM_WORLD's internal context (which every
// process has) with a tag derived from the string tag: each group agrees on its own
// context over its members, then the leaders swap [context, size, world ranks...] as
// MPI_Intercomm_create's do and tell their groups. remote and remoteLeader matter only
// at the local leader.
func IntercommCreateFromGroups(local *Group, localLeader int, remote *Group, remoteLeader int, stringTag string, info *Info) (*Comm, error) {
	me := local.Rank()
	if me == Undefined {
		return nil, Errorf(ErrGroup, "the calling process is not in the local group")
	}
	if localLeader < 0 || localLeader >= local.Size() {
		return nil, Errorf(ErrRank, "invalid local leader %d in a group of size %d", localLeader, local.Size())
	}
	isLeader := me == localLeader
	if isLeader {
		if remote == nil {
			return nil, Errorf(ErrGroup, "the local leader needs the remote group")
		}
		if remoteLeader < 0 || remoteLeader >= remote.Size() {
			return nil, Errorf(ErrRank, "invalid remote leader %d in a group of size %d", remoteLeader, remote.Size())
		}
		for _, w := range remote.ranks {
			if local.RankOfWorld(w) != Undefined {
				return nil, Errorf(ErrGroup, "the local and remote groups share a process (world rank %d)", w)
			}
		}
	}
	h := fnv.New32a()
	h.Write([]byte("intercomm\x00" + stringTag))
	tag := int(h.Sum32() & 0x3fffffff)
	eng := CommWorld.eng
	ctx := CommWorld.internal.ContextID
	lv := &Comm{ContextID: ctx}
	lv.init(me, local, nil, eng)
	lv.internal = lv // the bootstrap exchanges run on ctx itself
	var result *Comm
	_, err := runInternal(Blocking, lv, tag, true, func(s *schedule) {
		allocContext(s, lv, func(id uint32) error {
			finish := func(remote []int64) error {
				result = finishIntercomm(lv, id, remote)
				result.info = info.copyUnregistered()
				return nil
			}
			hdr := make([]int64, 2)
			if !isLeader {
				s.recvOn(lv, localLeader, hdr)
				s.then(func() error {
					theirs := make([]int64, 2+hdr[1])
					s.recvOn(lv, localLeader, theirs)
					s.then(func() error { return finish(theirs) })
					return nil
				})
				return nil
			}
			mine := make([]int64, 0, 2+local.Size())
			mine = append(mine, int64(id), int64(local.Size()))
			for _, w := range local.ranks {
				mine = append(mine, int64(w))
			}
			// A view whose peers are the remote group's, on the same context and tag.
			pv := &Comm{ContextID: ctx}
			pv.init(me, local, remote, eng)
			s.sendOn(pv, remoteLeader, mine[:2])
			s.recvOn(pv, remoteLeader, hdr)
			s.then(func() error {
				theirs := make([]int64, 2+hdr[1])
				s.sendOn(pv, remoteLeader, mine)
				s.recvOn(pv, remoteLeader, theirs)
				s.then(func() error {
					for i := 0; i < local.Size(); i++ {
						if i != localLeader {
							s.sendOn(lv, i, hdr)
						}
					}
					s.next()
					for i := 0; i < local.Size(); i++ {
						if i != localLeader {
							s.sendOn(lv, i, theirs)
						}
					}
					s.then(func() error { return finish(theirs) })
					return nil
				})
				return nil
			})
			return nil
		})
	})
	return result, err
}
