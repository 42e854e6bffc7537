package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"mpix/core/pmi"
	"mpix/shm"
)

const (
	// killGrace is how long ranks get between SIGTERM and SIGKILL when the
	// job ends early.
	killGrace = 500 * time.Millisecond
	// reapWait bounds the wait for ranks to disappear after SIGKILL.
	reapWait = time.Second
	// pmiDrain bounds the wait, after a rank's process exits, for its PMI
	// connection to be read to the end, so that an abort or finalize sent
	// just before exiting is not missed.
	pmiDrain = 300 * time.Millisecond
	// pmiFD is the descriptor number of the PMI socket in a rank
	// (ExtraFiles[0]).
	pmiFD = 3
)

// job is one run of N ranks.
type job struct {
	opts  *options
	n     int        // ranks in all sections
	secs  []*section // rank r runs secs[r]
	cpus  [][]int    // rank r is bound to cpus[r]; nil: no binding
	out   *outputs
	srv   *pmi.Server
	port  string // PMI_PORT address in -pmi-port mode
	procs []*exec.Cmd
	exits chan exitReport
}

// exitReport is one rank's end: how its process ended and what PMI saw.
type exitReport struct {
	rank  int
	state *os.ProcessState
	pmi   pmi.RankStatus
}

// newJob prepares a job of n ranks; the sections' programs are resolved.
func newJob(opts *options, n int) *job {
	j := &job{
		opts:  opts,
		n:     n,
		out:   newOutputs(opts.prepend),
		procs: make([]*exec.Cmd, n),
		exits: make(chan exitReport, n),
	}
	for _, s := range opts.sections {
		for range s.n {
			j.secs = append(j.secs, s)
		}
	}
	return j
}

// run starts the ranks, watches them and returns mpixexec's exit status.
func (j *job) run() int {
	sigc := make(chan os.Signal, 4)
	signal.Notify(sigc, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigc)
	// SIGUSR1 and SIGUSR2 are the user's to send to the ranks, as Hydra
	// forwards them.
	usr := make(chan os.Signal, 8)
	signal.Notify(usr, syscall.SIGUSR1, syscall.SIGUSR2)
	defer signal.Stop(usr)

	var err error
	if j.cpus, err = rankCPUs(j.opts.bind, j.n); err != nil {
		fmt.Fprintf(os.Stderr, "mpixexec: %v\n", err)
		return 1
	}
	defer j.out.close()
	// Create the output files before any rank starts.
	for r := range j.n {
		for _, p := range []struct{ opt, pattern string }{{"-outfile-pattern", j.opts.outPattern}, {"-errfile-pattern", j.opts.errPattern}} {
			if _, err := j.out.dest(p.pattern, r, nil); err != nil {
				fmt.Fprintf(os.Stderr, "mpixexec: %s: %v\n", p.opt, err)
				return 1
			}
		}
	}

	j.srv = pmi.NewServer(j.n)
	defer j.srv.Close()
	defer removeSegments(j.srv.KVSName())
	if j.opts.pmiPort {
		addr, err := j.srv.ListenTCP("127.0.0.1:0")
		if err != nil {
			fmt.Fprintf(os.Stderr, "mpixexec: %v\n", err)
			return 1
		}
		j.port = addr
	}

	stdin, closeStdin, err := rank0Stdin()
	if err != nil {
		fmt.Fprintf(os.Stderr, "mpixexec: standard input: %v\n", err)
		return 1
	}
	started := 0
	for r := range j.n {
		in := stdin
		if r != 0 {
			in = nil // /dev/null
		}
		if err := j.start(r, in); err != nil {
			closeStdin()
			code, why := describeExecError(err)
			fmt.Fprintf(os.Stderr, "mpixexec: cannot start rank %d (%s): %s\n", r, j.secs[r].prog, why)
			j.signalAll(syscall.SIGKILL)
			j.reap(started, time.Now().Add(reapWait))
			return code
		}
		started++
	}
	closeStdin()
	return j.watch(sigc, usr)
}

// start starts rank r with standard input in.
func (j *job) start(r int, in *os.File) error {
	s := j.secs[r]
	cmd := exec.Command(s.path, s.args...)
	cmd.Args[0] = s.prog
	cmd.Dir = s.wdir
	cmd.Stdin = in
	var closeAfter []*os.File
	defer func() {
		for _, f := range closeAfter {
			f.Close()
		}
	}()
	for _, o := range []struct {
		pattern string
		def     *sink
		to      *io.Writer
	}{{j.opts.outPattern, j.out.stdout, &cmd.Stdout}, {j.opts.errPattern, j.out.stderr, &cmd.Stderr}} {
		dst, err := j.out.dest(o.pattern, r, o.def)
		if err != nil {
			return fmt.Errorf("output file: %w", err)
		}
		w, c, err := j.out.writer(dst, r)
		if err != nil {
			return err
		}
		if c != nil {
			closeAfter = append(closeAfter, c)
		}
		*o.to = w
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid:   true,            // its own group, killed as a whole
		Pdeathsig: syscall.SIGKILL, // dies with mpixexec
	}
	env := j.env(r)
	var child *os.File
	if j.port == "" {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("socketpair: %w", err)
		}
		parent := os.NewFile(uintptr(fds[0]), "pmi")
		child = os.NewFile(uintptr(fds[1]), "pmi-child")
		conn, err := net.FileConn(parent)
		parent.Close()
		if err != nil {
			child.Close()
			return err
		}
		if err := j.srv.Serve(r, conn); err != nil {
			child.Close()
			return err
		}
		cmd.ExtraFiles = []*os.File{child} // descriptor 3 in the rank
		env = append(env,
			"PMI_FD="+strconv.Itoa(pmiFD),
			"PMI_RANK="+strconv.Itoa(r),
			"PMI_SIZE="+strconv.Itoa(j.n))
	} else {
		env = append(env, "PMI_PORT="+j.port, "PMI_ID="+strconv.Itoa(r))
	}
	cmd.Env = env
	var cpus []int
	if j.cpus != nil {
		cpus = j.cpus[r]
	}
	err := startOn(cmd, cpus)
	if child != nil {
		child.Close()
	}
	if err != nil {
		return err
	}
	j.procs[r] = cmd
	go func() {
		cmd.Wait()
		j.exits <- exitReport{rank: r, state: cmd.ProcessState, pmi: j.srv.WaitClosed(r, pmiDrain)}
	}()
	return nil
}

// inheritedDrop lists variables of mpixexec's own environment that must not
// reach the ranks: they describe a job mpixexec may itself be part of.
var inheritedDrop = map[string]bool{
	"PMI_FD": true, "PMI_PORT": true, "PMI_ID": true, "PMI_RANK": true, "PMI_SIZE": true,
	"PMI_SPAWNED": true, "MPIX_LOCAL_RANK": true, "MPIX_LOCAL_SIZE": true,
}

// env returns rank r's environment without the PMI variables.
func (j *job) env(r int) []string {
	return rankEnviron(j.opts, j.secs[r], os.Environ(), r, j.n)
}

// rankEnviron builds the environment of rank r of n, running section s, without
// the PMI variables: what the section's -env{all,none,list} (else the global
// -genv{all,none,list}; by default all) lets through of mpixexec's own
// environment, then the -genv settings, then the section's -env settings,
// then the local rank variables the ranks need. Later settings win.
func rankEnviron(o *options, s *section, environ []string, r, n int) []string {
	pol := o.gpol
	if s.pol.set {
		pol = s.pol
	}
	var env []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if inheritedDrop[k] || pol.mode == envNone || (pol.mode == envList && !contains(pol.list, k)) {
			continue
		}
		env = append(env, kv)
	}
	for _, kv := range o.genv {
		env = append(env, kv[0]+"="+kv[1])
	}
	for _, kv := range s.env {
		env = append(env, kv[0]+"="+kv[1])
	}
	// All ranks run on this node.
	return append(env,
		"MPIX_LOCAL_RANK="+strconv.Itoa(r),
		"MPIX_LOCAL_SIZE="+strconv.Itoa(n))
}

// rank0Stdin returns the standard input for rank 0 and a function that
// closes mpixexec's copy once the ranks are started. It is mpixexec's own
// standard input, except for a terminal: ranks run in their own process
// groups, in the background as the terminal sees it, and would be stopped
// by SIGTTIN on reading it, so they read a pipe that mpixexec fills.
func rank0Stdin() (*os.File, func(), error) {
	if _, err := os.Stdin.Stat(); err != nil {
		return nil, func() {}, nil // closed: /dev/null
	}
	if !isTerminal(os.Stdin) {
		return os.Stdin, func() {}, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	go func() {
		io.Copy(w, os.Stdin)
		w.Close()
	}()
	return r, func() { r.Close() }, nil
}

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}

// watch waits for the ranks, ends the job when one fails, and returns the
// exit status.
func (j *job) watch(sigc, usr <-chan os.Signal) int {
	var (
		code      int
		ending    bool
		remaining = j.n
		events    = j.srv.Events()
		timeout   <-chan time.Time
		killTimer <-chan time.Time
		giveUp    <-chan time.Time
	)
	if j.opts.timeout > 0 {
		t := time.NewTimer(j.opts.timeout)
		defer t.Stop()
		timeout = t.C
	}
	// fail ends the job with status c, after printing line.
	fail := func(line string, c int) {
		if ending {
			return
		}
		ending = true
		code = c
		fmt.Fprintln(os.Stderr, line)
		j.signalAll(syscall.SIGTERM)
		killTimer = time.After(killGrace)
		giveUp = time.After(killGrace + reapWait)
	}
loop:
	for remaining > 0 {
		select {
		case rep := <-j.exits:
			remaining--
			if line, c, failed := judge(rep); failed {
				fail(line, c)
			}
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			switch ev.Kind {
			case pmi.EventAbort:
				fail(abortLine(ev.Rank, ev.Code, ev.Message), abortStatus(ev.Code))
			case pmi.EventError:
				if !ending {
					fmt.Fprintf(os.Stderr, "mpixexec: warning: rank %d: PMI: %s\n", ev.Rank, ev.Message)
				}
			}
		case sig := <-usr:
			if !ending {
				j.forward(sig)
			}
		case sig := <-sigc:
			if ending {
				j.signalAll(syscall.SIGKILL) // impatient user: no more grace
				continue
			}
			s, _ := sig.(syscall.Signal)
			fail(fmt.Sprintf("mpixexec: caught signal %d (%s), ending the job", int(s), s), 128+int(s))
		case <-timeout:
			fail(fmt.Sprintf("mpixexec: job timed out after %s s", j.opts.timeoutText), 124)
		case <-killTimer:
			killTimer = nil
			j.signalAll(syscall.SIGKILL)
		case <-giveUp:
			break loop // SIGKILLed processes that still linger: go anyway
		}
	}
	// Nothing started by the job outlives it: kill what remains of the
	// ranks' process groups (background children of finished ranks).
	j.signalAll(syscall.SIGKILL)
	return code
}

// judge decides whether a rank's end fails the job, and if so returns the
// line to print and the exit status.
func judge(rep exitReport) (string, int, bool) {
	st := rep.pmi
	if st.Aborted {
		return abortLine(rep.rank, st.AbortCode, st.AbortMessage), abortStatus(st.AbortCode), true
	}
	pid := rep.state.Pid()
	ws, _ := rep.state.Sys().(syscall.WaitStatus)
	switch {
	case ws.Signaled():
		sig := ws.Signal()
		return fmt.Sprintf("mpixexec: rank %d (pid %d) killed by signal %d (%s)", rep.rank, pid, int(sig), sig), 128 + int(sig), true
	case ws.ExitStatus() != 0:
		return fmt.Sprintf("mpixexec: rank %d (pid %d) exited with code %d", rep.rank, pid, ws.ExitStatus()), ws.ExitStatus(), true
	case st.Initialized && !st.Finalized:
		return fmt.Sprintf("mpixexec: rank %d (pid %d) exited without calling MPI_Finalize", rep.rank, pid), 1, true
	}
	return "", 0, false
}

// abortLine describes a rank's abort: MPI_Abort, or an error handler that aborted the
// job, whose reason the library sends as "<handler>: <call>: <message>".
func abortLine(rank, code int, msg string) string {
	msg = strings.Join(strings.Fields(msg), " ") // one line: the message may not span several
	for _, h := range []string{"MPI_ERRORS_ARE_FATAL", "MPI_ERRORS_ABORT", "a memory fault"} {
		if what, ok := strings.CutPrefix(msg, h+": "); ok {
			return fmt.Sprintf("mpixexec: rank %d: %s; job aborted by %s", rank, what, h)
		}
	}
	line := fmt.Sprintf("mpixexec: rank %d called MPI_Abort (code %d)", rank, code)
	if msg != "" {
		line += ": " + msg
	}
	return line
}

// abortStatus is mpixexec's exit status for an MPI_Abort with code: the
// code as the system keeps it (its low 8 bits), or 1 where that is 0.
func abortStatus(code int) int {
	if s := code & 0xff; s != 0 {
		return s
	}
	return 1
}

// signalAll sends sig to the process group of every started rank. Groups
// that are gone are skipped silently.
func (j *job) signalAll(sig syscall.Signal) {
	for _, cmd := range j.procs {
		if cmd == nil || cmd.Process == nil {
			continue
		}
		if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			// EPERM and the like: nothing better to do than try the
			// process itself.
			cmd.Process.Signal(sig)
		}
	}
}

// forward sends sig to every rank's process (not its group: a rank's own
// children are its business, as under Hydra). Ranks that are gone are
// skipped.
func (j *job) forward(sig os.Signal) {
	for _, cmd := range j.procs {
		if cmd != nil && cmd.Process != nil {
			cmd.Process.Signal(sig) // os.ErrProcessDone for a rank already reaped
		}
	}
}

// reap collects the exits of n started ranks, up to deadline.
func (j *job) reap(n int, deadline time.Time) {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	for ; n > 0; n-- {
		select {
		case <-j.exits:
		case <-t.C:
			return
		}
	}
}

// removeSegments deletes the job's shared-memory segment files. Ranks unlink them once
// every rank has attached; a job killed during MPI_Init would leave them behind.
func removeSegments(kvsname string) {
	files, _ := filepath.Glob(filepath.Join(shm.Dir, "mpix-"+kvsname+"-*"))
	for _, f := range files {
		os.Remove(f)
	}
}
