package core

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// fakeSys writes a sysfs tree: cpu i in package pkg[i], core core[i], NUMA node numa[i].
func fakeSys(t *testing.T, pkg, core, numa []int) string {
	root := t.TempDir()
	for i := range pkg {
		dir := filepath.Join(root, "devices/system/cpu", "cpu"+strconv.Itoa(i))
		if err := os.MkdirAll(filepath.Join(dir, "topology"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "topology/physical_package_id"), []byte(strconv.Itoa(pkg[i])+"\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "topology/core_id"), []byte(strconv.Itoa(core[i])+"\n"), 0o644)
		if numa != nil {
			os.MkdirAll(filepath.Join(dir, "node"+strconv.Itoa(numa[i])), 0o755)
		}
	}
	return root
}

func TestHWLocation(t *testing.T) {
	// Two packages of two cores of two hardware threads; a NUMA node per package.
	root := fakeSys(t, []int{0, 0, 0, 0, 1, 1, 1, 1}, []int{0, 0, 1, 1, 0, 0, 1, 1}, []int{0, 0, 0, 0, 1, 1, 1, 1})
	for _, c := range []struct {
		name string
		cpus []int
		want []int64
	}{
		{"unbound", []int{0, 1, 2, 3, 4, 5, 6, 7}, []int64{3, -1, -1, -1, -1}},
		{"one package", []int{4, 5, 6, 7}, []int64{3, 1, 1, -1, -1}},
		{"one core", []int{2, 3}, []int64{3, 0, 0, 1, -1}},
		{"one thread", []int{5}, []int64{3, 1, 1, 1<<20 | 0, 5}},
		{"no affinity known", nil, []int64{3, -1, -1, -1, -1}},
	} {
		got := hwLocation(root, 3, c.cpus)
		for l := range got {
			if got[l] != c.want[l] {
				t.Errorf("%s: level %s is %d, want %d", c.name, hwLevels[l], got[l], c.want[l])
			}
		}
	}
	// No NUMA entries: that level is unknown, the others are not.
	flat := fakeSys(t, []int{0, 0}, []int{0, 1}, nil)
	if got := hwLocation(flat, 0, []int{1}); got[2] != -1 || got[3] != 1 || got[4] != 1 {
		t.Errorf("no NUMA: %v", got)
	}
}

func TestUnguidedLevel(t *testing.T) {
	const n = 5
	loc := func(v ...int64) []int64 { return v }
	for _, c := range []struct {
		name    string
		members [][]int64
		want    int
	}{
		{"one process", [][]int64{loc(0, 0, 0, 0, 1)}, -1},
		{"one node, unbound", [][]int64{loc(0, -1, -1, -1, -1), loc(0, -1, -1, -1, -1)}, -1},
		{"two nodes", [][]int64{loc(0, -1, -1, -1, -1), loc(1, -1, -1, -1, -1)}, 0},
		{"bound to two packages", [][]int64{loc(0, 0, 0, 0, 0), loc(0, 1, 1, 1<<20, 4)}, 1},
		{"one package, two cores", [][]int64{loc(0, 0, 0, 0, 0), loc(0, 0, 0, 1, 2)}, 3},
		{"one bound, one not: skip the level", [][]int64{loc(0, 0, 0, 0, 0), loc(0, -1, -1, -1, -1)}, -1},
		{"same thread", [][]int64{loc(0, 0, 0, 0, 0), loc(0, 0, 0, 0, 0)}, -1},
	} {
		var all []int64
		for _, m := range c.members {
			all = append(all, m...)
		}
		if got := unguidedLevel(all, len(c.members), n); got != c.want {
			t.Errorf("%s: level %d, want %d", c.name, got, c.want)
		}
	}
}
