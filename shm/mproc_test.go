package shm

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"mpix/transport"
)

// Multi-process tests. The test binary re-executes itself as the ranks of a job;
// TestMain sees childEnv and runs childMain instead of the tests. The parent acts as
// the PMI server: it tells every rank the pids, and runs the two fences over the
// ranks' stdin and stdout (one line per step). A child writes nothing else on stdout.

const (
	childEnv = "MPIX_SHM_TEST_CHILD" // the child's role
	jobEnv   = "MPIX_SHM_TEST_JOB"
	rankEnv  = "MPIX_SHM_TEST_RANK"
	sizeEnv  = "MPIX_SHM_TEST_SIZE"    // ranks 0..size-1 all on this node
	cellEnv  = "MPIX_SHM_TEST_CELL"    // "cellSize,cells"
	fbEnv    = "MPIX_SHM_TEST_FASTBOX" // Config.Fastbox (optional)
	perEnv   = "MPIX_SHM_TEST_PER"     // messages per pair, bytes to read...
	argEnv   = "MPIX_SHM_TEST_ARG"     // role-specific
)

func TestMain(m *testing.M) {
	if role := os.Getenv(childEnv); role != "" {
		os.Exit(childMain(role))
	}
	os.Exit(m.Run())
}

// stepTimeout bounds each fence and each rank's work.
const stepTimeout = 3 * time.Minute

// ---- child side ----

type childIO struct {
	in  *bufio.Scanner
	out *os.File
}

func (c *childIO) say(format string, args ...any) {
	fmt.Fprintf(c.out, format+"\n", args...)
}

func (c *childIO) expect(word string) error {
	if !c.in.Scan() {
		return fmt.Errorf("stdin closed while waiting for %q", word)
	}
	if got := c.in.Text(); got != word && !strings.HasPrefix(got, word+" ") {
		return fmt.Errorf("got %q, want %q", got, word)
	}
	return nil
}

func envInt(name string) int {
	v, err := strconv.Atoi(os.Getenv(name))
	if err != nil {
		panic(fmt.Sprintf("%s=%q: %v", name, os.Getenv(name), err))
	}
	return v
}

// childMain runs one rank (or a helper process) and returns its exit status.
func childMain(role string) int {
	c := &childIO{in: bufio.NewScanner(os.Stdin), out: os.Stdout}
	var err error
	switch role {
	case "holder":
		err = holderMain(c)
	case "noperm":
		err = nopermMain(c)
	default:
		err = rankMain(c, role)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "child %s rank %s: %v\n", role, os.Getenv(rankEnv), err)
		return 1
	}
	return 0
}

// rankMain runs the startup protocol of a rank, then the body named by role.
func rankMain(c *childIO, role string) error {
	rank, size := envInt(rankEnv), envInt(sizeEnv)
	var cellSize, cells int
	fmt.Sscanf(os.Getenv(cellEnv), "%d,%d", &cellSize, &cells)
	fastbox := 0
	if os.Getenv(fbEnv) != "" {
		fastbox = envInt(fbEnv)
	}
	if !c.in.Scan() {
		return errors.New("no pids line")
	}
	f := strings.Fields(c.in.Text())
	if len(f) != size+1 || f[0] != "pids" {
		return fmt.Errorf("bad pids line %q", c.in.Text())
	}
	pids := make([]int, size)
	for i := range pids {
		pids[i], _ = strconv.Atoi(f[i+1])
	}
	e, err := Create(Config{Job: os.Getenv(jobEnv), Rank: rank, NodeRanks: seq(size), PIDs: pids, CellSize: cellSize, Cells: cells, Fastbox: fastbox})
	if err != nil {
		return err
	}
	defer e.Close()
	c.say("created")
	if err := c.expect("go"); err != nil {
		return err
	}
	if err := e.Attach(); err != nil {
		return err
	}
	c.say("attached")
	if err := c.expect("go"); err != nil {
		return err
	}
	if err := e.Unlink(); err != nil {
		return err
	}
	c.say("unlinked")
	deadline := time.Now().Add(stepTimeout)
	switch role {
	case "alltoall":
		err = exchange(e, rank, seq(size), envInt(perEnv), deadline)
	case "readfrom":
		err = readFromBody(c, e, rank, envInt(perEnv), deadline)
	case "echo":
		err = echoBody(e, deadline)
	case "sink":
		err = sinkBody(e, deadline)
	case "sendanddie":
		err = sendAndDieBody(c, e)
	default:
		err = fmt.Errorf("unknown role %q", role)
	}
	if err != nil {
		return err
	}
	c.say("ok")
	return nil
}

// waitFor polls e until cond holds.
func waitFor(e *Endpoint, deliver transport.DeliverFunc, cond func() bool, deadline time.Time) error {
	for idle := 0; !cond(); {
		if e.Poll(deliver) > 0 {
			idle = 0
			continue
		}
		if err := e.Err(); err != nil {
			return err
		}
		if idle++; idle%1024 == 0 && time.Now().After(deadline) {
			return errors.New("timed out waiting for a message")
		}
		backoff(idle)
	}
	return nil
}

// sendRetry sends, polling while the pool is exhausted.
func sendRetry(e *Endpoint, dst int, h *transport.Header, p []byte, deliver transport.DeliverFunc) error {
	for {
		err := e.Send(dst, h, p)
		if !errors.Is(err, transport.ErrAgain) {
			return err
		}
		e.Poll(deliver)
		runtime.Gosched()
	}
}

// Single-copy read test. Rank 0 offers two buffers in RTS messages (a big one; one
// followed by an inaccessible page) and waits for rank 1's Fin; rank 1
// reads them with ReadFrom and checks them. A Fin's RecvReq is 0 for success, 1 when
// process_vm_readv was refused.
func readFromBody(c *childIO, e *Endpoint, rank, size int, deadline time.Time) error {
	const page = 4096
	if rank == 0 {
		big := make([]byte, size)
		fill(big, 0, 1, 99)
		holed, err := syscall.Mmap(-1, 0, 2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err != nil {
			return err
		}
		fill(holed[:page], 0, 1, 98)
		if err := syscall.Mprotect(holed[page:], syscall.PROT_NONE); err != nil {
			return err
		}
		for tag, b := range [][]byte{big, holed[:page]} {
			h := transport.Header{Kind: transport.KindRTS, Src: 0, Tag: int32(tag), Size: int64(len(b)),
				SendReq: uint64(crc32.ChecksumIEEE(b)), Offset: int64(uintptr(unsafe.Pointer(&b[0])))}
			if err := sendRetry(e, 1, &h, nil, nil); err != nil {
				return err
			}
		}
		var fin *transport.Header
		err = waitFor(e, func(h *transport.Header, _ []byte) {
			if h.Kind == transport.KindFin {
				hh := *h
				fin = &hh
			}
		}, func() bool { return fin != nil }, deadline)
		runtime.KeepAlive(big)
		runtime.KeepAlive(holed)
		if err != nil {
			return err
		}
		if fin.RecvReq == 1 {
			c.say("skip process_vm_readv refused here (ptrace restrictions): ReadFrom returned ErrNoSingleCopy")
		}
		return nil
	}
	var rts []transport.Header
	if err := waitFor(e, func(h *transport.Header, _ []byte) { rts = append(rts, *h) },
		func() bool { return len(rts) == 2 }, deadline); err != nil {
		return err
	}
	status := uint64(0)
	err := func() error {
		// The big buffer, whole.
		h := rts[0]
		dst := make([]byte, h.Size)
		start := time.Now()
		err := e.ReadFrom(0, uintptr(h.Offset), dst)
		took := time.Since(start)
		if errors.Is(err, transport.ErrNoSingleCopy) {
			status = 1
			if !e.noSingle[0] {
				return errors.New("refusal not remembered")
			}
			return nil
		}
		if err != nil {
			return err
		}
		if crc32.ChecksumIEEE(dst) != uint32(h.SendReq) {
			return errors.New("big buffer: checksum mismatch")
		}
		c.say("info ReadFrom %d MiB into fresh memory in %v: %.2f GB/s", h.Size>>20, took, float64(h.Size)/took.Seconds()/1e9)
		start = time.Now()
		if err := e.ReadFrom(0, uintptr(h.Offset), dst); err != nil {
			return err
		}
		took = time.Since(start)
		c.say("info ReadFrom %d MiB again (pages present) in %v: %.2f GB/s", h.Size>>20, took, float64(h.Size)/took.Seconds()/1e9)
		// An unaligned piece of it, against the generator.
		want := make([]byte, h.Size)
		fill(want, 0, 1, 99)
		part := dst[:1<<20+7]
		if err := e.ReadFrom(0, uintptr(h.Offset)+12345, part); err != nil {
			return err
		}
		if !bytes.Equal(part, want[12345:12345+len(part)]) {
			return errors.New("unaligned piece differs")
		}
		// A read running into an inaccessible page: an error, the part before copied.
		h = rts[1]
		dst = make([]byte, 2*h.Size)
		err = e.ReadFrom(0, uintptr(h.Offset), dst)
		if err == nil || errors.Is(err, transport.ErrNoSingleCopy) {
			return fmt.Errorf("read across an inaccessible page = %v, want an error", err)
		}
		if crc32.ChecksumIEEE(dst[:h.Size]) != uint32(h.SendReq) {
			return errors.New("the mapped part of a partial read differs")
		}
		return nil
	}()
	if err != nil {
		status = 2
	}
	fin := transport.Header{Kind: transport.KindFin, Src: 1, RecvReq: status}
	if err2 := sendRetry(e, 0, &fin, nil, nil); err == nil {
		err = err2
	}
	if status == 1 {
		c.say("skip process_vm_readv refused here (ptrace restrictions): ReadFrom returned ErrNoSingleCopy")
	}
	return err
}

// echoBody sends every message back to its sender until a KindFin arrives.
func echoBody(e *Endpoint, deadline time.Time) error {
	stop := false
	var sendErr error
	deliver := func(h *transport.Header, p []byte) {
		if h.Kind == transport.KindFin {
			stop = true
			return
		}
		src := int(h.Src)
		h.Src = int32(e.cfg.Rank)
		if err := e.Send(src, h, p); err != nil && sendErr == nil {
			sendErr = err // ping-pong keeps one message in flight: no ErrAgain
		}
	}
	for spins := 1; !stop && sendErr == nil; spins++ {
		if e.Poll(deliver) == 0 && spins&1023 == 0 {
			osYield()
			if time.Now().After(deadline) {
				return errors.New("no KindFin before the deadline")
			}
		}
	}
	return sendErr
}

// sinkBody copies every payload into a receive buffer at the header's Offset (as a
// receiver would into the user's buffer); a message with Tag -1 is answered (the
// sender's synchronization point); a KindFin ends it.
func sinkBody(e *Endpoint, deadline time.Time) error {
	stop, syncs := false, 0
	rbuf := make([]byte, 1<<20+e.MaxPayload())
	deliver := func(h *transport.Header, p []byte) {
		switch {
		case h.Kind == transport.KindFin:
			stop = true
		case h.Tag == -1:
			syncs++
		default:
			copy(rbuf[h.Offset&(1<<20-1):], p)
		}
	}
	for spins := 1; !stop; spins++ {
		if e.Poll(deliver) == 0 && spins&1023 == 0 {
			osYield()
			if time.Now().After(deadline) {
				return errors.New("no KindFin before the deadline")
			}
		}
		for ; syncs > 0; syncs-- {
			ack := transport.Header{Kind: transport.KindSyncAck, Src: int32(e.cfg.Rank)}
			if err := sendRetry(e, 0, &ack, nil, deliver); err != nil {
				return err
			}
		}
	}
	return nil
}

// sendAndDieBody sends envInt(argEnv) messages to rank 0, says "sent" and waits to be
// killed.
func sendAndDieBody(c *childIO, e *Endpoint) error {
	for k := 0; k < envInt(argEnv); k++ {
		h := transport.Header{Kind: transport.KindEager, Src: int32(e.cfg.Rank), Tag: int32(k)}
		if err := e.Send(0, &h, []byte{byte(k)}); err != nil {
			return err
		}
	}
	c.say("sent")
	io.Copy(io.Discard, os.Stdin)
	return errors.New("not killed")
}

// holderMain holds a buffer (perEnv bytes, default 1 MiB) for others to read; unless
// argEnv is "dumpable" it makes itself non-dumpable first, for nopermMain to fail.
func holderMain(c *childIO) error {
	size := 1 << 20
	if os.Getenv(perEnv) != "" {
		size = envInt(perEnv)
	}
	buf := make([]byte, size)
	fill(buf, 7, 7, 7)
	const prSetDumpable = 4
	if os.Getenv(argEnv) != "dumpable" {
		if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, 0, 0); errno != 0 {
			return fmt.Errorf("prctl(PR_SET_DUMPABLE, 0): %v", errno)
		}
	}
	c.say("addr %d", uintptr(unsafe.Pointer(&buf[0])))
	io.Copy(io.Discard, os.Stdin)
	runtime.KeepAlive(buf)
	return nil
}

// nopermMain reads from the holder without the right to: as root it first reads
// successfully (the control), then drops to nobody; either way the holder is not
// dumpable, so an unprivileged reader gets EPERM.
func nopermMain(c *childIO) error {
	holder, addr := envInt(perEnv), uintptr(envInt(argEnv))
	e, err := Create(Config{Job: os.Getenv(jobEnv), Rank: 1, NodeRanks: []int{0, 1}, PIDs: []int{holder, os.Getpid()}, Cells: 2})
	if err != nil {
		return err
	}
	defer e.Close()
	if err := e.Unlink(); err != nil {
		return err
	}
	dst := make([]byte, 1<<20)
	if os.Geteuid() == 0 {
		if err := e.ReadFrom(0, addr, dst); err != nil {
			return fmt.Errorf("control read as root: %w", err)
		}
		if err := syscall.Setgroups(nil); err != nil {
			return err
		}
		if err := syscall.Setgid(65534); err != nil {
			return err
		}
		if err := syscall.Setuid(65534); err != nil {
			return err
		}
	}
	for i := 0; i < 2; i++ {
		if err := e.ReadFrom(0, addr, dst); !errors.Is(err, transport.ErrNoSingleCopy) {
			return fmt.Errorf("read %d without permission = %v, want ErrNoSingleCopy", i, err)
		}
	}
	if !e.noSingle[0] {
		return errors.New("refusal not remembered")
	}
	c.say("ok")
	return nil
}

// ---- parent side ----

// proc is one child process.
type proc struct {
	rank   int
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan string
	stderr *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startProc(t testing.TB, rank int, env ...string) *proc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env...)
	p := &proc{rank: rank, cmd: cmd, lines: make(chan string, 16), stderr: &syncBuffer{}}
	cmd.Stderr = p.stderr
	var err error
	if p.in, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		s := bufio.NewScanner(out)
		for s.Scan() {
			p.lines <- s.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		p.in.Close()
		p.cmd.Process.Kill()
		p.cmd.Wait()
	})
	return p
}

func (p *proc) send(t testing.TB, line string) {
	t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		t.Fatalf("rank %d: write %q: %v\n%s", p.rank, line, err, p.stderr)
	}
}

// next returns the child's next stdout line, passing "info" lines to the log.
func (p *proc) next(t testing.TB) string {
	t.Helper()
	timer := time.NewTimer(stepTimeout)
	defer timer.Stop()
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				p.cmd.Wait()
				t.Fatalf("rank %d exited (%v):\n%s", p.rank, p.cmd.ProcessState, p.stderr)
			}
			if strings.HasPrefix(l, "info ") {
				t.Logf("rank %d: %s", p.rank, l[5:])
				continue
			}
			return l
		case <-timer.C:
			t.Fatalf("rank %d: no answer in %v:\n%s", p.rank, stepTimeout, p.stderr)
		}
	}
}

func (p *proc) expect(t testing.TB, want string) {
	t.Helper()
	if got := p.next(t); got != want {
		t.Fatalf("rank %d said %q, want %q:\n%s", p.rank, got, want, p.stderr)
	}
}

// testJob is a job of size ranks on this node: children, plus this process as rank
// self when self >= 0.
type testJob struct {
	name  string
	procs []*proc // children
	self  *Endpoint
}

// startJob starts the ranks with the given role and runs the startup protocol (pids,
// Create, fence, Attach, fence, Unlink); afterwards no region file is left.
func startJob(t testing.TB, role string, size, self, cellSize, cells, per int, extraEnv ...string) *testJob {
	t.Helper()
	j := &testJob{name: jobName("mp")}
	t.Cleanup(func() {
		for _, f := range leftovers(t, j.name) {
			os.Remove(f)
		}
	})
	pids := make([]string, size)
	for rank := 0; rank < size; rank++ {
		if rank == self {
			pids[rank] = strconv.Itoa(os.Getpid())
			continue
		}
		env := append([]string{childEnv + "=" + role, jobEnv + "=" + j.name,
			rankEnv + "=" + strconv.Itoa(rank), sizeEnv + "=" + strconv.Itoa(size),
			fmt.Sprintf("%s=%d,%d", cellEnv, cellSize, cells), perEnv + "=" + strconv.Itoa(per)}, extraEnv...)
		p := startProc(t, rank, env...)
		j.procs = append(j.procs, p)
		pids[rank] = strconv.Itoa(p.cmd.Process.Pid)
	}
	for _, p := range j.procs {
		p.send(t, "pids "+strings.Join(pids, " "))
	}
	var selfPIDs []int
	for _, s := range pids {
		pid, _ := strconv.Atoi(s)
		selfPIDs = append(selfPIDs, pid)
	}
	if self >= 0 {
		fastbox := 0
		for _, kv := range extraEnv {
			if v, ok := strings.CutPrefix(kv, fbEnv+"="); ok {
				fastbox, _ = strconv.Atoi(v)
			}
		}
		e, err := Create(Config{Job: j.name, Rank: self, NodeRanks: seq(size), PIDs: selfPIDs, CellSize: cellSize, Cells: cells, Fastbox: fastbox})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		j.self = e
	}
	j.fence(t, "created")
	if j.self != nil {
		if err := j.self.Attach(); err != nil {
			t.Fatal(err)
		}
	}
	j.fence(t, "attached")
	if j.self != nil {
		if err := j.self.Unlink(); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range j.procs {
		p.expect(t, "unlinked")
	}
	if l := leftovers(t, j.name); len(l) != 0 {
		t.Fatalf("region files left after Unlink: %v", l)
	}
	return j
}

// fence waits for every child to report step, then lets them all go on.
func (j *testJob) fence(t testing.TB, step string) {
	t.Helper()
	for _, p := range j.procs {
		p.expect(t, step)
	}
	for _, p := range j.procs {
		p.send(t, "go")
	}
}

// finish collects every child's last line and exit status; it returns the skip
// messages.
func (j *testJob) finish(t testing.TB) []string {
	t.Helper()
	var skips []string
	for _, p := range j.procs {
		for {
			l := p.next(t)
			if l == "ok" {
				break
			}
			if strings.HasPrefix(l, "skip ") {
				skips = append(skips, l[5:])
				continue
			}
			t.Fatalf("rank %d said %q:\n%s", p.rank, l, p.stderr)
		}
		p.in.Close()
		if err := p.cmd.Wait(); err != nil {
			t.Fatalf("rank %d: %v:\n%s", p.rank, err, p.stderr)
		}
	}
	return skips
}

// TestMultiProcessExchange: 2 to 4 processes exchange checksummed messages of sizes
// 0, 1, cell-1, cell, fastbox-1, fastbox, fastbox+1... all-to-all, self included;
// order per sender is checked across the fastbox and the queue.
func TestMultiProcessExchange(t *testing.T) {
	per := 2000
	if raceEnabled || testing.Short() {
		per = 300
	}
	for _, tc := range []struct{ ranks, cellSize, cells, fastbox int }{
		{2, 0, 0, 0},
		{2, 100, 4, 0},
		{4, 0, 0, 0},
		{4, 1000, 8, 0},
		{4, 64, 2, 0},
		{4, 1000, 4, 40},  // fastbox-sized and larger messages alternate
		{4, 0, 0, -1},     // no fastboxes
		{3, 200, 1, 100},  // one cell: the fastbox often busy
		{4, 5000, 64, 16}, // many small messages queued behind a busy fastbox
	} {
		t.Run(fmt.Sprintf("ranks%d/cell%d/cells%d/fastbox%d", tc.ranks, tc.cellSize, tc.cells, tc.fastbox), func(t *testing.T) {
			j := startJob(t, "alltoall", tc.ranks, -1, tc.cellSize, tc.cells, per, fmt.Sprintf("%s=%d", fbEnv, tc.fastbox))
			j.finish(t)
		})
	}
}

// TestMultiProcessReadFrom: a 64 MiB single-copy read from another process, an
// unaligned piece of it, and a read running into an inaccessible page.
func TestMultiProcessReadFrom(t *testing.T) {
	j := startJob(t, "readfrom", 2, -1, 0, 4, 64<<20)
	if skips := j.finish(t); len(skips) > 0 {
		t.Skip(skips[0])
	}
}

// TestMultiProcessReadFromRefused: reading a process one may not ptrace gives
// ErrNoSingleCopy (from the kernel's EPERM), remembered for that peer.
func TestMultiProcessReadFromRefused(t *testing.T) {
	holder := startProc(t, 0, childEnv+"=holder")
	l := holder.next(t)
	addr, ok := strings.CutPrefix(l, "addr ")
	if !ok {
		t.Fatalf("holder said %q", l)
	}
	reader := startProc(t, 1, childEnv+"=noperm", jobEnv+"="+jobName("noperm"),
		perEnv+"="+strconv.Itoa(holder.cmd.Process.Pid), argEnv+"="+addr)
	reader.expect(t, "ok")
	if err := reader.cmd.Wait(); err != nil {
		t.Fatalf("reader: %v\n%s", err, reader.stderr)
	}
}

// TestMultiProcessPeerDied: messages a killed process sent stay deliverable, giving
// its cells back does not fault, and sends to it run out of cells with ErrAgain (after
// one message more, which lands in the dead rank's fastbox).
func TestMultiProcessPeerDied(t *testing.T) {
	const sent, cells = 5, 8
	j := startJob(t, "sendanddie", 2, 0, 64, cells, 0, argEnv+"="+strconv.Itoa(sent))
	p := j.procs[0]
	p.expect(t, "sent")
	p.cmd.Process.Kill()
	p.cmd.Wait()
	var tags []int32
	n := j.self.Poll(func(h *transport.Header, payload []byte) {
		if len(payload) != 1 || payload[0] != byte(h.Tag) {
			t.Errorf("message %d: payload %v", h.Tag, payload)
		}
		tags = append(tags, h.Tag)
	})
	if n != sent || fmt.Sprint(tags) != "[0 1 2 3 4]" || j.self.Err() != nil {
		t.Fatalf("Poll = %d %v, Err %v", n, tags, j.self.Err())
	}
	for i := 0; ; i++ {
		err := j.self.Send(1, &transport.Header{}, []byte("to the dead"))
		if errors.Is(err, transport.ErrAgain) {
			if i != cells+1 {
				t.Fatalf("ErrAgain after %d sends, want %d", i, cells+1)
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}
