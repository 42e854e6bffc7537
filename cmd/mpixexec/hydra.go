package main

// mpixexec runs jobs on this node only. A command line that names other
// hosts goes to MPICH's mpiexec.hydra, the proven multi-node launcher, which
// starts mpix programs through the same PMI-1.

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// hydraFallbackDirs are searched for mpiexec.hydra when PATH lacks it.
var hydraFallbackDirs = []string{"/usr/bin"}

// localNames returns the names and addresses that mean this machine.
func localNames() map[string]bool {
	names := map[string]bool{"localhost": true, "localhost.localdomain": true, "ip6-localhost": true}
	if h, err := os.Hostname(); err == nil {
		h = strings.ToLower(h)
		names[h] = true
		short, _, _ := strings.Cut(h, ".")
		names[short] = true
	}
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok {
				names[ipn.IP.String()] = true
			}
		}
	}
	return names
}

// remoteHosts returns the hosts that are not this machine (by the names and
// addresses in local, and loopback addresses). It looks nothing up in DNS:
// a name that only resolves to this machine counts as remote and goes to
// Hydra, which handles it correctly either way.
func remoteHosts(hosts []string, local map[string]bool) []string {
	var remote []string
	for _, h := range hosts {
		name, _, _ := splitHost(h)
		name = strings.ToLower(name)
		if ip := net.ParseIP(name); ip != nil {
			if ip.IsLoopback() || local[ip.String()] {
				continue
			}
		} else if local[name] {
			continue
		}
		remote = append(remote, name)
	}
	return remote
}

// hydraArgs translates the options to an mpiexec.hydra command line (without
// the command name): the same options, one dash each, -timeout left to the
// MPIEXEC_TIMEOUT variable (see hydraEnv), -n only where the user gave it.
func hydraArgs(o *options) []string {
	var a []string
	if o.hostfile != "" {
		a = append(a, "-f", o.hostfile)
	} else if len(o.hosts) > 0 {
		a = append(a, "-hosts", strings.Join(o.hosts, ","))
	}
	if o.ppn > 0 {
		a = append(a, "-ppn", strconv.Itoa(o.ppn))
	}
	if o.bind != "" {
		a = append(a, "-bind-to", o.bind)
	}
	if o.prepend {
		a = append(a, "-prepend-rank")
	}
	if o.outPattern != "" {
		a = append(a, "-outfile-pattern", o.outPattern)
	}
	if o.errPattern != "" {
		a = append(a, "-errfile-pattern", o.errPattern)
	}
	if o.pmiPort {
		a = append(a, "-pmi-port")
	}
	a = appendPolicy(a, "-g", o.gpol)
	for _, kv := range o.genv {
		a = append(a, "-genv", kv[0], kv[1])
	}
	for i, s := range o.sections {
		if i > 0 {
			a = append(a, ":")
		}
		if s.nSet {
			a = append(a, "-n", strconv.Itoa(s.n))
		}
		if s.wdir != "" && (i == 0 || s.wdir != o.sections[0].wdir) {
			a = append(a, "-wdir", s.wdir)
		}
		a = appendPolicy(a, "-", s.pol)
		for _, kv := range s.env {
			a = append(a, "-env", kv[0], kv[1])
		}
		a = append(a, s.prog)
		a = append(a, s.args...)
	}
	return a
}

func appendPolicy(a []string, prefix string, p envPolicy) []string {
	if !p.set {
		return a
	}
	switch p.mode {
	case envNone:
		return append(a, prefix+"envnone")
	case envList:
		return append(a, prefix+"envlist", strings.Join(p.list, ","))
	}
	return append(a, prefix+"envall")
}

// hydraEnv is mpiexec.hydra's environment: mpixexec's, with -timeout as
// MPIEXEC_TIMEOUT, which Hydra reads (it has no -timeout option).
func hydraEnv(o *options, environ []string) []string {
	if o.timeoutFlag == "" {
		return environ
	}
	env := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "MPIEXEC_TIMEOUT=") {
			env = append(env, kv)
		}
	}
	return append(env, "MPIEXEC_TIMEOUT="+o.timeoutFlag)
}

// findHydra returns mpiexec.hydra's path, or "" when it is not installed.
func findHydra(lookPath func(string) (string, error), fallback []string) string {
	if p, err := lookPath("mpiexec.hydra"); err == nil {
		return p
	}
	for _, d := range fallback {
		p := filepath.Join(d, "mpiexec.hydra")
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// noHydraLine is the one line printed when the job needs other hosts and
// mpiexec.hydra is not installed.
func noHydraLine(o *options, remote []string) string {
	return fmt.Sprintf("mpixexec: %s names other hosts (%s), and mpixexec runs jobs on this node only: "+
		"use MPICH's mpiexec.hydra (Debian package mpich), or srun under Slurm",
		o.hostOpt, strings.Join(remote, ", "))
}

// handOff replaces mpixexec with mpiexec.hydra running the same job, or
// says which launcher to use; it returns only on failure, with the exit
// status.
func handOff(o *options, remote []string) int {
	hydra := findHydra(exec.LookPath, hydraFallbackDirs)
	if hydra == "" {
		fmt.Fprintln(os.Stderr, noHydraLine(o, remote))
		return 2
	}
	argv := append([]string{hydra}, hydraArgs(o)...)
	err := syscall.Exec(hydra, argv, hydraEnv(o, os.Environ()))
	code, why := describeExecError(err)
	fmt.Fprintf(os.Stderr, "mpixexec: cannot run %s: %s\n", hydra, why)
	return code
}
