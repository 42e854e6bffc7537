package main

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"mpix/core"
)

// panicking is an exported procedure whose implementation panics.
func panicking() (rc cInt) {
	defer recoverCall(fnMPI_Comm_rank, &rc)
	var m map[string]int
	m["boom"] = 1 // a nil-map write: a runtime panic, as a bug in an implementation would be
	return 0
}

// A Go panic never reaches C: it becomes MPI_ERR_INTERN with its message, delivered
// through the error handler (here MPI_ERRORS_RETURN on MPI_COMM_WORLD).
func TestPanicBecomesInternalError(t *testing.T) {
	for _, k := range []string{"PMI_FD", "PMI_PORT", "PMI_RANK", "PMI_SIZE"} {
		os.Unsetenv(k)
	}
	_, err := core.Init(core.ThreadMultiple, 1)
	require.NoError(t, err)
	defer core.Finalize()
	require.NoError(t, core.CommWorld.SetErrhandler(core.ErrhReturn))

	rc := panicking()
	class, err := core.ErrorClass(int(rc))
	require.NoError(t, err)
	require.Equal(t, core.ErrIntern, class)
	msg, err := core.ErrorString(int(rc))
	require.NoError(t, err)
	require.Contains(t, msg, "assignment to entry in nil map")

	// Unimplemented procedures name themselves.
	rc = mpixgo_MPI_Close_port(nil, nil)
	class, _ = core.ErrorClass(int(rc))
	require.Equal(t, core.ErrUnsupportedOp, class)
	msg, _ = core.ErrorString(int(rc))
	require.Equal(t, "mpix: MPI_Close_port is not implemented yet", msg)
}

// core's error classes and predefined handles must equal include/mpi.h's values.
func TestCoreConstantsMatchHeader(t *testing.T) {
	raw, err := os.ReadFile("../include/mpi.h")
	require.NoError(t, err)
	defs := map[string]int64{}
	re := regexp.MustCompile(`(?m)^#define\s+(MPI_\w+)\s+\(?(?:\(\w+\))?\s*(-?0x[0-9a-fA-F]+|-?\d+)\)?\s*(?:/\*.*\*/)?\s*$`)
	for _, m := range re.FindAllStringSubmatch(string(raw), -1) {
		v, err := strconv.ParseInt(strings.TrimPrefix(m[2], "+"), 0, 64)
		require.NoError(t, err, m[0])
		defs[m[1]] = v
	}
	want := map[string]int64{
		"MPI_SUCCESS": core.Success, "MPI_ERR_BUFFER": core.ErrBuffer, "MPI_ERR_COUNT": core.ErrCount,
		"MPI_ERR_TYPE": core.ErrType, "MPI_ERR_TAG": core.ErrTag, "MPI_ERR_COMM": core.ErrComm,
		"MPI_ERR_RANK": core.ErrRank, "MPI_ERR_ROOT": core.ErrRoot, "MPI_ERR_GROUP": core.ErrGroup,
		"MPI_ERR_OP": core.ErrOp, "MPI_ERR_ARG": core.ErrArg, "MPI_ERR_TRUNCATE": core.ErrTruncate,
		"MPI_ERR_OTHER": core.ErrOther, "MPI_ERR_INTERN": core.ErrIntern, "MPI_ERR_IN_STATUS": core.ErrInStatus,
		"MPI_ERR_REQUEST": core.ErrRequest, "MPI_ERR_INFO": core.ErrInfo, "MPI_ERR_INFO_KEY": core.ErrInfoKey,
		"MPI_ERR_INFO_VALUE": core.ErrInfoValue, "MPI_ERR_INFO_NOKEY": core.ErrInfoNokey,
		"MPI_ERR_NO_MEM": core.ErrNoMem, "MPI_ERR_UNSUPPORTED_OPERATION": core.ErrUnsupportedOp,
		"MPI_ERR_WIN": core.ErrWin, "MPI_ERR_KEYVAL": core.ErrKeyval, "MPI_ERR_RMA_FLAVOR": core.ErrRMAFlavor,
		"MPI_T_ERR_MEMORY": core.ErrTFirst, "MPI_ERR_SESSION": core.ErrSession,
		"MPI_ERR_PROC_ABORTED": core.ErrProcAborted, "MPI_ERR_VALUE_TOO_LARGE": core.ErrValueTooLarge,
		"MPI_T_ERR_NOT_SUPPORTED": core.ErrTNotSupported, "MPI_T_ERR_NOT_ACCESSIBLE": core.ErrTNotAccessible,
		"MPI_ERR_ERRHANDLER": core.ErrErrhandler, "MPI_ERR_LASTCODE": core.ErrLastCode,
		"MPI_COMM_WORLD": int64(core.CommWorld.Handle), "MPI_COMM_SELF": int64(core.CommSelf.Handle),
		"MPI_COMM_NULL": int64(core.NullHandle(core.KindComm)), "MPI_INFO_NULL": int64(core.NullHandle(core.KindInfo)),
		"MPI_ERRHANDLER_NULL":  int64(core.NullHandle(core.KindErrhandler)),
		"MPI_ERRORS_ARE_FATAL": int64(core.ErrhFatal.Handle), "MPI_ERRORS_RETURN": int64(core.ErrhReturn.Handle),
		"MPI_ERRORS_ABORT": int64(core.ErrhAbort.Handle), "MPI_INFO_ENV": int64(core.BuiltinHandle(core.KindInfo, 1)),
		"MPI_ANY_SOURCE": core.AnySource, "MPI_PROC_NULL": core.ProcNull, "MPI_ROOT": core.Root, "MPI_ANY_TAG": core.AnyTag,
		"MPI_THREAD_SINGLE": core.ThreadSingle, "MPI_THREAD_MULTIPLE": core.ThreadMultiple,
		"MPI_MAX_INFO_KEY": core.MaxInfoKey, "MPI_MAX_INFO_VAL": core.MaxInfoVal,
	}
	for name, v := range want {
		got, ok := defs[name]
		require.True(t, ok, "%s not found as a #define in mpi.h", name)
		require.Equal(t, uint32(v), uint32(got), "%s", name)
	}
}

// Every layout C's fast paths share with Go agrees (vci.h, shm/fastabi.h with core's
// types, threadcomm's request handles): otherwise the library starts without them.
func TestFastLayoutsAgree(t *testing.T) {
	require.NoError(t, checkFastLayout())
}
