package main

// -bind-to: each rank runs on one unit of this node's topology (a hardware
// thread, a core, a cache's CPUs, a socket, a NUMA node, the board), the
// units taken round-robin among the CPUs mpixexec itself may use, as read
// from /sys/devices/system/cpu.

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// sysCPU is where Linux describes the CPUs.
const sysCPU = "/sys/devices/system/cpu"

// allowedCPUs returns the CPUs mpixexec may run on, in increasing order.
func allowedCPUs() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("sched_getaffinity: %v", err)
	}
	var cpus []int
	for c := 0; c < len(set)*64; c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

// bindUnits groups cpus (increasing) into the units of level, read from the
// sysfs tree at root, ordered by their lowest CPU. A CPU whose sysfs entry
// lacks what level needs is a unit of its own (or, for a cache, falls back
// to its core).
func bindUnits(level string, cpus []int, root string) [][]int {
	read := func(cpu int, rel string) string {
		b, err := os.ReadFile(filepath.Join(root, "cpu"+strconv.Itoa(cpu), rel))
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	coreKey := func(cpu int) string {
		pkg, core := read(cpu, "topology/physical_package_id"), read(cpu, "topology/core_id")
		if core == "" {
			return "cpu" + strconv.Itoa(cpu)
		}
		return pkg + "/" + core
	}
	key := func(cpu int) string {
		switch level {
		case "hwthread":
			return strconv.Itoa(cpu)
		case "core":
			return coreKey(cpu)
		case "socket":
			if pkg := read(cpu, "topology/physical_package_id"); pkg != "" {
				return pkg
			}
			return "0"
		case "numa":
			nodes, _ := filepath.Glob(filepath.Join(root, "cpu"+strconv.Itoa(cpu), "node[0-9]*"))
			if len(nodes) > 0 {
				return filepath.Base(nodes[0])
			}
			return "node0"
		case "board":
			return "board"
		case "l1cache", "l2cache", "l3cache":
			want := level[1:2]
			dirs, _ := filepath.Glob(filepath.Join(root, "cpu"+strconv.Itoa(cpu), "cache", "index[0-9]*"))
			sort.Strings(dirs)
			for _, d := range dirs {
				rel := filepath.Join("cache", filepath.Base(d))
				if read(cpu, rel+"/level") == want && read(cpu, rel+"/type") != "Instruction" {
					if shared := read(cpu, rel+"/shared_cpu_list"); shared != "" {
						return "cache:" + shared
					}
				}
			}
			return coreKey(cpu)
		}
		return strconv.Itoa(cpu)
	}
	var units [][]int
	index := map[string]int{}
	for _, c := range cpus {
		k := key(c)
		i, ok := index[k]
		if !ok {
			i = len(units)
			index[k] = i
			units = append(units, nil)
		}
		units[i] = append(units[i], c)
	}
	return units
}

// rankCPUs returns the CPUs each of n ranks is bound to under level (nil
// for no binding): unit r mod the number of units for rank r.
func rankCPUs(level string, n int) ([][]int, error) {
	if level == "" || level == "none" {
		return nil, nil
	}
	cpus, err := allowedCPUs()
	if err != nil {
		return nil, err
	}
	units := bindUnits(level, cpus, sysCPU)
	if len(units) == 0 {
		return nil, fmt.Errorf("-bind-to %s: no CPU to bind to", level)
	}
	out := make([][]int, n)
	for r := range out {
		out[r] = units[r%len(units)]
	}
	return out, nil
}

// startOn starts cmd bound to cpus (all of mpixexec's when nil). The child
// inherits the CPU affinity of the thread that forks it, so the fork happens
// on a thread whose affinity is set first: binding the process after it
// starts would miss the threads it has already created. That thread is the
// binder's, locked to it for good: no other goroutine runs with its
// affinity, and it never exits, which matters because a rank's Pdeathsig
// fires when the thread that started it ends, not only mpixexec.
func startOn(cmd interface{ Start() error }, cpus []int) error {
	if cpus == nil {
		return cmd.Start()
	}
	binder.once.Do(func() {
		binder.reqs = make(chan bindReq)
		go bindLoop(binder.reqs)
	})
	errc := make(chan error, 1)
	binder.reqs <- bindReq{cmd, cpus, errc}
	return <-errc
}

// binder starts the bound ranks.
var binder struct {
	once sync.Once
	reqs chan bindReq
}

type bindReq struct {
	cmd  interface{ Start() error }
	cpus []int
	errc chan error
}

func bindLoop(reqs <-chan bindReq) {
	runtime.LockOSThread() // never unlocked: see startOn
	for req := range reqs {
		var set unix.CPUSet
		for _, c := range req.cpus {
			set.Set(c)
		}
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			req.errc <- fmt.Errorf("binding to CPUs %v: %w", req.cpus, err)
			continue
		}
		req.errc <- req.cmd.Start()
	}
}
