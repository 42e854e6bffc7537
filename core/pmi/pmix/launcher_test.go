//go:build cgo

package pmix_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"mpix/core/pmi"
	_ "mpix/core/pmi/pmix"
)

// TestUnderLauncher is run by ctests/pmi (compiled with go test -c) as every
// process of a job started by a real launcher: Hydra, srun, Open MPI's
// mpirun. MPIX_PMI_PROBE names the protocol Connect must pick ("PMI-1",
// "PMI-2", "PMIx"); without it the test is skipped. Every rank publishes a
// value that needs encoding, and reads everyone's; the launcher must say
// that all ranks share this node.
func TestUnderLauncher(t *testing.T) {
	want := os.Getenv("MPIX_PMI_PROBE")
	if want == "" {
		t.Skip("not under a launcher (MPIX_PMI_PROBE unset)")
	}
	c, err := pmi.Connect()
	if err != nil {
		t.Fatal(err)
	}
	if c.Protocol() != want {
		t.Errorf("protocol %s, want %s", c.Protocol(), want)
	}
	rank, size := c.Rank(), c.Size()
	local, err := c.LocalRanks()
	if err != nil {
		t.Fatal(err)
	}
	all := make([]int, size)
	for r := range all {
		all[r] = r
	}
	if !slices.Equal(local, all) {
		t.Errorf("local ranks %v, want %v (one node)", local, all)
	}
	value := func(r int) string { return fmt.Sprintf("rank %d; a=b%%41\n%s", r, strings.Repeat("x", 200)) }
	key := func(r int) string { return fmt.Sprintf("probe-%d", r) }
	if err := c.Put(key(rank), value(rank)); err != nil {
		t.Fatal(err)
	}
	if err := c.Fence(); err != nil {
		t.Fatal(err)
	}
	for r := range size {
		v, err := c.Get(r, key(r))
		if err != nil {
			t.Errorf("get of rank %d's key: %v", r, err)
		} else if v != value(r) {
			t.Errorf("rank %d's value %q, want %q", r, v, value(r))
		}
	}
	if err := c.Fence(); err != nil {
		t.Fatal(err)
	}
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("probe-ok rank %d of %d protocol %s local %v\n", rank, size, c.Protocol(), local)
}
