package shm

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// arenas maps one arena n times, as n processes would, from goroutines of this test.
func arenas(t *testing.T, n, slot int) []*Arena {
	t.Helper()
	path := filepath.Join(t.TempDir(), "arena")
	as := make([]*Arena, n)
	var err error
	if as[0], err = CreateArena(path, n, 0, slot); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < n; i++ {
		if as[i], err = OpenArena(path, n, i, slot); err != nil {
			t.Fatal(err)
		}
	}
	if err := Unlink(path); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, a := range as {
			a.Close()
		}
	})
	return as
}

func yield(int) { runtime.Gosched() }

// TestArenaCollectives runs rounds of barrier, rotating-root broadcast and allgather on
// 1..5 "processes" and checks every value each one sees; run with -race, the slot
// reuse rule (wait for call k-2 to finish before writing slot k%2) is what keeps the
// data race free.
func TestArenaCollectives(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			as := arenas(t, n, 64)
			const rounds = 200
			sizes := [2]int{8, 40} // in the control block, and in the slots
			var wg sync.WaitGroup
			var arrived atomic.Int64
			errs := make(chan error, n*rounds)
			for me := range n {
				wg.Add(1)
				go func(a *Arena) {
					defer wg.Done()
					for r := range rounds {
						arrived.Add(1)
						a.Barrier(yield)
						if got := arrived.Load(); got < int64(n*(r+1)) {
							errs <- fmt.Errorf("rank %d left barrier %d when %d had arrived", me, r, got)
							return
						}
						root := r % n
						var got uint64
						a.Bcast(root, sizes[r%2],
							func(s []byte) { binary.LittleEndian.PutUint64(s, uint64(r*100+root)) },
							func(s []byte) { got = binary.LittleEndian.Uint64(s) },
							yield)
						if me != root && got != uint64(r*100+root) {
							errs <- fmt.Errorf("rank %d round %d: bcast got %d", me, r, got)
							return
						}
						a.Allgather(sizes[r%2],
							func(s []byte) { binary.LittleEndian.PutUint64(s, uint64(r*1000+me)) },
							func(slots [][]byte) {
								for i, s := range slots {
									if v := binary.LittleEndian.Uint64(s); v != uint64(r*1000+i) {
										errs <- fmt.Errorf("rank %d round %d: slot %d holds %d", me, r, i, v)
									}
								}
							},
							yield)
					}
				}(as[me])
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
		})
	}
}

func TestOpenArenaErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := OpenArena(filepath.Join(dir, "missing"), 2, 1, 64); err == nil {
		t.Fatal("opening a missing arena succeeded")
	}
	path := filepath.Join(dir, "a")
	a, err := CreateArena(path, 2, 0, 64)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := CreateArena(path, 2, 0, 64); err == nil {
		t.Fatal("creating an existing arena succeeded")
	}
	if _, err := OpenArena(path, 4, 1, 64); err == nil {
		t.Fatal("opening an arena with a larger geometry succeeded")
	}
}
