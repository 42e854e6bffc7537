package core

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// Error classes, with the values of MPICH's ABI (include/mpi.h).
const (
	Success               = 0
	ErrBuffer             = 1
	ErrCount              = 2
	ErrType               = 3
	ErrTag                = 4
	ErrComm               = 5
	ErrRank               = 6
	ErrRoot               = 7
	ErrGroup              = 8
	ErrOp                 = 9
	ErrTopology           = 10
	ErrDims               = 11
	ErrArg                = 12
	ErrUnknown            = 13
	ErrTruncate           = 14
	ErrOther              = 15
	ErrIntern             = 16
	ErrInStatus           = 17
	ErrPending            = 18
	ErrRequest            = 19
	ErrAccess             = 20
	ErrAmode              = 21
	ErrBadFile            = 22
	ErrConversion         = 23
	ErrDupDatarep         = 24
	ErrFileExists         = 25
	ErrFileInUse          = 26
	ErrFile               = 27
	ErrInfo               = 28
	ErrInfoKey            = 29
	ErrInfoValue          = 30
	ErrInfoNokey          = 31
	ErrIO                 = 32
	ErrName               = 33
	ErrNoMem              = 34
	ErrNotSame            = 35
	ErrNoSpace            = 36
	ErrNoSuchFile         = 37
	ErrPort               = 38
	ErrQuota              = 39
	ErrReadOnly           = 40
	ErrService            = 41
	ErrSpawn              = 42
	ErrUnsupportedDatarep = 43
	ErrUnsupportedOp      = 44
	ErrWin                = 45
	ErrBase               = 46
	ErrLocktype           = 47
	ErrKeyval             = 48
	ErrRMAConflict        = 49
	ErrRMASync            = 50
	ErrSize               = 51
	ErrDisp               = 52
	ErrAssert             = 53
	ErrRMARange           = 55
	ErrRMAAttach          = 56
	ErrRMAShared          = 57
	ErrRMAFlavor          = 58
	ErrTFirst             = 59 // MPI_T_ERR_MEMORY; the MPI_T classes run to 74 and 78
	ErrSession            = 75
	ErrProcAborted        = 76
	ErrValueTooLarge      = 77
	ErrTNotSupported      = 78
	ErrTNotAccessible     = 79 // MPI-4.1 MPI_T_ERR_NOT_ACCESSIBLE
	ErrErrhandler         = 80 // MPI-4.1 MPI_ERR_ERRHANDLER
	lastClass             = 80
	ErrLastCode           = 0x3fffffff
)

// classNames are the texts MPI_Error_string gives for each predefined class.
var classNames = map[int]string{
	Success: "no error", ErrBuffer: "invalid buffer pointer", ErrCount: "invalid count argument",
	ErrType: "invalid datatype", ErrTag: "invalid tag", ErrComm: "invalid communicator",
	ErrRank: "invalid rank", ErrRoot: "invalid root", ErrGroup: "invalid group",
	ErrOp: "invalid reduce operation", ErrTopology: "invalid topology", ErrDims: "invalid dimension argument",
	ErrArg: "invalid argument", ErrUnknown: "unknown error", ErrTruncate: "message truncated",
	ErrOther: "other error", ErrIntern: "internal error", ErrInStatus: "error code in status",
	ErrPending: "pending request", ErrRequest: "invalid request", ErrAccess: "permission denied",
	ErrAmode: "invalid file access mode", ErrBadFile: "invalid file name", ErrConversion: "data conversion error",
	ErrDupDatarep: "data representation already defined", ErrFileExists: "file exists",
	ErrFileInUse: "file in use", ErrFile: "invalid file handle", ErrInfo: "invalid info object",
	ErrInfoKey: "invalid info key", ErrInfoValue: "invalid info value", ErrInfoNokey: "info key not defined",
	ErrIO: "I/O error", ErrName: "invalid service name", ErrNoMem: "out of memory",
	ErrNotSame: "collective arguments not identical", ErrNoSpace: "no space left",
	ErrNoSuchFile: "no such file", ErrPort: "invalid port", ErrQuota: "quota exceeded",
	ErrReadOnly: "read-only file or file system", ErrService: "invalid service",
	ErrSpawn: "spawn failed", ErrUnsupportedDatarep: "unsupported data representation",
	ErrUnsupportedOp: "unsupported operation", ErrWin: "invalid window", ErrBase: "invalid base address",
	ErrLocktype: "invalid lock type", ErrKeyval: "invalid keyval", ErrRMAConflict: "conflicting RMA accesses",
	ErrRMASync: "wrong RMA synchronization", ErrSize: "invalid size", ErrDisp: "invalid displacement",
	ErrAssert: "invalid assert", ErrRMARange: "RMA target out of range", ErrRMAAttach: "RMA attach failed",
	ErrRMAShared: "shared memory window not possible", ErrRMAFlavor: "wrong window flavor",
	59: "MPI_T: out of memory", 60: "MPI_T: not initialized", 61: "MPI_T: cannot initialize",
	62: "MPI_T: invalid index", 63: "MPI_T: invalid item", 64: "MPI_T: invalid handle",
	65: "MPI_T: out of handles", 66: "MPI_T: out of sessions", 67: "MPI_T: invalid session",
	68: "MPI_T: variable cannot be set now", 69: "MPI_T: variable can never be set",
	70: "MPI_T: variable cannot be started or stopped", 71: "MPI_T: variable cannot be written",
	72: "MPI_T: variable cannot be read and reset atomically", 73: "MPI_T: invalid name",
	74: "MPI_T: invalid", ErrSession: "invalid session", ErrProcAborted: "process aborted",
	ErrValueTooLarge: "value too large for output argument", ErrTNotSupported: "MPI_T: not supported",
	ErrTNotAccessible: "MPI_T: variable not accessible", ErrErrhandler: "invalid error handler",
}

// Error is an MPI error inside Go: a class and a message naming what went wrong.
type Error struct {
	Class int
	Msg   string
}

func (e *Error) Error() string { return e.Msg }

// Errorf makes an *Error of the given class.
func Errorf(class int, format string, args ...any) *Error {
	return &Error{Class: class, Msg: fmt.Sprintf(format, args...)}
}

// MPIError is implemented by errors of packages below core (datatype, transports)
// that know their MPI error class without importing core.
type MPIError interface {
	error
	MPIErrorClass() int
}

// MPIErrorClass makes *Error an MPIError.
func (e *Error) MPIErrorClass() int { return e.Class }

// AsError turns any error into an *Error; errors without a class become MPI_ERR_OTHER.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var c MPIError
	if errors.As(err, &c) {
		return &Error{Class: c.MPIErrorClass(), Msg: c.Error()}
	}
	return &Error{Class: ErrOther, Msg: err.Error()}
}

// Error codes. A predefined class is its own code. An error raised by mpix gets an
// instance code that carries its message, class | seq<<8, so that MPI_Error_string on
// a returned code names what went wrong (as MPICH does). seq counts raised errors
// (22 bits, never 0); the last ringSize messages are kept, each with its full code, so
// an old code whose message was overwritten reads as its class string, never as
// another error's message, until seq wraps after 4 million errors.
// User classes and codes made by MPI_Add_error_class/code have userCodeBit set.
const (
	classMask   = 0xff
	ringSize    = 1024
	seqLimit    = 1 << 22
	userCodeBit = 0x40000000
)

type ringEntry struct {
	code int
	msg  string
}

var codeRing struct {
	mu      sync.Mutex
	next    int
	entries [ringSize]ringEntry
}

// InstanceCode returns an error code of e's class whose string is e's message.
func InstanceCode(e *Error) int {
	if e.Class >= userCodeBit || e.Class <= 0 || e.Class > lastClass {
		return e.Class
	}
	codeRing.mu.Lock()
	seq := codeRing.next%(seqLimit-1) + 1
	codeRing.next++
	code := e.Class | seq<<8
	codeRing.entries[seq%ringSize] = ringEntry{code: code, msg: e.Msg}
	codeRing.mu.Unlock()
	return code
}

// user-defined classes and codes
var userCodes struct {
	mu       sync.Mutex
	last     int            // last value handed out (MPI_LASTUSEDCODE)
	classOf  map[int]int    // user code -> class (classes map to themselves)
	strings  map[int]string // user code or class -> string
	lastUsed atomic.Int64
}

func init() {
	userCodes.classOf = map[int]int{}
	userCodes.strings = map[int]string{}
	userCodes.lastUsed.Store(ErrLastCode)
}

// LastUsedCode is the value of the MPI_LASTUSEDCODE attribute.
func LastUsedCode() int { return int(userCodes.lastUsed.Load()) }

// AddErrorClass creates a new user error class.
func AddErrorClass() int {
	userCodes.mu.Lock()
	defer userCodes.mu.Unlock()
	userCodes.last++
	c := userCodeBit | userCodes.last
	userCodes.classOf[c] = c
	userCodes.lastUsed.Store(int64(c))
	return c
}

// AddErrorCode creates a new error code in a class (predefined or user).
func AddErrorCode(class int) (int, error) {
	if !validClass(class) {
		return 0, Errorf(ErrArg, "invalid error class %d", class)
	}
	userCodes.mu.Lock()
	defer userCodes.mu.Unlock()
	userCodes.last++
	c := userCodeBit | userCodes.last
	userCodes.classOf[c] = class
	userCodes.lastUsed.Store(int64(c))
	return c, nil
}

// AddErrorString sets the string of a user code or class.
func AddErrorString(code int, s string) error {
	if code&userCodeBit == 0 {
		return Errorf(ErrArg, "cannot change the string of predefined error code %d", code)
	}
	userCodes.mu.Lock()
	defer userCodes.mu.Unlock()
	if _, ok := userCodes.classOf[code]; !ok {
		return Errorf(ErrArg, "invalid error code %d", code)
	}
	userCodes.strings[code] = s
	return nil
}

// RemoveErrorCode removes a user code (wantClass false) or a user class with no codes
// left (wantClass true), for MPI_Remove_error_code/class (MPI-4.1).
func RemoveErrorCode(code int, wantClass bool) error {
	userCodes.mu.Lock()
	defer userCodes.mu.Unlock()
	class, ok := userCodes.classOf[code]
	if !ok || (class == code) != wantClass {
		kind := "code"
		if wantClass {
			kind = "class"
		}
		return Errorf(ErrArg, "%d is not a user-defined error %s", code, kind)
	}
	if wantClass {
		for c, cl := range userCodes.classOf {
			if cl == code && c != code {
				return Errorf(ErrArg, "error class %d still has error code %d", code, c)
			}
		}
	}
	delete(userCodes.classOf, code)
	delete(userCodes.strings, code)
	return nil
}

// RemoveErrorString removes the string of a user code or class.
func RemoveErrorString(code int) error {
	userCodes.mu.Lock()
	defer userCodes.mu.Unlock()
	if _, ok := userCodes.strings[code]; !ok {
		return Errorf(ErrArg, "error code %d has no user-defined string", code)
	}
	delete(userCodes.strings, code)
	return nil
}

func validClass(c int) bool {
	if c >= 0 && c <= lastClass && (c == Success || classNames[c] != "") {
		return true
	}
	userCodes.mu.Lock()
	defer userCodes.mu.Unlock()
	cl, ok := userCodes.classOf[c]
	return ok && cl == c
}

// ErrorClass returns the class of an error code.
func ErrorClass(code int) (int, error) {
	if code&userCodeBit != 0 {
		userCodes.mu.Lock()
		defer userCodes.mu.Unlock()
		if cl, ok := userCodes.classOf[code]; ok {
			return cl, nil
		}
		return 0, Errorf(ErrArg, "invalid error code %d", code)
	}
	class := code & classMask
	if code < 0 || code > ErrLastCode || class > lastClass || (class != Success && classNames[class] == "") || !issued(code>>8) {
		return 0, Errorf(ErrArg, "invalid error code %d", code)
	}
	return class, nil
}

// issued reports whether InstanceCode has handed out sequence number seq (0: a bare
// class): a code with a sequence number never issued was not returned by MPI.
func issued(seq int) bool {
	if seq == 0 {
		return true
	}
	codeRing.mu.Lock()
	defer codeRing.mu.Unlock()
	return codeRing.next >= seqLimit-1 || seq <= codeRing.next
}

// ErrorString returns the text of an error code.
func ErrorString(code int) (string, error) {
	class, err := ErrorClass(code)
	if err != nil {
		return "", err
	}
	if code&userCodeBit != 0 {
		userCodes.mu.Lock()
		defer userCodes.mu.Unlock()
		return userCodes.strings[code], nil
	}
	if seq := code >> 8; seq > 0 {
		codeRing.mu.Lock()
		e := codeRing.entries[seq%ringSize]
		codeRing.mu.Unlock()
		if e.code == code {
			return e.msg, nil
		}
	}
	return classNames[class], nil
}
