package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

var (
	launcher string // the mpixexec binary built for the tests
	rankProg string // this test binary, run as a rank
)

func TestMain(m *testing.M) {
	if os.Getenv(rankEnv) == "1" {
		os.Exit(rankMain(os.Args[1:]))
	}
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "mpixexec-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	launcher = filepath.Join(dir, "mpixexec")
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	build := exec.Command(goTool, "build", "-o", launcher, ".")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building mpixexec: %v\n%s", err, out)
		return 1
	}
	if rankProg, err = os.Executable(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// result is how one launcher run went.
type result struct {
	stdout, stderr string
	code           int
	elapsed        time.Duration
}

// rankEnvVars make this test binary act as a rank. A race-enabled binary
// sleeps a second before exiting 0 unless told not to.
var rankEnvVars = []string{rankEnv + "=1", "GORACE=atexit_sleep_ms=0"}

// launch runs mpixexec with args; env is added to the test's environment
// (which carries rankEnvVars to the ranks).
func launch(t *testing.T, stdin string, env []string, args ...string) result {
	t.Helper()
	return launchWith(t, launcher, stdin, env, args...)
}

func launchWith(t *testing.T, prog, stdin string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Env = append(append(os.Environ(), rankEnvVars...), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	start := time.Now()
	err := cmd.Run()
	res := result{out.String(), errb.String(), 0, time.Since(start)}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("running %s: %v", prog, err)
		}
		res.code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			t.Fatalf("%s killed by %v; stderr:\n%s", prog, ws.Signal(), res.stderr)
		}
	}
	if ctx.Err() != nil {
		t.Fatalf("%s %q hung; stderr:\n%s", prog, args, res.stderr)
	}
	return res
}

// launcherLines returns the lines mpixexec itself wrote to stderr.
func launcherLines(stderr string) []string {
	var lines []string
	for l := range strings.Lines(stderr) {
		if strings.HasPrefix(l, "mpixexec:") {
			lines = append(lines, strings.TrimSuffix(l, "\n"))
		}
	}
	return lines
}

// modes are the two ways mpixexec hands PMI to ranks.
var modes = []struct {
	name  string
	flags []string
}{
	{"PMI_FD", nil},
	{"PMI_PORT", []string{"-pmi-port"}},
}

func TestSuccess(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			const n = 4
			args := append(append([]string{"-n", strconv.Itoa(n)}, mode.flags...), rankProg, "ok")
			res := launch(t, "", nil, args...)
			if res.code != 0 || res.stderr != "" {
				t.Fatalf("exit %d, stderr:\n%s", res.code, res.stderr)
			}
			for r := range n {
				want := fmt.Sprintf("rank %d of %d ok local %d/%d singleton false universe %d\n", r, n, r, n, n)
				if !strings.Contains(res.stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, res.stdout)
				}
			}
		})
	}
}

// TestFailures checks the exit status, the one line printed, and how fast
// the other ranks are ended when one rank fails.
func TestFailures(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		line string // regular expression for the one launcher line
	}{
		{"exit code", []string{"exit", "1", "3"}, 3,
			`^mpixexec: rank 1 \(pid \d+\) exited with code 3$`},
		{"exit code rank 0", []string{"exit", "0", "42"}, 42,
			`^mpixexec: rank 0 \(pid \d+\) exited with code 42$`},
		{"no finalize", []string{"nofinalize", "2"}, 1,
			`^mpixexec: rank 2 \(pid \d+\) exited without calling MPI_Finalize$`},
		{"abort", []string{"abort", "1", "5", "bad", "input = x%"}, 5,
			`^mpixexec: rank 1 called MPI_Abort \(code 5\): bad input = x%$`},
		{"abort code 0", []string{"abort", "2", "0", "zero"}, 1,
			`^mpixexec: rank 2 called MPI_Abort \(code 0\): zero$`},
		{"abort no message", []string{"abort", "0", "9"}, 9,
			`^mpixexec: rank 0 called MPI_Abort \(code 9\)$`},
	}
	for _, mode := range modes {
		for _, tt := range tests {
			t.Run(mode.name+"/"+tt.name, func(t *testing.T) {
				args := append(append([]string{"-n", "3"}, mode.flags...), rankProg)
				res := launch(t, "", nil, append(args, tt.args...)...)
				lines := launcherLines(res.stderr)
				if res.code != tt.code {
					t.Errorf("exit %d, want %d", res.code, tt.code)
				}
				if len(lines) != 1 || !regexp.MustCompile(tt.line).MatchString(lines[0]) {
					t.Errorf("launcher lines %q, want one matching %s", lines, tt.line)
				}
				if res.elapsed > 2*time.Second {
					t.Errorf("job took %v to end, want < 2s", res.elapsed)
				}
				if t.Failed() {
					t.Logf("stderr:\n%s", res.stderr)
				}
			})
		}
	}
}

func TestKilledBySignal(t *testing.T) {
	// Rank 1 is a shell that kills itself with SIGSEGV; rank 0 sleeps.
	res := launch(t, "", nil, "-n", "2", "sh", "-c",
		`if [ "$MPIX_LOCAL_RANK" = 1 ]; then kill -SEGV $$; fi; sleep 30`)
	lines := launcherLines(res.stderr)
	want := regexp.MustCompile(`^mpixexec: rank 1 \(pid \d+\) killed by signal 11 \(segmentation fault\)$`)
	if res.code != 128+11 || len(lines) != 1 || !want.MatchString(lines[0]) {
		t.Errorf("exit %d, lines %q; want 139 and one line matching %s", res.code, lines, want)
	}
	if res.elapsed > 2*time.Second {
		t.Errorf("job took %v to end, want < 2s", res.elapsed)
	}
}

func TestTimeout(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		args []string
		text string
	}{
		{"flag", nil, []string{"-timeout", "0.5"}, "0.5"},
		{"env", []string{"MPIEXEC_TIMEOUT=1"}, nil, "1"},
		{"flag beats env", []string{"MPIEXEC_TIMEOUT=100"}, []string{"--timeout=0.5"}, "0.5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(append([]string{"-n", "2"}, tt.args...), rankProg, "hang")
			res := launch(t, "", tt.env, args...)
			lines := launcherLines(res.stderr)
			want := "mpixexec: job timed out after " + tt.text + " s"
			if res.code != 124 || len(lines) != 1 || lines[0] != want {
				t.Errorf("exit %d, lines %q; want 124 and %q", res.code, lines, want)
			}
			limit, _ := strconv.ParseFloat(tt.text, 64)
			if res.elapsed > time.Duration(limit*float64(time.Second))+2*time.Second {
				t.Errorf("took %v", res.elapsed)
			}
		})
	}
}

func TestEnvAndArgs(t *testing.T) {
	res := launch(t, "", nil, "-n", "2", "-env", "FOO", "bar baz=1", "--env", "EMPTY", "", rankProg, "env", "FOO")
	if res.code != 0 {
		t.Fatalf("exit %d:\n%s", res.code, res.stderr)
	}
	for r := range 2 {
		if want := fmt.Sprintf("rank %d FOO=bar baz=1\n", r); !strings.Contains(res.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, res.stdout)
		}
	}
	// Options stop at the program: its own look-alike options pass through.
	res = launch(t, "", nil, "-n", "1", "--", rankProg, "args", "-n", "5", "-env", "A", "B", "--", "-timeout")
	if want := `args ["-n" "5" "-env" "A" "B" "--" "-timeout"]` + "\n"; res.stdout != want || res.code != 0 {
		t.Errorf("got %q (exit %d), want %q", res.stdout, res.code, want)
	}
}

// TestRankEnvironment checks the PMI variables each mode hands out, and that
// stale ones from mpixexec's own environment do not leak through.
func TestRankEnvironment(t *testing.T) {
	stale := []string{"PMI_FD=99", "PMI_PORT=stale:1", "PMI_ID=7", "PMI_RANK=9", "PMI_SIZE=10", "MPIX_LOCAL_SIZE=10"}
	script := `echo "$MPIX_LOCAL_RANK fd=$PMI_FD rank=$PMI_RANK size=$PMI_SIZE port=$PMI_PORT id=$PMI_ID local=$MPIX_LOCAL_SIZE"`
	res := launch(t, "", stale, "-n", "2", "sh", "-c", script)
	for _, want := range []string{"0 fd=3 rank=0 size=2 port= id= local=2\n", "1 fd=3 rank=1 size=2 port= id= local=2\n"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("PMI_FD mode: stdout lacks %q:\n%s", want, res.stdout)
		}
	}
	res = launch(t, "", stale, "-n", "2", "-pmi-port", "sh", "-c", script)
	re := regexp.MustCompile(`(?m)^([01]) fd= rank= size= port=127\.0\.0\.1:\d+ id=([01]) local=2$`)
	m := re.FindAllStringSubmatch(res.stdout, -1)
	if len(m) != 2 || m[0][1] != m[0][2] || m[1][1] != m[1][2] {
		t.Errorf("PMI_PORT mode: stdout\n%s", res.stdout)
	}
}

func TestStdin(t *testing.T) {
	res := launch(t, "hello\nworld\n", nil, "-n", "3", rankProg, "stdin")
	for _, want := range []string{`rank 0 stdin "hello\nworld\n"`, `rank 1 stdin ""`, `rank 2 stdin ""`} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("stdout lacks %s:\n%s", want, res.stdout)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{nil, 2, "no program to run"},
		{[]string{"-n", "2"}, 2, "no program to run"},
		{[]string{"-n"}, 2, "needs a value"},
		{[]string{"-n", "0", "true"}, 2, "bad number of processes"},
		{[]string{"-np", "x", "true"}, 2, "bad number of processes"},
		{[]string{"-bogus", "true"}, 2, "unknown option -bogus"},
		{[]string{"-env", "K"}, 2, "needs a name and a value"},
		{[]string{"-timeout", "soon", "true"}, 2, "bad -timeout"},
		{[]string{"-bind-to", "cores", "true"}, 2, `bad -bind-to "cores"`},
		{[]string{"-n", "3", "-ppn", "2", "true"}, 2, "-n 3 with -ppn 2 needs 2 nodes"},
		{[]string{"true", ":"}, 2, "no program after the last ':'"},
		{[]string{"-map-by", "core", "true"}, 2, "unknown option -map-by"},
		{[]string{"-n", "1", "/nonexistent/prog"}, 127, "no such file or directory"},
		{[]string{"-n", "1", "no-such-program-anywhere"}, 127, "command not found"},
	}
	plain := filepath.Join(t.TempDir(), "not-executable")
	os.WriteFile(plain, []byte("data"), 0o644)
	tests = append(tests, struct {
		args []string
		code int
		msg  string
	}{[]string{"-n", "1", plain}, 126, "cannot run " + plain + ": permission denied"})
	for _, tt := range tests {
		res := launch(t, "", nil, tt.args...)
		first, _, _ := strings.Cut(res.stderr, "\n")
		if res.code != tt.code || !strings.HasPrefix(first, "mpixexec: ") || !strings.Contains(first, tt.msg) {
			t.Errorf("mpixexec %q: exit %d, first line %q; want %d and %q", tt.args, res.code, first, tt.code, tt.msg)
		}
		if tt.code == 2 && !strings.Contains(res.stderr, "usage: mpixexec") {
			t.Errorf("mpixexec %q: no usage text", tt.args)
		}
		if tt.code != 2 && len(strings.Split(strings.TrimSpace(res.stderr), "\n")) != 1 {
			t.Errorf("mpixexec %q: more than one line:\n%s", tt.args, res.stderr)
		}
	}
	for _, h := range []string{"-h", "--help"} {
		res := launch(t, "", nil, h)
		if res.code != 0 || !strings.HasPrefix(res.stdout, "usage: mpixexec") {
			t.Errorf("%s: exit %d, stdout %q", h, res.code, res.stdout)
		}
		// The help names every option it takes, and the launchers for
		// other hosts.
		for _, want := range []string{"-ppn", "-bind-to", "-prepend-rank", "-outfile-pattern", "-errfile-pattern",
			"-wdir", "-envall", "-envnone", "-envlist", "-genvlist", "-genvnone", "-hosts", "-hostfile",
			"-machinefile", "mpiexec.hydra", "srun under Slurm", "SIGUSR1", "':'"} {
			if !strings.Contains(res.stdout, want) {
				t.Errorf("%s: the help does not mention %s", h, want)
			}
		}
	}
}

func TestJudge(t *testing.T) {
	if s := abortStatus(0); s != 1 {
		t.Errorf("abortStatus(0) = %d", s)
	}
	if s := abortStatus(256); s != 1 {
		t.Errorf("abortStatus(256) = %d", s)
	}
	if s := abortStatus(-1); s != 255 {
		t.Errorf("abortStatus(-1) = %d", s)
	}
	for _, c := range []struct{ msg, want string }{
		{"two\nlines  here ", "mpixexec: rank 3 called MPI_Abort (code 4): two lines here"},
		{"", "mpixexec: rank 3 called MPI_Abort (code 4)"},
		{"MPI_ERRORS_ARE_FATAL: MPI_Recv: message truncated (error class 14)",
			"mpixexec: rank 3: MPI_Recv: message truncated (error class 14); job aborted by MPI_ERRORS_ARE_FATAL"},
		{"MPI_ERRORS_ABORT: MPI_Send: invalid rank 9 (error class 6)",
			"mpixexec: rank 3: MPI_Send: invalid rank 9 (error class 6); job aborted by MPI_ERRORS_ABORT"},
	} {
		if l := abortLine(3, 4, c.msg); l != c.want {
			t.Errorf("abortLine(%q) = %q, want %q", c.msg, l, c.want)
		}
	}
}

// processAlive reports whether pid exists and is not a zombie.
func processAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}

// startSleepers starts mpixexec with n sleeping ranks and returns it with
// the ranks' pids once they all run.
func startSleepers(t *testing.T, n int, flags ...string) (*exec.Cmd, *bytes.Buffer, []int) {
	t.Helper()
	dir := t.TempDir()
	args := append(append([]string{"-n", strconv.Itoa(n)}, flags...), rankProg, "sleep")
	cmd := exec.Command(launcher, args...)
	cmd.Env = append(append(os.Environ(), rankEnvVars...), "MPIXEXEC_TEST_PIDDIR="+dir)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	pids := make([]int, n)
	for r := 0; r < n; {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("rank-%d.pid", r)))
		if err == nil && len(b) > 0 {
			if pids[r], err = strconv.Atoi(string(b)); err == nil {
				r++
				continue
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("ranks did not start; stderr:\n%s", errb.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return cmd, &errb, pids
}

// checkGone waits a little for pids to disappear.
func checkGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for _, pid := range pids {
		for processAlive(pid) {
			if time.Now().After(deadline) {
				t.Errorf("rank pid %d survived", pid)
				syscall.Kill(pid, syscall.SIGKILL)
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func TestSignalEndsJob(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, errb, pids := startSleepers(t, 3)
			start := time.Now()
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			elapsed := time.Since(start)
			ee, ok := err.(*exec.ExitError)
			if !ok || ee.ExitCode() != 128+int(sig) {
				t.Errorf("mpixexec ended with %v, want exit %d", err, 128+int(sig))
			}
			if elapsed > 2*time.Second {
				t.Errorf("took %v to end the job", elapsed)
			}
			lines := launcherLines(errb.String())
			if len(lines) != 1 || !strings.Contains(lines[0], fmt.Sprintf("caught signal %d", int(sig))) {
				t.Errorf("launcher lines %q", lines)
			}
			checkGone(t, pids)
		})
	}
}

// TestKillLauncher checks that the ranks die with mpixexec even when it
// gets no chance to clean up.
func TestKillLauncher(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			cmd, _, pids := startSleepers(t, 2, mode.flags...)
			cmd.Process.Kill()
			cmd.Wait()
			checkGone(t, pids)
		})
	}
}

// TestHydra runs the PMI client under MPICH's Hydra.
func TestHydra(t *testing.T) {
	hydra, err := exec.LookPath("mpiexec.hydra")
	if err != nil {
		skipDep(t, "mpiexec.hydra is not installed (Debian package mpich); skipping the Hydra interoperability test")
	}
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			args := append(append([]string{"-n", "3", "-launcher", "fork"}, mode.flags...), rankProg, "ok")
			res := launchWith(t, hydra, "", nil, args...)
			if res.code != 0 {
				t.Fatalf("exit %d, stderr:\n%s", res.code, res.stderr)
			}
			for r := range 3 {
				// Hydra's fork launcher knows no universe size: the client
				// reports the job size.
				want := fmt.Sprintf("rank %d of 3 ok local / singleton false universe 3\n", r)
				if !strings.Contains(res.stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, res.stdout)
				}
			}
		})
	}
	t.Run("abort", func(t *testing.T) {
		res := launchWith(t, hydra, "", nil, "-n", "2", "-launcher", "fork", rankProg, "abort", "1", "6", "bye")
		if res.code != 6 {
			t.Errorf("exit %d, want 6; stderr:\n%s", res.code, res.stderr)
		}
	})
}

// TestMPICHProgram runs a program built with MPICH's own library (and so
// MPICH's own PMI client) under mpixexec.
func TestMPICHProgram(t *testing.T) {
	mpicc, err := exec.LookPath("mpicc.mpich")
	if err != nil {
		skipDep(t, "mpicc.mpich is not installed; skipping")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "hello.c")
	os.WriteFile(src, []byte(`#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int rank, size, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("mpich rank %d of %d sum %d\n", rank, size, sum);
    if (argc > 1 && rank == 1)
        MPI_Abort(MPI_COMM_WORLD, atoi(argv[1]));
    MPI_Finalize();
    return 0;
}
`), 0o644)
	prog := filepath.Join(dir, "hello")
	if out, err := exec.Command(mpicc, "-o", prog, src).CombinedOutput(); err != nil {
		skipDep(t, "mpicc.mpich cannot build a test program: %v\n%s", err, out)
	}
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			res := launch(t, "", nil, append(append([]string{"-n", "3"}, mode.flags...), prog)...)
			if res.code != 0 || launcherLines(res.stderr) != nil {
				t.Fatalf("exit %d, stderr:\n%s", res.code, res.stderr)
			}
			for r := range 3 {
				if want := fmt.Sprintf("mpich rank %d of 3 sum 3\n", r); !strings.Contains(res.stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, res.stdout)
				}
			}
			res = launch(t, "", nil, append(append([]string{"-n", "2"}, mode.flags...), prog, "4")...)
			lines := launcherLines(res.stderr)
			if res.code != 4 || len(lines) != 1 || lines[0] != "mpixexec: rank 1 called MPI_Abort (code 4)" {
				t.Errorf("abort: exit %d, lines %q", res.code, lines)
			}
		})
	}
}
