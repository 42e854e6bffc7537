package main

/*
#include "capi.h"
*/
import "C"

import (
	"unsafe"

	"mpix/core"
)

func impl_MPI_Info_create(ctx *C.mpix_ctx, info *C.MPI_Info) error {
	*info = C.MPI_Info(core.NewInfo().Handle)
	return nil
}

func impl_MPI_Info_create_env(ctx *C.mpix_ctx, argc C.int, argv **C.char, info *C.MPI_Info) error {
	var args []string
	if argv != nil && argc > 0 {
		for _, a := range unsafe.Slice(argv, int(argc)) {
			if a != nil {
				args = append(args, C.GoString(a))
			}
		}
	}
	*info = C.MPI_Info(core.NewEnvInfo(args).Handle)
	return nil
}

func impl_MPI_Info_set(ctx *C.mpix_ctx, info *core.Info, key *C.char, value *C.char) error {
	return info.Set(C.GoString(key), C.GoString(value))
}

func impl_MPI_Info_delete(ctx *C.mpix_ctx, info *core.Info, key *C.char) error {
	return info.Delete(C.GoString(key))
}

// MPI_Info_get_string (MPI-4): buflen is the buffer size on input and the value's
// length plus one on output; the value is truncated to fit.
func impl_MPI_Info_get_string(ctx *C.mpix_ctx, info *core.Info, key *C.char, buflen *C.int, value *C.char, flag *C.int) error {
	v, ok, err := info.Get(C.GoString(key))
	if err != nil {
		return err
	}
	setFlag(flag, ok)
	if !ok {
		return nil
	}
	if *buflen > 0 {
		if value == nil {
			return core.Errorf(core.ErrArg, "value must not be NULL when buflen > 0")
		}
		putString(value, int(*buflen), v)
	}
	*buflen = C.int(len(v) + 1)
	return nil
}

// MPI_Info_get (deprecated in MPI-4): value must hold valuelen+1 characters.
func impl_MPI_Info_get(ctx *C.mpix_ctx, info *core.Info, key *C.char, valuelen C.int, value *C.char, flag *C.int) error {
	if valuelen < 0 {
		return core.Errorf(core.ErrArg, "valuelen must not be negative (%d)", int(valuelen))
	}
	v, ok, err := info.Get(C.GoString(key))
	if err != nil {
		return err
	}
	setFlag(flag, ok)
	if ok {
		if value == nil {
			return core.Errorf(core.ErrArg, "value must not be NULL")
		}
		putString(value, int(valuelen)+1, v)
	}
	return nil
}

func impl_MPI_Info_get_valuelen(ctx *C.mpix_ctx, info *core.Info, key *C.char, valuelen *C.int, flag *C.int) error {
	v, ok, err := info.Get(C.GoString(key))
	if err != nil {
		return err
	}
	setFlag(flag, ok)
	if ok {
		*valuelen = C.int(len(v))
	}
	return nil
}

func impl_MPI_Info_get_nkeys(ctx *C.mpix_ctx, info *core.Info, nkeys *C.int) error {
	*nkeys = C.int(info.NKeys())
	return nil
}

func impl_MPI_Info_get_nthkey(ctx *C.mpix_ctx, info *core.Info, n C.int, key *C.char) error {
	k, err := info.NthKey(int(n))
	if err != nil {
		return err
	}
	putString(key, C.MPI_MAX_INFO_KEY+1, k)
	return nil
}

func impl_MPI_Info_dup(ctx *C.mpix_ctx, info *core.Info, newinfo *C.MPI_Info) error {
	*newinfo = C.MPI_Info(info.Dup().Handle)
	return nil
}

func impl_MPI_Info_free(ctx *C.mpix_ctx, info *C.MPI_Info) error {
	in, err := core.LookupInfo(int32(*info))
	if err != nil {
		return err
	}
	if err := in.Free(); err != nil {
		return err
	}
	*info = C.MPI_INFO_NULL
	return nil
}
