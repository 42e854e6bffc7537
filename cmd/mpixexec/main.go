// Command mpixexec starts an MPI job of N local processes and serves them
// PMI-1, the protocol mpix (and MPICH) processes use to find each other.
//
// Usage:
//
//	mpixexec [-n N] [-env K V]... [-timeout S] [-pmi-port] [--] prog [args...]
//
// Each rank gets PMI_FD (a socket to mpixexec, descriptor 3), PMI_RANK,
// PMI_SIZE, MPIX_LOCAL_RANK and MPIX_LOCAL_SIZE in its environment; with
// -pmi-port it gets PMI_PORT (a loopback TCP address) and PMI_ID instead of
// PMI_FD, PMI_RANK and PMI_SIZE, as Hydra's -pmi-port does. Ranks inherit
// mpixexec's standard output and error; rank 0 also gets its standard input,
// the other ranks /dev/null.
//
// The job succeeds (exit 0) when every rank exits 0, having called
// MPI_Finalize if it called MPI_Init. The first rank to fail (non-zero exit,
// death by signal, exit after MPI_Init without MPI_Finalize, MPI_Abort)
// ends the job: mpixexec prints one line about it, sends SIGTERM to every
// rank's process group, SIGKILL half a second later, and exits with the
// rank's code (128+N for signal N; the MPI_Abort code, or 1 where that is 0;
// 1 for a missing MPI_Finalize). A timeout (-timeout or MPIEXEC_TIMEOUT, in
// seconds) ends the job with 124; SIGINT, SIGTERM or SIGHUP to mpixexec end
// it with 128+signal. Each rank runs in its own process group, which
// mpixexec kills when the job ends, and dies with SIGKILL if mpixexec itself
// is killed. A program that cannot be found exits 127, one that cannot be
// executed 126, a usage error 2.
package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

const usage = `usage: mpixexec [options] [--] prog [args...]

Start an MPI job of N local processes of prog, serving them PMI-1.

options (one or two leading dashes):
  -n N, -np N      number of processes (default 1)
  -env K V         set K=V in every rank's environment (repeatable;
                   also -genv)
  -timeout S       kill the job after S seconds (exit 124); the
                   environment variable MPIEXEC_TIMEOUT does the same
  -pmi-port        give ranks PMI_PORT+PMI_ID (TCP) instead of PMI_FD
  -h, -help        print this help

Options end at the program name: everything after it goes to prog.
`

// maxRanks bounds -n: each rank costs a process and a socket.
const maxRanks = 4096

// options is a parsed command line.
type options struct {
	n           int
	env         [][2]string
	timeout     time.Duration // 0: none
	timeoutText string        // as the user wrote it, for the message
	pmiPort     bool
	prog        string
	args        []string
}

// errHelp: the user asked for the usage text.
var errHelp = errors.New("help requested")

// parseArgs parses the command line (without the command name). getenv
// reads MPIEXEC_TIMEOUT.
func parseArgs(args []string, getenv func(string) string) (*options, error) {
	o := &options{n: 1}
	timeoutFlag := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			if i < len(args) {
				o.prog, o.args = args[i], args[i+1:]
			}
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			o.prog, o.args = a, args[i+1:]
			break
		}
		name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		name, inline, hasInline := strings.Cut(name, "=")
		// value returns the flag's argument: "-n=4" or "-n 4".
		value := func() (string, error) {
			if hasInline {
				return inline, nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("option %s needs a value", a)
			}
			i++
			return args[i], nil
		}
		switch name {
		case "h", "help":
			return nil, errHelp
		case "n", "np":
			v, err := value()
			if err != nil {
				return nil, err
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > maxRanks {
				return nil, fmt.Errorf("bad number of processes %q (want 1 to %d)", v, maxRanks)
			}
			o.n = n
		case "env", "genv":
			var k, v string
			if hasInline {
				return nil, fmt.Errorf("option -%s takes two arguments: -%s NAME VALUE", name, name)
			}
			if i+2 >= len(args) {
				return nil, fmt.Errorf("option %s needs a name and a value", a)
			}
			k, v = args[i+1], args[i+2]
			i += 2
			if k == "" || strings.ContainsAny(k, "=\x00") {
				return nil, fmt.Errorf("bad environment variable name %q", k)
			}
			o.env = append(o.env, [2]string{k, v})
		case "timeout":
			v, err := value()
			if err != nil {
				return nil, err
			}
			timeoutFlag = v
		case "pmi-port":
			if hasInline {
				return nil, fmt.Errorf("option -pmi-port takes no value")
			}
			o.pmiPort = true
		default:
			return nil, fmt.Errorf("unknown option %s", a)
		}
	}
	if o.prog == "" {
		return nil, errors.New("no program to run")
	}
	src, text := "-timeout", timeoutFlag
	if text == "" {
		src, text = "MPIEXEC_TIMEOUT", getenv("MPIEXEC_TIMEOUT")
	}
	if text != "" {
		s, err := strconv.ParseFloat(text, 64)
		if err != nil || s < 0 || s > 1e9 || s != s {
			return nil, fmt.Errorf("bad %s %q (want seconds)", src, text)
		}
		o.timeout = time.Duration(s * float64(time.Second))
		o.timeoutText = text
	}
	return o, nil
}

func main() {
	os.Exit(run(os.Args[1:]))
}

// run is mpixexec's whole life; it returns the exit status.
func run(args []string) int {
	opts, err := parseArgs(args, os.Getenv)
	if errors.Is(err, errHelp) {
		fmt.Print(usage)
		return 0
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "mpixexec: %v\n%s", err, usage)
		return 2
	}
	path, err := exec.LookPath(opts.prog)
	if err != nil {
		code, why := describeExecError(err)
		fmt.Fprintf(os.Stderr, "mpixexec: cannot run %s: %s\n", opts.prog, why)
		return code
	}
	return newJob(opts, path).run()
}

// describeExecError turns a failure to find or start a program into an exit
// status (127 not found, 126 not executable) and a short reason.
func describeExecError(err error) (int, string) {
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return 127, "command not found"
	case errors.Is(err, fs.ErrNotExist):
		return 127, "no such file or directory"
	case errors.Is(err, fs.ErrPermission):
		return 126, "permission denied"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return 126, pe.Err.Error()
	}
	var ee *exec.Error
	if errors.As(err, &ee) {
		return 126, ee.Err.Error()
	}
	return 126, err.Error()
}
