package core

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The hardware levels MPI_COMM_TYPE_HW_UNGUIDED walks down, coarsest first, with the
// names the new communicator's mpi_hw_resource_type info key reports (hwloc's, which
// MPICH uses). Below the node, a process belongs to a level's resource only when every
// CPU it may run on lies in that one resource (its affinity mask); an unbound process
// belongs to none below the node.
var hwLevels = []string{"Machine", "Package", "NUMANode", "Core", "PU"}

// hwLocation is this process's resource at each level of hwLevels (-1: none, the
// process may run on CPUs of several), read from sysfs under root. node is the node's
// number (the level "Machine").
func hwLocation(root string, node int, cpus []int) []int64 {
	loc := make([]int64, len(hwLevels))
	loc[0] = int64(node)
	same := func(id func(cpu int) int64) int64 {
		if len(cpus) == 0 {
			return -1
		}
		first := id(cpus[0])
		for _, c := range cpus[1:] {
			if id(c) != first {
				return -1
			}
		}
		return first
	}
	cpuDir := func(cpu int) string { return filepath.Join(root, "devices/system/cpu", "cpu"+strconv.Itoa(cpu)) }
	pkg := func(cpu int) int64 { return readID(filepath.Join(cpuDir(cpu), "topology/physical_package_id")) }
	loc[1] = same(pkg)
	loc[2] = same(func(cpu int) int64 { return numaOf(cpuDir(cpu)) })
	// A core id is unique only within its package: name a core by both.
	loc[3] = same(func(cpu int) int64 {
		p, c := pkg(cpu), readID(filepath.Join(cpuDir(cpu), "topology/core_id"))
		if p < 0 || c < 0 {
			return -1
		}
		return p<<20 | c
	})
	loc[4] = same(func(cpu int) int64 { return int64(cpu) })
	return loc
}

// readID reads a small non-negative integer from a sysfs file, -1 if there is none.
func readID(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return -1
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || v < 0 {
		return -1
	}
	return v
}

// numaOf is the NUMA node of a CPU: sysfs lists it as a nodeN entry in the CPU's
// directory. -1 when there is none (a kernel without NUMA).
func numaOf(cpuDir string) int64 {
	ents, err := os.ReadDir(cpuDir)
	if err != nil {
		return -1
	}
	for _, e := range ents {
		if n, ok := strings.CutPrefix(e.Name(), "node"); ok {
			if v, err := strconv.ParseInt(n, 10, 64); err == nil && v >= 0 {
				return v
			}
		}
	}
	return -1
}

// affinityCPUs lists the CPUs this process may run on.
func affinityCPUs() []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil
	}
	var out []int
	for i := 0; i < len(set)*64; i++ {
		if set.IsSet(i) {
			out = append(out, i)
		}
	}
	return out
}

// unguidedLevel picks the level MPI_COMM_TYPE_HW_UNGUIDED splits at, from every
// member's location (all[r*n:(r+1)*n] for n levels): the first level at which every
// member belongs to a resource and the members do not all share one, so that each
// part is a strict subset of the communicator (MPI-4.1 §7.4.2). -1 when there is no
// such level: then every member gets MPI_COMM_NULL.
func unguidedLevel(all []int64, members, n int) int {
	for l := 0; l < n; l++ {
		known, split := true, false
		for r := 0; r < members && known; r++ {
			v := all[r*n+l]
			known = v >= 0
			split = split || v != all[l]
		}
		if known && split {
			return l
		}
	}
	return -1
}
