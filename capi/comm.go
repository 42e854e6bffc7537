package main

/*
#include "capi.h"
*/
import "C"

import (
	"unsafe"

	"mpix/core"
)

// ---- groups ----

func cInts(p *C.int, n C.int) []int {
	if n <= 0 || p == nil {
		return nil
	}
	out := make([]int, n)
	for i, v := range unsafe.Slice(p, int(n)) {
		out[i] = int(v)
	}
	return out
}

func putGroup(out *C.MPI_Group, g *core.Group) { *out = C.MPI_Group(g.Register().Handle) }

func impl_MPI_Group_size(ctx *C.mpix_ctx, group *core.Group, size *C.int) error {
	*size = C.int(group.Size())
	return nil
}

func impl_MPI_Group_rank(ctx *C.mpix_ctx, group *core.Group, rank *C.int) error {
	*rank = C.int(group.Rank())
	return nil
}

func impl_MPI_Group_translate_ranks(ctx *C.mpix_ctx, group1 *core.Group, n C.int, ranks1 *C.int, group2 *core.Group, ranks2 *C.int) error {
	if n > 0 && (ranks1 == nil || ranks2 == nil) {
		return core.Errorf(core.ErrArg, "rank arrays must not be NULL")
	}
	out, err := group1.TranslateRanks(cInts(ranks1, n), group2)
	if err != nil {
		return err
	}
	if n > 0 {
		dst := unsafe.Slice(ranks2, int(n))
		for i, r := range out {
			dst[i] = C.int(r)
		}
	}
	return nil
}

func impl_MPI_Group_compare(ctx *C.mpix_ctx, group1 *core.Group, group2 *core.Group, result *C.int) error {
	*result = C.int(group1.Compare(group2))
	return nil
}

func impl_MPI_Comm_group(ctx *C.mpix_ctx, comm *core.Comm, group *C.MPI_Group) error {
	if err := notOnThreadcomm(comm, "MPI_Comm_group"); err != nil {
		return err
	}
	putGroup(group, comm.Group())
	return nil
}

func impl_MPI_Comm_remote_group(ctx *C.mpix_ctx, comm *core.Comm, group *C.MPI_Group) error {
	if !comm.IsInter() {
		return core.Errorf(core.ErrComm, "MPI_Comm_remote_group needs an intercommunicator")
	}
	putGroup(group, comm.RemoteGroup())
	return nil
}

func impl_MPI_Group_union(ctx *C.mpix_ctx, group1 *core.Group, group2 *core.Group, newgroup *C.MPI_Group) error {
	putGroup(newgroup, group1.Union(group2))
	return nil
}

func impl_MPI_Group_intersection(ctx *C.mpix_ctx, group1 *core.Group, group2 *core.Group, newgroup *C.MPI_Group) error {
	putGroup(newgroup, group1.Intersection(group2))
	return nil
}

func impl_MPI_Group_difference(ctx *C.mpix_ctx, group1 *core.Group, group2 *core.Group, newgroup *C.MPI_Group) error {
	putGroup(newgroup, group1.Difference(group2))
	return nil
}

func impl_MPI_Group_incl(ctx *C.mpix_ctx, group *core.Group, n C.int, ranks *C.int, newgroup *C.MPI_Group) error {
	if n < 0 || n > C.int(group.Size()) {
		return core.Errorf(core.ErrArg, "invalid number of ranks %d for a group of size %d", int(n), group.Size())
	}
	g, err := group.Incl(cInts(ranks, n))
	if err != nil {
		return err
	}
	putGroup(newgroup, g)
	return nil
}

func impl_MPI_Group_excl(ctx *C.mpix_ctx, group *core.Group, n C.int, ranks *C.int, newgroup *C.MPI_Group) error {
	if n < 0 || n > C.int(group.Size()) {
		return core.Errorf(core.ErrArg, "invalid number of ranks %d for a group of size %d", int(n), group.Size())
	}
	g, err := group.Excl(cInts(ranks, n))
	if err != nil {
		return err
	}
	putGroup(newgroup, g)
	return nil
}

func cRanges(n C.int, ranges unsafe.Pointer) ([][3]int, error) {
	if n < 0 {
		return nil, core.Errorf(core.ErrArg, "invalid number of ranges %d", int(n))
	}
	if n > 0 && ranges == nil {
		return nil, core.Errorf(core.ErrArg, "ranges must not be NULL")
	}
	flat := cInts((*C.int)(ranges), 3*n)
	out := make([][3]int, n)
	for i := range out {
		out[i] = [3]int{flat[3*i], flat[3*i+1], flat[3*i+2]}
	}
	return out, nil
}

func impl_MPI_Group_range_incl(ctx *C.mpix_ctx, group *core.Group, n C.int, ranges unsafe.Pointer, newgroup *C.MPI_Group) error {
	rs, err := cRanges(n, ranges)
	if err != nil {
		return err
	}
	g, err := group.RangeIncl(rs)
	if err != nil {
		return err
	}
	putGroup(newgroup, g)
	return nil
}

func impl_MPI_Group_range_excl(ctx *C.mpix_ctx, group *core.Group, n C.int, ranges unsafe.Pointer, newgroup *C.MPI_Group) error {
	rs, err := cRanges(n, ranges)
	if err != nil {
		return err
	}
	g, err := group.RangeExcl(rs)
	if err != nil {
		return err
	}
	putGroup(newgroup, g)
	return nil
}

func impl_MPI_Group_free(ctx *C.mpix_ctx, group *C.MPI_Group) error {
	g, err := core.LookupGroup(int32(*group))
	if err != nil {
		return err
	}
	if err := g.Free(); err != nil {
		return err
	}
	*group = C.MPI_Group(core.NullHandle(core.KindGroup))
	return nil
}

// ---- communicators ----

// putComm stores a new communicator's handle, MPI_COMM_NULL for nil.
func putComm(out *C.MPI_Comm, c *core.Comm) {
	if c == nil {
		*out = C.MPI_Comm(core.NullHandle(core.KindComm))
		return
	}
	*out = C.MPI_Comm(c.Handle)
}

// derived finishes a communicator made from parent: it inherits the parent's error
// handler (MPI-4.1 §7.4), and a duplicate also gets the parent's attributes.
func derived(parent, c *core.Comm, dup bool) error {
	if c == nil {
		return nil
	}
	if err := c.SetErrhandler(parent.Errhandler()); err != nil {
		return err
	}
	if dup {
		return copyCommAttrs(parent, c)
	}
	return nil
}

func dupComm(comm *core.Comm, info *core.Info, withInfo bool, newcomm *C.MPI_Comm, request *C.MPI_Request) error {
	if comm.IsThreadcomm() {
		return dupThreadcomm(comm, newcomm, request)
	}
	mode := core.Blocking
	if request != nil {
		mode = core.Nonblocking
	}
	// A failing attribute copy callback fails the duplication: the new communicator
	// goes, the caller gets MPI_COMM_NULL and the callback's code (for MPI_Comm_idup,
	// the request completes in error).
	var attrErr error
	r, err := core.Dup(mode, comm, info, withInfo, func(c *core.Comm) error {
		if attrErr = derived(comm, c, true); attrErr != nil {
			c.Free()
			putComm(newcomm, nil)
			return attrErr
		}
		putComm(newcomm, c)
		return nil
	})
	if attrErr != nil {
		return attrErr
	}
	if err != nil {
		return err
	}
	if request != nil {
		*request = C.MPI_Request(r.Handle)
		return nil
	}
	return attrErr
}

func impl_MPI_Comm_dup(ctx *C.mpix_ctx, comm *core.Comm, newcomm *C.MPI_Comm) error {
	return dupComm(comm, nil, false, newcomm, nil)
}

func impl_MPI_Comm_dup_with_info(ctx *C.mpix_ctx, comm *core.Comm, info *core.Info, newcomm *C.MPI_Comm) error {
	return dupComm(comm, info, true, newcomm, nil)
}

func impl_MPI_Comm_idup(ctx *C.mpix_ctx, comm *core.Comm, newcomm *C.MPI_Comm, request *C.MPI_Request) error {
	return dupComm(comm, nil, false, newcomm, request)
}

func impl_MPI_Comm_idup_with_info(ctx *C.mpix_ctx, comm *core.Comm, info *core.Info, newcomm *C.MPI_Comm, request *C.MPI_Request) error {
	return dupComm(comm, info, true, newcomm, request)
}

func made(parent *core.Comm, c *core.Comm, err error, newcomm *C.MPI_Comm) error {
	if err != nil {
		return err
	}
	if err := derived(parent, c, false); err != nil {
		return err
	}
	putComm(newcomm, c)
	return nil
}

func impl_MPI_Comm_split(ctx *C.mpix_ctx, comm *core.Comm, color C.int, key C.int, newcomm *C.MPI_Comm) error {
	if err := notOnThreadcomm(comm, "MPI_Comm_split"); err != nil {
		return err
	}
	c, err := core.Split(comm, int(color), int(key), nil)
	return made(comm, c, err, newcomm)
}

func impl_MPI_Comm_split_type(ctx *C.mpix_ctx, comm *core.Comm, split_type C.int, key C.int, info *core.Info, newcomm *C.MPI_Comm) error {
	if err := notOnThreadcomm(comm, "MPI_Comm_split_type"); err != nil {
		return err
	}
	c, err := core.SplitType(comm, int(split_type), int(key), info)
	return made(comm, c, err, newcomm)
}

func impl_MPI_Comm_create(ctx *C.mpix_ctx, comm *core.Comm, group *core.Group, newcomm *C.MPI_Comm) error {
	if err := notOnThreadcomm(comm, "MPI_Comm_create"); err != nil {
		return err
	}
	c, err := core.Create(comm, group)
	return made(comm, c, err, newcomm)
}

func impl_MPI_Comm_create_group(ctx *C.mpix_ctx, comm *core.Comm, group *core.Group, tag C.int, newcomm *C.MPI_Comm) error {
	if err := notOnThreadcomm(comm, "MPI_Comm_create_group"); err != nil {
		return err
	}
	c, err := core.CreateGroup(comm, group, int(tag))
	return made(comm, c, err, newcomm)
}

func impl_MPI_Intercomm_create(ctx *C.mpix_ctx, local_comm *core.Comm, local_leader C.int, peer_comm C.MPI_Comm, remote_leader C.int, tag C.int, newintercomm *C.MPI_Comm) error {
	if err := notOnThreadcomm(local_comm, "MPI_Intercomm_create"); err != nil {
		return err
	}
	// The peer communicator matters only at the local leader; elsewhere it may be
	// anything, MPI_COMM_NULL included.
	var peer *core.Comm
	if local_comm.Rank == int(local_leader) {
		var err error
		if peer, err = core.LookupComm(int32(peer_comm)); err != nil {
			return err
		}
	}
	c, err := core.IntercommCreate(local_comm, int(local_leader), peer, int(remote_leader), int(tag))
	return made(local_comm, c, err, newintercomm)
}

func impl_MPI_Intercomm_merge(ctx *C.mpix_ctx, intercomm *core.Comm, high C.int, newintracomm *C.MPI_Comm) error {
	c, err := core.IntercommMerge(intercomm, high != 0)
	return made(intercomm, c, err, newintracomm)
}

func impl_MPI_Comm_free(ctx *C.mpix_ctx, comm *C.MPI_Comm) error {
	c, err := lookupComm(ctx, int32(*comm))
	if err != nil {
		return err
	}
	if c.IsThreadcomm() {
		return freeThreadcommView(c, comm)
	}
	if err := deleteCommAttrs(c); err != nil {
		return err
	}
	if err := c.Free(); err != nil {
		return err
	}
	*comm = C.MPI_Comm(core.NullHandle(core.KindComm))
	return nil
}

func impl_MPI_Comm_disconnect(ctx *C.mpix_ctx, comm *C.MPI_Comm) error {
	// Nothing of a communicator is pending once its requests are complete, which MPI
	// requires of the user before disconnecting; so it is a free.
	return impl_MPI_Comm_free(ctx, comm)
}

func impl_MPI_Comm_compare(ctx *C.mpix_ctx, comm1 *core.Comm, comm2 *core.Comm, result *C.int) error {
	*result = C.int(core.Compare(comm1, comm2))
	return nil
}

func impl_MPI_Comm_test_inter(ctx *C.mpix_ctx, comm *core.Comm, flag *C.int) error {
	setFlag(flag, comm.IsInter())
	return nil
}

func impl_MPI_Comm_remote_size(ctx *C.mpix_ctx, comm *core.Comm, size *C.int) error {
	if !comm.IsInter() {
		return core.Errorf(core.ErrComm, "MPI_Comm_remote_size needs an intercommunicator")
	}
	*size = C.int(comm.RemoteSize())
	return nil
}

func impl_MPI_Comm_set_info(ctx *C.mpix_ctx, comm *core.Comm, info *core.Info) error {
	if info == nil {
		return core.Errorf(core.ErrInfo, "MPI_INFO_NULL is not a valid info object here")
	}
	comm.SetInfo(info)
	return nil
}

func impl_MPI_Comm_get_info(ctx *C.mpix_ctx, comm *core.Comm, info_used *C.MPI_Info) error {
	*info_used = C.MPI_Info(comm.Info().Handle)
	return nil
}

func impl_MPI_Comm_create_from_group(ctx *C.mpix_ctx, group *core.Group, stringtag *C.char, info *core.Info, errhandler *core.Errhandler, newcomm *C.MPI_Comm) error {
	if stringtag == nil {
		return core.Errorf(core.ErrArg, "stringtag must not be NULL")
	}
	c, err := core.CreateFromGroup(group, C.GoString(stringtag), info)
	if err != nil {
		return err
	}
	if errhandler != nil {
		if err := c.SetErrhandler(errhandler); err != nil {
			return err
		}
	}
	putComm(newcomm, c)
	return nil
}

// ---- process management (MPI-4.1 chapter 11) ----

// impl_MPI_Comm_get_parent: mpix never spawns processes, so no process has a parent
// and the answer is MPI_COMM_NULL (MPI-4.1 §11.8.2: "If a process was not spawned
// by MPI_COMM_SPAWN..., MPI_COMM_GET_PARENT returns MPI_COMM_NULL"). Programs call it
// to ask "was I spawned?".
func impl_MPI_Comm_get_parent(ctx *C.mpix_ctx, parent *C.MPI_Comm) error {
	putComm(parent, nil)
	return nil
}

// errSpawn is the answer of MPI_Comm_spawn and MPI_Comm_spawn_multiple: the launcher
// starts every process of a job at once, and there is no dynamic process management.
func errSpawn(fn string) error {
	return core.Errorf(core.ErrSpawn, "%s: mpix does not support dynamic process management; start every process with mpixexec -n", fn)
}

// spawnFailed reports the failure the way the standard says a spawn reports one: the
// new intercommunicator is MPI_COMM_NULL and, at the root, each of the n requested
// processes' error code is MPI_ERR_SPAWN (array_of_errcodes may be
// MPI_ERRCODES_IGNORE, NULL).
func spawnFailed(comm *core.Comm, root C.int, n int, intercomm *C.MPI_Comm, errcodes *C.int) {
	putComm(intercomm, nil)
	if errcodes != nil && n > 0 && comm.Rank == int(root) {
		for i, codes := 0, unsafeInts(errcodes, n); i < n; i++ {
			codes[i] = C.int(core.ErrSpawn)
		}
	}
}

func unsafeInts(p *C.int, n int) []C.int { return unsafe.Slice(p, n) }

func impl_MPI_Comm_spawn(ctx *C.mpix_ctx, command *C.char, argv **C.char, maxprocs C.int, info *core.Info, root C.int, comm *core.Comm, intercomm *C.MPI_Comm, array_of_errcodes *C.int) error {
	if intercomm == nil {
		return core.Errorf(core.ErrArg, "intercomm must not be NULL")
	}
	spawnFailed(comm, root, int(maxprocs), intercomm, array_of_errcodes)
	return errSpawn("MPI_Comm_spawn")
}

func impl_MPI_Comm_spawn_multiple(ctx *C.mpix_ctx, count C.int, array_of_commands **C.char, array_of_argv ***C.char, array_of_maxprocs *C.int, array_of_info *C.MPI_Info, root C.int, comm *core.Comm, intercomm *C.MPI_Comm, array_of_errcodes *C.int) error {
	if intercomm == nil {
		return core.Errorf(core.ErrArg, "intercomm must not be NULL")
	}
	n := 0
	if comm.Rank == int(root) && count > 0 && array_of_maxprocs != nil {
		for _, m := range unsafeInts(array_of_maxprocs, int(count)) {
			if m > 0 {
				n += int(m)
			}
		}
	}
	spawnFailed(comm, root, n, intercomm, array_of_errcodes)
	return errSpawn("MPI_Comm_spawn_multiple")
}
