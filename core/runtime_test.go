package core

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestWtime(t *testing.T) {
	prev := Wtime()
	if prev < 0 {
		t.Fatalf("Wtime() = %v, negative", prev)
	}
	for range 10000 {
		now := Wtime()
		if now < prev {
			t.Fatalf("Wtime went backwards: %v then %v", prev, now)
		}
		prev = now
	}
	start := Wtime()
	time.Sleep(20 * time.Millisecond)
	elapsed := Wtime() - start
	if elapsed < 0.020 || elapsed > 5 {
		t.Errorf("a 20 ms sleep measured %v s", elapsed)
	}
	if tick := Wtick(); tick <= 0 || tick > 1e-6 {
		t.Errorf("Wtick() = %v, want a positive resolution of at most 1 µs", tick)
	}
}

func TestThreadLevels(t *testing.T) {
	tests := []struct {
		level, mpich int
		name         string
	}{
		{ThreadSingle, 0, "MPI_THREAD_SINGLE"},
		{ThreadFunneled, 1, "MPI_THREAD_FUNNELED"},
		{ThreadSerialized, 2, "MPI_THREAD_SERIALIZED"},
		{ThreadMultiple, 3, "MPI_THREAD_MULTIPLE"},
	}
	for _, tt := range tests {
		if tt.level != tt.mpich {
			t.Errorf("%s = %d, want MPICH's %d", tt.name, tt.level, tt.mpich)
		}
		if got := ThreadLevelName(tt.level); got != tt.name {
			t.Errorf("ThreadLevelName(%d) = %q, want %q", tt.level, got, tt.name)
		}
	}
}

// unsetPMIEnv removes every PMI_* variable for the test (pmi.Connect tests presence,
// so setting them empty would not do) and restores them afterwards.
func unsetPMIEnv(t *testing.T) {
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(k, "PMI_") {
			continue
		}
		if err := os.Unsetenv(k); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Setenv(k, v) })
	}
}

// resetRuntime puts the process-global runtime back in its never-initialized state so
// that the Init/Finalize test can run again (go test -count=N).
func resetRuntime() {
	proc.mu.Lock()
	defer proc.mu.Unlock()
	proc.state.Store(int32(stateNone))
	proc.lib.Store(int32(stateNone))
	proc.users = 0
	proc.threadLevel, proc.mainThread = 0, 0
	proc.pmi, proc.peers, proc.hostname = nil, nil, ""
	CommWorld.Rank, CommWorld.Size, CommWorld.group, CommWorld.peers = 0, 0, nil, nil
	CommSelf.Rank, CommSelf.Size, CommSelf.group, CommSelf.peers = 0, 0, nil, nil
	infoEnv.fill(nil)
}

// TestSingletonInitFinalize walks the process-global runtime through its life in order.
func TestSingletonInitFinalize(t *testing.T) {
	unsetPMIEnv(t)
	resetRuntime()
	t.Cleanup(resetRuntime)
	host, err := os.Hostname()
	noErr(t, err)
	wd, err := os.Getwd()
	noErr(t, err)

	// Before MPI_Init.
	if Initialized() || Finalized() {
		t.Fatalf("Initialized()=%v Finalized()=%v before Init", Initialized(), Finalized())
	}
	if e := wantClass(t, CheckInitialized(), ErrOther); !strings.Contains(e.Msg, "called before MPI_Init") {
		t.Fatalf("CheckInitialized before Init: %q", e.Msg)
	}
	if e := wantClass(t, Finalize(), ErrOther); !strings.Contains(e.Msg, "called before MPI_Init") {
		t.Fatalf("Finalize before Init: %q", e.Msg)
	}
	// A negative thread level is an argument error and leaves the runtime untouched.
	_, err = Init(-1, 1)
	wantClass(t, err, ErrArg)
	if Initialized() {
		t.Fatal("a rejected Init initialized the runtime")
	}

	// MPI_Init_thread(MPI_THREAD_MULTIPLE).
	provided, err := Init(ThreadMultiple, 1)
	noErr(t, err)
	if provided != 3 {
		t.Fatalf("provided = %d, want 3", provided)
	}
	noErr(t, CheckInitialized())
	if !Initialized() || Finalized() {
		t.Fatalf("Initialized()=%v Finalized()=%v after Init", Initialized(), Finalized())
	}
	if ThreadLevel() != ThreadMultiple {
		t.Errorf("ThreadLevel() = %d", ThreadLevel())
	}
	type commView struct {
		Rank, Size int
		WorldRanks []int
	}
	view := func(c *Comm) commView { return commView{c.Rank, c.Size, c.group.WorldRanks()} }
	if diff := cmp.Diff(commView{0, 1, []int{0}}, view(CommWorld)); diff != "" {
		t.Errorf("MPI_COMM_WORLD (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(commView{0, 1, []int{0}}, view(CommSelf)); diff != "" {
		t.Errorf("MPI_COMM_SELF (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Peer{{Host: host, PID: os.Getpid(), Node: 0}}, Peers()); diff != "" {
		t.Errorf("Peers() (-want +got):\n%s", diff)
	}
	if ProcessorName() != host {
		t.Errorf("ProcessorName() = %q, want %q", ProcessorName(), host)
	}
	mainThread := []struct {
		serial uint64
		want   bool
	}{{1, true}, {2, false}, {0, false}}
	for _, mt := range mainThread {
		if got := IsMainThread(mt.serial); got != mt.want {
			t.Errorf("IsMainThread(%d) = %v, want %v", mt.serial, got, mt.want)
		}
	}
	if _, err := LookupComm(CommWorld.Handle); err != nil {
		t.Errorf("LookupComm(MPI_COMM_WORLD): %v", err)
	}
	if err := CommWorld.CheckRank(0, false, false); err != nil {
		t.Errorf("rank 0 rejected in MPI_COMM_WORLD: %v", err)
	}
	wantClass(t, CommWorld.CheckRank(1, false, false), ErrRank)
	// MPI_INFO_ENV is filled.
	env := contents(t, infoEnv)
	envMap := map[string]string{}
	for _, kv := range env {
		envMap[kv[0]] = kv[1]
	}
	for k, want := range map[string]string{
		"command": os.Args[0], "argv": strings.Join(os.Args[1:], " "), "maxprocs": "1", "soft": "1",
		"host": host, "wdir": wd, "thread_level": "MPI_THREAD_MULTIPLE",
	} {
		if got, ok := envMap[k]; !ok || got != want {
			t.Errorf("MPI_INFO_ENV %q = %q (set %v), want %q", k, got, ok, want)
		}
	}

	// A second MPI_Init fails and leaves the running runtime alone.
	_, err = Init(ThreadSingle, 2)
	wantClass(t, err, ErrOther)
	noErr(t, CheckInitialized())
	if ThreadLevel() != ThreadMultiple || !IsMainThread(1) || IsMainThread(2) {
		t.Errorf("a failed second Init changed the runtime: level %d", ThreadLevel())
	}

	// MPI_Finalize.
	noErr(t, Finalize())
	if !Finalized() || !Initialized() {
		t.Fatalf("Initialized()=%v Finalized()=%v after Finalize; want both true", Initialized(), Finalized())
	}
	if e := wantClass(t, CheckInitialized(), ErrOther); !strings.Contains(e.Msg, "called after MPI_Finalize") {
		t.Errorf("CheckInitialized after Finalize: %q", e.Msg)
	}
	if e := wantClass(t, Finalize(), ErrOther); !strings.Contains(e.Msg, "called after MPI_Finalize") {
		t.Errorf("second Finalize: %q", e.Msg)
	}
	// MPI cannot be initialized again.
	_, err = Init(ThreadMultiple, 1)
	wantClass(t, err, ErrOther)
	if !Finalized() {
		t.Errorf("a failed Init after Finalize left the finalized state")
	}
	if e := wantClass(t, CheckInitialized(), ErrOther); !strings.Contains(e.Msg, "called after MPI_Finalize") {
		t.Errorf("CheckInitialized after a refused re-Init: %q", e.Msg)
	}
}

// TestInitThreadLevels checks the provided level for each request, each time through a
// fresh runtime (the state is reset between cases, which a real process cannot do).
func TestInitThreadLevels(t *testing.T) {
	unsetPMIEnv(t)
	t.Cleanup(resetRuntime)
	tests := []struct {
		required, provided int
	}{
		{ThreadSingle, ThreadSingle},
		{ThreadFunneled, ThreadFunneled},
		{ThreadSerialized, ThreadSerialized},
		{ThreadMultiple, ThreadMultiple},
		{ThreadMultiple + 1, ThreadMultiple}, // above MULTIPLE: MULTIPLE is provided
		{42, ThreadMultiple},
	}
	for _, tt := range tests {
		resetRuntime()
		got, err := Init(tt.required, 7)
		noErr(t, err)
		if got != tt.provided || ThreadLevel() != tt.provided {
			t.Errorf("Init(%d) provided %d (ThreadLevel %d), want %d", tt.required, got, ThreadLevel(), tt.provided)
		}
		if v, _, _ := infoEnv.Get("thread_level"); v != ThreadLevelName(tt.provided) {
			t.Errorf("Init(%d): MPI_INFO_ENV thread_level = %q", tt.required, v)
		}
		noErr(t, Finalize())
	}
}
