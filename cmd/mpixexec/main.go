// Command mpixexec starts an MPI job of local processes and serves them
// PMI-1, the protocol mpix (and MPICH) processes use to find each other. It
// takes the single-node options of MPICH's mpiexec (Hydra); it is not a
// cluster launcher: a job that names other hosts goes to mpiexec.hydra.
//
// Usage:
//
//	mpixexec [global and local options] prog [args...] [: [local options] prog2 [args...]]...
//
// Each ':'-separated section runs its own program (MPMD); ranks are numbered
// in section order. Local options (-n, -env, -envall, -envnone, -envlist,
// -wdir) hold for their section; the others for the whole job (-wdir before
// the first program for every section without its own). The environment of
// a rank is mpixexec's (all of it by default; none with -envnone/-genvnone;
// the named variables with -envlist/-genvlist), then -genv, then -env
// settings.
//
// Each rank gets PMI_FD (a socket to mpixexec, descriptor 3), PMI_RANK,
// PMI_SIZE, MPIX_LOCAL_RANK and MPIX_LOCAL_SIZE in its environment; with
// -pmi-port it gets PMI_PORT (a loopback TCP address) and PMI_ID instead of
// PMI_FD, PMI_RANK and PMI_SIZE, as Hydra's -pmi-port does. Ranks inherit
// mpixexec's standard output and error (or the files of -outfile-pattern
// and -errfile-pattern; with -l each line is prefixed with "[rank] " and
// written whole); rank 0 also gets its standard input, the other ranks
// /dev/null. SIGUSR1 and SIGUSR2 sent to mpixexec are forwarded to every
// rank. -bind-to binds rank r to unit r (round-robin) of the chosen level
// among the CPUs mpixexec may use.
//
// -ppn N on one node: N processes when -n is absent, and an error when -n
// asks for more (that needs several nodes). -hosts/-host/-f/-hostfile/
// -machinefile naming only this machine run the job here (by default one
// process per slot, "host:count"); naming any other host, mpixexec execs
// MPICH's mpiexec.hydra (from PATH, else /usr/bin) with the same options,
// -timeout passed as MPIEXEC_TIMEOUT; without it, it prints one line naming
// the launchers to use (mpiexec.hydra, or srun under Slurm) and exits 2.
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
// executed 126, a usage error (an unknown option among them) 2.
package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

const usage = `usage: mpixexec [options] prog [args...] [: [local options] prog2 [args...]]...

Start an MPI job of local processes, serving them PMI-1. Options are those of
MPICH's mpiexec (Hydra) for one node; one or two leading dashes.

local options (for the section they are in; ':' starts a new section, a
different program, ranks numbered on in order):
  -n N, -np N        number of processes (default 1, or -ppn's N)
  -env K V           set K=V in the section's environment (repeatable)
  -envall            pass all of mpixexec's environment (the default)
  -envnone           pass none of it (the ranks still get the PMI and
                     MPIX_LOCAL_* variables they need, and -env/-genv)
  -envlist A,B       pass only these variables of it
  -wdir DIR          run in DIR (before the first program: every section)

global options:
  -genv K V, -genvall, -genvnone, -genvlist A,B
                     as the local ones, for every section (a section's
                     own -envall/-envnone/-envlist wins; -env beats -genv)
  -l, -prepend-rank  prefix every output line with "[rank] "
  -outfile-pattern P, -errfile-pattern P
                     send each rank's standard output (error) to file P
                     (created, relative to mpixexec's directory), with %r
                     its rank, %g 0, %p 0, %h the host name, %% a %
  -bind-to LEVEL     bind each rank to one none|hwthread|core|l1cache|
                     l2cache|l3cache|socket|numa|board, round-robin over
                     the CPUs mpixexec may use (default none)
  -ppn N             processes per node; one node here: the job size when
                     -n is absent, and -n may not exceed it
  -timeout S         kill the job after S seconds (exit 124); the
                     environment variable MPIEXEC_TIMEOUT does the same
  -pmi-port          give ranks PMI_PORT+PMI_ID (TCP) instead of PMI_FD
  -h, -help          print this help

hosts: mpixexec runs jobs on this node only. -hosts H1[:N],..., -host H,
-f FILE (also -hostfile, -machinefile) naming only this machine run here;
naming any other host, mpixexec hands the job to MPICH's mpiexec.hydra
(same options; found on PATH or in /usr/bin), or, when that is not
installed, says to use mpiexec.hydra or srun under Slurm and exits 2.

Standard input goes to rank 0; SIGUSR1 and SIGUSR2 go to every rank.
Options end at the program name: everything after it, up to a lone ':',
goes to the program.
`

func main() {
	os.Exit(run(os.Args[1:]))
}

// run is mpixexec's whole life; it returns the exit status.
func run(args []string) int {
	opts, err := parseArgs(args, os.Getenv)
	if errors.Is(err, errHelp) {
		os.Stdout.WriteString(usage)
		return 0
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "mpixexec: %v\n%s", err, usage)
		return 2
	}
	if remote := remoteHosts(opts.hosts, localNames()); len(remote) > 0 {
		return handOff(opts, remote)
	}
	n, err := opts.setCounts()
	if err != nil {
		fmt.Fprintf(os.Stderr, "mpixexec: %v\n%s", err, usage)
		return 2
	}
	for _, s := range opts.sections {
		if s.wdir != "" {
			if st, err := os.Stat(s.wdir); err != nil || !st.IsDir() {
				why := "not a directory"
				if err != nil {
					_, why = describeExecError(err)
				}
				fmt.Fprintf(os.Stderr, "mpixexec: bad -wdir %s: %s\n", s.wdir, why)
				return 2
			}
		}
		if s.path, err = resolveProgram(s.prog, s.wdir); err != nil {
			code, why := describeExecError(err)
			fmt.Fprintf(os.Stderr, "mpixexec: cannot run %s: %s\n", s.prog, why)
			return code
		}
	}
	return newJob(opts, n).run()
}

// resolveProgram returns the absolute file name of prog: found on PATH when
// it has no slash, else relative to the working directory wdir (as a
// program run there sees it) or mpixexec's.
func resolveProgram(prog, wdir string) (string, error) {
	if strings.Contains(prog, "/") && !filepath.IsAbs(prog) && wdir != "" {
		prog = filepath.Join(wdir, prog)
	}
	path, err := exec.LookPath(prog)
	if err != nil {
		return "", err
	}
	return filepath.Abs(path)
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
