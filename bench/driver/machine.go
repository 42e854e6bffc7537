package main

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// Machine describes where the benchmarks ran, for the summary's header.
type Machine struct {
	Kernel, CPU, Load string
	CPUs              int
	Versions          []string // "MPICH 4.0.2 (ch4:ucx)", ...
}

func describeMachine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), Kernel: firstLine(output("uname", "-r"))}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			m.Load = strings.Join(f[:3], " ")
		}
	}
	rev := firstLine(output("git", "rev-parse", "--short", "HEAD"))
	if rev != "" {
		if strings.TrimSpace(output("git", "status", "--porcelain", "--untracked-files=no")) != "" {
			rev += " with uncommitted changes"
		}
		m.Versions = append(m.Versions, "mpix "+rev)
	}
	if v := mpichVersion(output("mpichversion")); v != "" {
		m.Versions = append(m.Versions, v)
	}
	if v := openmpiVersion(output("mpirun.openmpi", "--version")); v != "" {
		m.Versions = append(m.Versions, v)
	}
	return m
}

// mpichVersion reads mpichversion's "MPICH Version:" and "MPICH Device:" lines.
func mpichVersion(out string) string {
	var version, device string
	for _, l := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "MPICH Version":
			version = strings.TrimSpace(v)
		case "MPICH Device":
			device = strings.TrimSpace(v)
		}
	}
	if version == "" {
		return ""
	}
	if device != "" {
		return "MPICH " + version + " (" + device + ")"
	}
	return "MPICH " + version
}

// openmpiVersion reads "mpirun (Open MPI) 4.1.4" (the first line of mpirun --version).
func openmpiVersion(out string) string {
	f := strings.Fields(firstLine(out))
	if len(f) == 0 {
		return ""
	}
	return "Open MPI " + f[len(f)-1]
}

func output(name string, args ...string) string {
	b, err := exec.Command(name, args...).Output()
	if err != nil {
		return ""
	}
	return string(b)
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(l)
}

// limitsFrom reads one run of bench/limits/limits.c ("limit NAME VALUE" lines) into
// Limits; parseOutput's rule with key "limit".
func limitsFrom(samples []Sample) Limits {
	var l Limits
	for _, s := range samples {
		switch s.Row {
		case "cacheline_ns":
			l.CacheLineNs = s.Value
		case "memcpy_1MiB":
			l.Memcpy1MiB = s.Value
		case "memcpy_64MiB":
			l.Memcpy64MiB = s.Value
		case "cacheline_median_ns":
			l.CacheLineMedianNs = s.Value
		}
	}
	return l
}
