// Intercommunicator entry points, and the arrays of intercommunicator collectives
// whose length is the local group's size.

package main

/*
#include "capi.h"
*/
import "C"

import (
	"mpix/core"
)

func impl_MPI_Intercomm_create_from_groups(ctx *C.mpix_ctx, local_group *core.Group, local_leader C.int, remote_group C.MPI_Group, remote_leader C.int, stringtag *C.char, info *core.Info, errhandler *core.Errhandler, newintercomm *C.MPI_Comm) error {
	if stringtag == nil {
		return core.Errorf(core.ErrArg, "stringtag must not be NULL")
	}
	// The remote group matters only at the local leader; elsewhere it may be anything,
	// MPI_GROUP_NULL included.
	var remote *core.Group
	if local_group.Rank() == int(local_leader) {
		var err error
		if remote, err = core.LookupGroup(int32(remote_group)); err != nil {
			return err
		}
	}
	c, err := core.IntercommCreateFromGroups(local_group, int(local_leader), remote, int(remote_leader), C.GoString(stringtag), info)
	if err != nil {
		return err
	}
	if errhandler != nil {
		if err := c.SetErrhandler(errhandler); err != nil {
			return err
		}
	}
	putComm(newintercomm, c)
	return nil
}
