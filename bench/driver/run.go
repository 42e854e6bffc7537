package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// binDir holds the benchmark binaries, one per program and build.
const binDir = "build/bench"

// binary is the path of a program built for a build.
func binary(program, build string) string {
	return filepath.Join(binDir, program+"_"+build)
}

// buildAll compiles every bench/*.c with every build's C compiler (OpenMP programs with
// -fopenmp, and extraFlags), and every bench/*.f90 with its Fortran compiler, together
// with bench/fortran/PROGRAM_c.c when the program has a C half. It returns why a
// program could not be built, by "program_build"; compiler output goes to
// build/bench/build.log.
func buildAll(log *os.File) (map[string]string, []string, error) {
	srcs, err := filepath.Glob("bench/*.c")
	if err != nil {
		return nil, nil, err
	}
	fsrcs, err := filepath.Glob("bench/*.f90")
	if err != nil {
		return nil, nil, err
	}
	srcs = append(srcs, fsrcs...)
	sort.Strings(srcs)
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return nil, nil, err
	}
	failed := map[string]string{}
	var programs []string
	for _, src := range srcs {
		fortran := strings.HasSuffix(src, ".f90")
		prog := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(src), ".c"), ".f90")
		programs = append(programs, prog)
		flags := []string{"-O2"}
		if text, err := os.ReadFile(src); err == nil && usesOpenMP(string(text)) {
			flags = append(flags, "-fopenmp")
		}
		inputs := []string{src}
		if half := filepath.Join("bench", "fortran", prog+"_c.c"); fortran && fileExists(half) {
			inputs = append(inputs, half)
		}
		for _, b := range builds {
			out := binary(prog, b.Name)
			args := append(append(append([]string{}, flags...), extraFlags[prog+"_"+b.Name]...), "-o", out)
			args = append(args, inputs...)
			compiler := b.CC
			if fortran {
				compiler = b.FC
			}
			if reason := compile(log, compiler, args); reason != "" {
				failed[prog+"_"+b.Name] = reason
				os.Remove(out)
			}
		}
	}
	return failed, programs, nil
}

// extraFlags are compiler flags for one program's build, by "program_build":
// bench/part.c against Open MPI 4.1, which has no partitioned communication, replaces
// the partitioned calls by what Open MPI 5's part/persist component does with its
// point-to-point layer (one MPI_Isend per partition as it becomes ready).
var extraFlags = map[string][]string{
	"part_openmpi": {"-DPART_EMULATE"},
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func usesOpenMP(src string) bool {
	return strings.Contains(src, "#pragma omp") || strings.Contains(src, "<omp.h>") || strings.Contains(strings.ToLower(src), "!$omp")
}

// compile runs one compiler command; it returns "" or why it failed.
func compile(log *os.File, cc string, args []string) string {
	if _, err := exec.LookPath(cc); err != nil {
		return cc + " not found (make deps installs it)"
	}
	fmt.Fprintf(log, "$ %s %s\n", cc, strings.Join(args, " "))
	var out bytes.Buffer
	cmd := exec.Command(cc, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	log.Write(out.Bytes())
	if err == nil {
		return ""
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.Contains(l, "error") {
			return "build failed: " + strings.TrimSpace(l)
		}
	}
	return "build failed: " + err.Error()
}

// launchCommand is the command line that runs a program on np processes with one
// implementation, passing env to every process through the launcher. A build
// without a launcher runs the program directly (one process).
func launchCommand(im Impl, np int, env map[string]string, bin string, args []string) []string {
	n := strconv.Itoa(np)
	var cmd []string
	switch im.Build {
	case "mpix":
		cmd = []string{"build/bin/mpixexec", "-n", n}
		for _, k := range sortedKeys(env) {
			cmd = append(cmd, "-env", k, env[k])
		}
	case "mpich":
		cmd = []string{"mpiexec.hydra", "-launcher", "fork", "-n", n}
		for _, k := range sortedKeys(env) {
			cmd = append(cmd, "-genv", k, env[k])
		}
	case "openmpi":
		cmd = []string{"mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-n", n}
		for _, k := range sortedKeys(env) {
			cmd = append(cmd, "-x", k+"="+env[k])
		}
	}
	return append(append(cmd, bin), args...)
}

// launcherEnv is added to the driver's environment for the launcher itself: Open MPI
// refuses root without the first two, and warns about unused network components on a
// machine without them.
var launcherEnv = map[string][]string{
	"openmpi": {
		"OMPI_ALLOW_RUN_AS_ROOT=1",
		"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
		"OMPI_MCA_btl_base_warn_component_unused=0",
	},
}

func sortedKeys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func mergeEnv(maps ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// Outcome is what one launch produced.
type Outcome struct {
	Stdout, Stderr string
	Wall           time.Duration
	Err            string // "" on success, else why it failed
}

// launch runs a command line in its own process group with no standard input, and
// ends the whole group (SIGTERM, then SIGKILL) when it runs past timeout.
func launch(argv []string, extraEnv []string, timeout time.Duration) Outcome {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), extraEnv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 3 * time.Second
	start := time.Now()
	err := cmd.Run()
	o := Outcome{Wall: time.Since(start), Stdout: stdout.String(), Stderr: stderr.String()}
	if cmd.Process != nil {
		// Whatever the launcher left behind (daemons, stuck ranks) goes with it.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		o.Err = fmt.Sprintf("timed out after %s", timeout.Round(time.Second))
	case err != nil:
		o.Err = failureReason(err, o.Stderr)
	}
	return o
}

// failureReason picks the most telling line of a failed run's error output: one
// saying something is not implemented, else the first error, else the last line.
func failureReason(err error, stderr string) string {
	var lines []string
	for _, l := range strings.Split(stderr, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	pick := ""
	for _, want := range []string{"not implemented", "error"} {
		for _, l := range lines {
			if strings.Contains(strings.ToLower(l), want) {
				pick = l
				break
			}
		}
		if pick != "" {
			break
		}
	}
	if pick == "" && len(lines) > 0 {
		pick = lines[len(lines)-1]
	}
	if len(pick) > 200 {
		pick = pick[:200] + "…"
	}
	if pick == "" {
		return err.Error()
	}
	return pick + " (" + err.Error() + ")"
}
