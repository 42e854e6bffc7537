package core

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// wantClass fails unless err is a *core.Error (possibly wrapped) of the given class.
func wantClass(t *testing.T, err error, class int) *Error {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want class %d", class)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %q (%T) is not a *core.Error", err, err)
	}
	if e.Class != class {
		t.Fatalf("error class = %d, want %d (message %q)", e.Class, class, e.Msg)
	}
	if e.Msg == "" {
		t.Fatalf("error of class %d has an empty message", class)
	}
	return e
}

// noErr fails on a non-nil error.
func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

// predefinedClasses lists every valid predefined class value.
func predefinedClasses() []int {
	var cs []int
	for c := 0; c <= lastClass; c++ {
		if c != 54 { // MPICH leaves 54 unused
			cs = append(cs, c)
		}
	}
	return cs
}

func TestErrorClassValuesMatchMPICH(t *testing.T) {
	tests := []struct {
		name string
		got  int
		want int
	}{
		{"MPI_SUCCESS", Success, 0},
		{"MPI_ERR_BUFFER", ErrBuffer, 1},
		{"MPI_ERR_COUNT", ErrCount, 2},
		{"MPI_ERR_TYPE", ErrType, 3},
		{"MPI_ERR_TAG", ErrTag, 4},
		{"MPI_ERR_COMM", ErrComm, 5},
		{"MPI_ERR_RANK", ErrRank, 6},
		{"MPI_ERR_ROOT", ErrRoot, 7},
		{"MPI_ERR_GROUP", ErrGroup, 8},
		{"MPI_ERR_OP", ErrOp, 9},
		{"MPI_ERR_TOPOLOGY", ErrTopology, 10},
		{"MPI_ERR_DIMS", ErrDims, 11},
		{"MPI_ERR_ARG", ErrArg, 12},
		{"MPI_ERR_UNKNOWN", ErrUnknown, 13},
		{"MPI_ERR_TRUNCATE", ErrTruncate, 14},
		{"MPI_ERR_OTHER", ErrOther, 15},
		{"MPI_ERR_INTERN", ErrIntern, 16},
		{"MPI_ERR_IN_STATUS", ErrInStatus, 17},
		{"MPI_ERR_PENDING", ErrPending, 18},
		{"MPI_ERR_REQUEST", ErrRequest, 19},
		{"MPI_ERR_ACCESS", ErrAccess, 20},
		{"MPI_ERR_AMODE", ErrAmode, 21},
		{"MPI_ERR_BAD_FILE", ErrBadFile, 22},
		{"MPI_ERR_CONVERSION", ErrConversion, 23},
		{"MPI_ERR_DUP_DATAREP", ErrDupDatarep, 24},
		{"MPI_ERR_FILE_EXISTS", ErrFileExists, 25},
		{"MPI_ERR_FILE_IN_USE", ErrFileInUse, 26},
		{"MPI_ERR_FILE", ErrFile, 27},
		{"MPI_ERR_INFO", ErrInfo, 28},
		{"MPI_ERR_INFO_KEY", ErrInfoKey, 29},
		{"MPI_ERR_INFO_VALUE", ErrInfoValue, 30},
		{"MPI_ERR_INFO_NOKEY", ErrInfoNokey, 31},
		{"MPI_ERR_IO", ErrIO, 32},
		{"MPI_ERR_NAME", ErrName, 33},
		{"MPI_ERR_NO_MEM", ErrNoMem, 34},
		{"MPI_ERR_NOT_SAME", ErrNotSame, 35},
		{"MPI_ERR_NO_SPACE", ErrNoSpace, 36},
		{"MPI_ERR_NO_SUCH_FILE", ErrNoSuchFile, 37},
		{"MPI_ERR_PORT", ErrPort, 38},
		{"MPI_ERR_QUOTA", ErrQuota, 39},
		{"MPI_ERR_READ_ONLY", ErrReadOnly, 40},
		{"MPI_ERR_SERVICE", ErrService, 41},
		{"MPI_ERR_SPAWN", ErrSpawn, 42},
		{"MPI_ERR_UNSUPPORTED_DATAREP", ErrUnsupportedDatarep, 43},
		{"MPI_ERR_UNSUPPORTED_OPERATION", ErrUnsupportedOp, 44},
		{"MPI_ERR_WIN", ErrWin, 45},
		{"MPI_ERR_BASE", ErrBase, 46},
		{"MPI_ERR_LOCKTYPE", ErrLocktype, 47},
		{"MPI_ERR_KEYVAL", ErrKeyval, 48},
		{"MPI_ERR_RMA_CONFLICT", ErrRMAConflict, 49},
		{"MPI_ERR_RMA_SYNC", ErrRMASync, 50},
		{"MPI_ERR_SIZE", ErrSize, 51},
		{"MPI_ERR_DISP", ErrDisp, 52},
		{"MPI_ERR_ASSERT", ErrAssert, 53},
		{"MPI_ERR_RMA_RANGE", ErrRMARange, 55},
		{"MPI_ERR_RMA_ATTACH", ErrRMAAttach, 56},
		{"MPI_ERR_RMA_SHARED", ErrRMAShared, 57},
		{"MPI_ERR_RMA_FLAVOR", ErrRMAFlavor, 58},
		{"MPI_T_ERR_MEMORY", ErrTFirst, 59},
		{"MPI_ERR_SESSION", ErrSession, 75},
		{"MPI_ERR_PROC_ABORTED", ErrProcAborted, 76},
		{"MPI_ERR_VALUE_TOO_LARGE", ErrValueTooLarge, 77},
		{"MPI_T_ERR_NOT_SUPPORTED", ErrTNotSupported, 78},
		{"MPI_T_ERR_NOT_ACCESSIBLE", ErrTNotAccessible, 79},
		{"MPI_ERR_ERRHANDLER", ErrErrhandler, 80},
		{"MPI_ERR_LASTCODE", ErrLastCode, 0x3fffffff},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %d, want %d", tt.name, tt.got, tt.want)
		}
	}
}

func TestPredefinedClassesAreTheirOwnCodes(t *testing.T) {
	seen := map[string]int{}
	for _, c := range predefinedClasses() {
		t.Run(strconv.Itoa(c), func(t *testing.T) {
			cl, err := ErrorClass(c)
			noErr(t, err)
			if cl != c {
				t.Errorf("ErrorClass(%d) = %d", c, cl)
			}
			s, err := ErrorString(c)
			noErr(t, err)
			if s == "" {
				t.Errorf("ErrorString(%d) is empty", c)
			}
			if s != classNames[c] {
				t.Errorf("ErrorString(%d) = %q, want the class name %q", c, s, classNames[c])
			}
			if other, dup := seen[s]; dup {
				t.Errorf("classes %d and %d share the string %q", other, c, s)
			}
			seen[s] = c
			if !validClass(c) {
				t.Errorf("validClass(%d) = false", c)
			}
		})
	}
}

// TestClassesMatchHeader keeps core's class list and include/mpi.h in step: every
// error class the header defines is valid here, and nothing else below 256 is.
func TestClassesMatchHeader(t *testing.T) {
	raw, err := os.ReadFile("../include/mpi.h")
	if err != nil {
		t.Skipf("no header to compare with: %v", err)
	}
	re := regexp.MustCompile(`(?m)^#define\s+(MPI_SUCCESS|MPI_ERR_\w+|MPI_T_ERR_\w+)\s+(\d+)\b`)
	header := map[int]string{}
	for _, m := range re.FindAllStringSubmatch(string(raw), -1) {
		v, _ := strconv.Atoi(m[2])
		if _, dup := header[v]; !dup {
			header[v] = m[1]
		}
	}
	if len(header) < 70 {
		t.Fatalf("found only %d error classes in include/mpi.h; the pattern is stale", len(header))
	}
	for c := 0; c < 256; c++ {
		name, inHeader := header[c]
		_, err := ErrorClass(c)
		switch {
		case inHeader && err != nil:
			t.Errorf("%s (%d) is in mpi.h but ErrorClass rejects it: %v", name, c, err)
		case !inHeader && err == nil:
			t.Errorf("class %d is accepted but mpi.h does not define it", c)
		}
	}
}

func TestInvalidErrorCodes(t *testing.T) {
	unknownUser := userCodeBit | 0x3ffffff0 // far beyond any code a test adds
	tests := []struct {
		name string
		code int
	}{
		{"minus one", -1},
		{"negative", -100},
		{"min int32", math.MinInt32},
		{"min int32 with class bits", math.MinInt32 | ErrArg},
		{"unused class 54", 54},
		{"class above last", lastClass + 1},
		{"class 255", 255},
		{"unused class with a slot", 54 | 1<<8},
		{"MPI_ERR_LASTCODE itself", ErrLastCode},
		{"just above last code, unknown user", ErrLastCode + 1},
		{"unknown user code", unknownUser},
		{"max int32", math.MaxInt32},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ErrorClass(tt.code)
			wantClass(t, err, ErrArg)
			s, err := ErrorString(tt.code)
			wantClass(t, err, ErrArg)
			if s != "" {
				t.Errorf("ErrorString(0x%x) = %q alongside an error", tt.code, s)
			}
		})
	}
}

func TestInstanceCode(t *testing.T) {
	tests := []struct {
		class int
		msg   string
	}{
		{ErrRank, "MPI_Send: invalid rank 5 in communicator of size 2"},
		{ErrArg, "an argument"},
		{ErrBuffer, "buffer"},
		{ErrOther, "other"},
		{ErrErrhandler, "the last class"},
		{ErrTFirst, "an MPI_T class"},
		{ErrArg, ""}, // an empty message is kept as such
	}
	codes := map[int]bool{}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d/%s", tt.class, tt.msg), func(t *testing.T) {
			code := InstanceCode(&Error{Class: tt.class, Msg: tt.msg})
			if code == tt.class {
				t.Fatalf("InstanceCode returned the bare class %d", code)
			}
			if code&classMask != tt.class || code < 0 || code > ErrLastCode || code&userCodeBit != 0 {
				t.Errorf("code 0x%x does not encode class %d as a predefined code", code, tt.class)
			}
			if codes[code] {
				t.Errorf("code 0x%x handed out twice", code)
			}
			codes[code] = true
			cl, err := ErrorClass(code)
			noErr(t, err)
			if cl != tt.class {
				t.Errorf("ErrorClass(0x%x) = %d, want %d", code, cl, tt.class)
			}
			s, err := ErrorString(code)
			noErr(t, err)
			if s != tt.msg {
				t.Errorf("ErrorString(0x%x) = %q, want %q", code, s, tt.msg)
			}
			// The class's own code still names the class.
			if s, _ := ErrorString(tt.class); s != classNames[tt.class] {
				t.Errorf("ErrorString(class %d) = %q after an instance", tt.class, s)
			}
		})
	}

	// Codes that cannot carry a message come back unchanged.
	userClass := AddErrorClass()
	for _, class := range []int{Success, userClass, lastClass + 1} {
		if got := InstanceCode(&Error{Class: class, Msg: "x"}); got != class {
			t.Errorf("InstanceCode(class %d) = %d, want the class itself", class, got)
		}
	}
}

// fillRing hands out n instance codes of class with messages prefix+i.
func fillRing(n, class int, prefix string) {
	for i := 0; i < n; i++ {
		InstanceCode(&Error{Class: class, Msg: fmt.Sprintf("%s%d", prefix, i)})
	}
}

func TestInstanceCodeRingWrap(t *testing.T) {
	tests := []struct {
		newer   int
		wantOwn bool
	}{
		{0, true},
		{1, true},
		{ringSize - 1, true},
		{ringSize, false},
		{ringSize + 1, false},
		{3*ringSize + 7, false},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.newer), func(t *testing.T) {
			old := InstanceCode(&Error{Class: ErrTag, Msg: "the old tag error"})
			fillRing(tt.newer, ErrCount, "newer count error ")
			cl, err := ErrorClass(old)
			noErr(t, err)
			if cl != ErrTag {
				t.Errorf("class of the old code = %d, want %d", cl, ErrTag)
			}
			s, err := ErrorString(old)
			noErr(t, err)
			want := classNames[ErrTag]
			if tt.wantOwn {
				want = "the old tag error"
			}
			if s != want {
				t.Errorf("after %d newer errors the old code reads %q, want %q", tt.newer, s, want)
			}
		})
	}
}

// TestInstanceCodeRingWrapSameClass: an old code must never read as another error's
// message, also when the errors that overwrote its slot have the same class.
func TestInstanceCodeRingWrapSameClass(t *testing.T) {
	for _, newer := range []int{ringSize, 2 * ringSize} {
		old := InstanceCode(&Error{Class: ErrTag, Msg: "the old tag error"})
		fillRing(newer, ErrTag, "newer tag error ")
		s, err := ErrorString(old)
		noErr(t, err)
		if s != classNames[ErrTag] {
			t.Errorf("after %d newer errors of its class the old code reads %q, want %q",
				newer, s, classNames[ErrTag])
		}
	}
}

func TestUserErrorClassesAndCodes(t *testing.T) {
	cls := AddErrorClass()
	if cls&userCodeBit == 0 || cls <= ErrLastCode {
		t.Fatalf("user class 0x%x is not above MPI_ERR_LASTCODE", cls)
	}
	cls2 := AddErrorClass()
	if cls2 == cls {
		t.Fatalf("two user classes share 0x%x", cls)
	}
	code, err := AddErrorCode(cls)
	noErr(t, err)
	code2, err := AddErrorCode(cls)
	noErr(t, err)
	predefCode, err := AddErrorCode(ErrArg)
	noErr(t, err)
	all := []int{cls, cls2, code, code2, predefCode}
	uniq := map[int]bool{}
	for _, c := range all {
		if uniq[c] {
			t.Fatalf("code 0x%x handed out twice in %x", c, all)
		}
		uniq[c] = true
	}

	classOf := []struct {
		code, class int
	}{
		{cls, cls}, {cls2, cls2}, {code, cls}, {code2, cls}, {predefCode, ErrArg},
	}
	for _, tt := range classOf {
		got, err := ErrorClass(tt.code)
		noErr(t, err)
		if got != tt.class {
			t.Errorf("ErrorClass(0x%x) = 0x%x, want 0x%x", tt.code, got, tt.class)
		}
		// No string set yet: MPI_Error_string gives an empty string.
		if s, err := ErrorString(tt.code); err != nil || s != "" {
			t.Errorf("ErrorString(0x%x) before AddErrorString = %q, %v", tt.code, s, err)
		}
	}

	noErr(t, AddErrorString(cls, "my class"))
	noErr(t, AddErrorString(code, "my code"))
	noErr(t, AddErrorString(predefCode, "my arg code"))
	noErr(t, AddErrorString(code, "my code, renamed"))
	strs := []struct {
		code int
		want string
	}{
		{cls, "my class"}, {cls2, ""}, {code, "my code, renamed"}, {code2, ""},
		{predefCode, "my arg code"}, {ErrArg, classNames[ErrArg]},
	}
	for _, tt := range strs {
		s, err := ErrorString(tt.code)
		noErr(t, err)
		if s != tt.want {
			t.Errorf("ErrorString(0x%x) = %q, want %q", tt.code, s, tt.want)
		}
	}

	// Classes a code cannot be added to.
	badClasses := []struct {
		name  string
		class int
	}{
		{"negative", -1},
		{"unused 54", 54},
		{"above last class", lastClass + 1},
		{"large", 123456},
		{"user code that is not a class", code},
		{"unknown user value", userCodeBit | 0x3ffffff0},
		{"instance code", InstanceCode(&Error{Class: ErrTag, Msg: "x"})},
	}
	for _, tt := range badClasses {
		t.Run("AddErrorCode/"+tt.name, func(t *testing.T) {
			before := LastUsedCode()
			_, err := AddErrorCode(tt.class)
			wantClass(t, err, ErrArg)
			if LastUsedCode() != before {
				t.Errorf("a failed AddErrorCode moved MPI_LASTUSEDCODE from 0x%x to 0x%x", before, LastUsedCode())
			}
		})
	}

	// Codes whose string cannot be set.
	badStrings := []struct {
		name string
		code int
	}{
		{"success", Success},
		{"predefined class", ErrTag},
		{"instance code", InstanceCode(&Error{Class: ErrTag, Msg: "keep me"})},
		{"unknown user code", userCodeBit | 0x3ffffff0},
		{"negative", -5},
	}
	for _, tt := range badStrings {
		t.Run("AddErrorString/"+tt.name, func(t *testing.T) {
			before, _ := ErrorString(tt.code)
			wantClass(t, AddErrorString(tt.code, "hijacked"), ErrArg)
			if after, _ := ErrorString(tt.code); after != before {
				t.Errorf("failed AddErrorString changed the string from %q to %q", before, after)
			}
		})
	}
}

// TestLastUsedCodeFreshProcess checks MPI_LASTUSEDCODE before any code is added, in a
// child process, since other tests in this one add codes.
func TestLastUsedCodeFreshProcess(t *testing.T) {
	if os.Getenv("MPIX_CORE_LASTUSED_CHILD") == "1" {
		if got := LastUsedCode(); got != ErrLastCode {
			fmt.Printf("initial LastUsedCode() = 0x%x, want MPI_ERR_LASTCODE 0x%x\n", got, ErrLastCode)
			os.Exit(3)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLastUsedCodeFreshProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "MPIX_CORE_LASTUSED_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func TestLastUsedCode(t *testing.T) {
	// MPI: the value of MPI_LASTUSEDCODE is always >= MPI_ERR_LASTCODE.
	if got := LastUsedCode(); got < ErrLastCode {
		t.Errorf("LastUsedCode() = 0x%x, below MPI_ERR_LASTCODE", got)
	}
	prev := LastUsedCode()
	steps := []struct {
		name string
		add  func() int
	}{
		{"class", AddErrorClass},
		{"code in predefined class", func() int { c, _ := AddErrorCode(ErrIO); return c }},
		{"class again", AddErrorClass},
		{"code in user class", func() int { c, _ := AddErrorCode(AddErrorClass()); return c }},
	}
	for _, st := range steps {
		got := st.add()
		last := LastUsedCode()
		if last != got {
			t.Errorf("%s: LastUsedCode() = 0x%x, want the new value 0x%x", st.name, last, got)
		}
		if last <= prev {
			t.Errorf("%s: LastUsedCode went from 0x%x to 0x%x", st.name, prev, last)
		}
		prev = last
	}
}

func TestAsError(t *testing.T) {
	own := Errorf(ErrRank, "invalid rank %d in communicator of size %d", 5, 2)
	if own.Error() != "invalid rank 5 in communicator of size 2" || own.Class != ErrRank {
		t.Fatalf("Errorf = %#v", own)
	}
	tests := []struct {
		name     string
		in       error
		same     *Error // when the result must be this very value
		class    int
		msg      string
		wrapping bool
	}{
		{name: "own", in: own, same: own, class: ErrRank, msg: own.Msg},
		{name: "wrapped own", in: fmt.Errorf("context: %w", own), same: own, class: ErrRank, msg: own.Msg},
		{name: "foreign", in: errors.New("boom"), class: ErrOther, msg: "boom"},
		{name: "wrapped foreign", in: fmt.Errorf("ctx: %w", os.ErrNotExist), class: ErrOther, msg: "ctx: file does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AsError(tt.in)
			if got == nil {
				t.Fatal("AsError returned nil")
			}
			if tt.same != nil && got != tt.same {
				t.Errorf("AsError did not return the *Error inside: %p vs %p", got, tt.same)
			}
			if diff := cmp.Diff(&Error{Class: tt.class, Msg: tt.msg}, got); diff != "" {
				t.Errorf("AsError mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestErrorCodesConcurrent runs with -race: instance codes handed out and read from
// many goroutines always keep their class and read as their own message or, once
// overwritten, as their class's string, never as another goroutine's message.
func TestErrorCodesConcurrent(t *testing.T) {
	classes := predefinedClasses()[1:] // one class per goroutine, Success excluded
	const iters = 1500
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(failures) < 10 {
			failures = append(failures, fmt.Sprintf(format, args...))
		}
	}
	for g, class := range classes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range iters {
				msg := fmt.Sprintf("goroutine %d error %d", g, i)
				code := InstanceCode(&Error{Class: class, Msg: msg})
				cl, err := ErrorClass(code)
				if err != nil || cl != class {
					fail("ErrorClass(0x%x) = %d, %v; want %d", code, cl, err, class)
					return
				}
				s, err := ErrorString(code)
				if err != nil || (s != msg && s != classNames[class]) {
					fail("ErrorString(0x%x) = %q, %v; want %q or %q", code, s, err, msg, classNames[class])
					return
				}
			}
		}()
	}
	// User codes are created and read at the same time.
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				c, err := AddErrorCode(ErrOther)
				if err != nil {
					fail("AddErrorCode: %v", err)
					return
				}
				want := fmt.Sprintf("user %d/%d", g, i)
				if err := AddErrorString(c, want); err != nil {
					fail("AddErrorString: %v", err)
					return
				}
				if s, err := ErrorString(c); err != nil || s != want {
					fail("ErrorString(user 0x%x) = %q, %v; want %q", c, s, err, want)
					return
				}
				if LastUsedCode() < c {
					fail("LastUsedCode 0x%x below a handed-out code 0x%x", LastUsedCode(), c)
					return
				}
			}
		}()
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Fatal(strings.Join(failures, "\n"))
	}
}

// A code whose sequence number was never handed out is no error code of MPI's, even
// with a valid class in its low bits (MPI_Error_string/class answer MPI_ERR_ARG).
func TestNeverIssuedCode(t *testing.T) {
	issuedCode := InstanceCode(Errorf(ErrRank, "bad rank"))
	// A sequence number well past the last one issued (a fixed one such as 0x7fff is
	// issued once the other tests of the package have made that many codes).
	neverIssued := (issuedCode>>8+1000)<<8 | 0x06
	for _, c := range []struct {
		code int
		ok   bool
	}{
		{ErrRank, true},
		{issuedCode, true},
		{neverIssued, false},
		{-5, false},
	} {
		_, err := ErrorString(c.code)
		if (err == nil) != c.ok {
			t.Errorf("ErrorString(%#x) error %v, want ok %v", c.code, err, c.ok)
		}
		if err != nil && AsError(err).Class != ErrArg {
			t.Errorf("ErrorString(%#x): class %d, want MPI_ERR_ARG", c.code, AsError(err).Class)
		}
	}
}
