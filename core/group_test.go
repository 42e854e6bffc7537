package core

import (
	"sync"
	"testing"
)

// TestGroupHandles: every Register is a handle of its own, valid until it is freed,
// whichever other handles to the same group come and go (MPI_Comm_group twice on one
// communicator, also from several threads).
func TestGroupHandles(t *testing.T) {
	base := NewGroup([]int{0, 2, 5})
	a, b := base.Register(), base.Register()
	if a.Handle == b.Handle || a.Handle == 0 || b.Handle == 0 {
		t.Fatalf("two registrations gave handles 0x%x and 0x%x", uint32(a.Handle), uint32(b.Handle))
	}
	if base.Handle != 0 {
		t.Errorf("Register changed the shared group's handle to 0x%x", uint32(base.Handle))
	}
	hb := b.Handle
	if err := a.Free(); err != nil {
		t.Fatal(err)
	}
	g, err := LookupGroup(hb)
	if err != nil || g.Size() != 3 || g.WorldRank(2) != 5 {
		t.Fatalf("the other handle after one free: %v, %v", g, err)
	}
	if _, err := LookupGroup(a.Handle); err == nil {
		t.Errorf("a freed handle still resolves")
	}
	if err := b.Free(); err != nil {
		t.Fatal(err)
	}
	if _, err := LookupGroup(hb); err == nil {
		t.Errorf("handle 0x%x still resolves after its free", uint32(hb))
	}
	if NewGroup(nil).Register() != GroupEmpty {
		t.Errorf("an empty group is not MPI_GROUP_EMPTY")
	}

	// Many threads at once: every handle distinct and valid until its own free.
	const workers, each = 8, 200
	var wg, registered sync.WaitGroup
	var mu sync.Mutex
	registered.Add(workers)
	seen := map[int32]bool{}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []*Group
			for i := 0; i < each; i++ {
				mine = append(mine, base.Register())
			}
			mu.Lock()
			for _, g := range mine {
				if seen[g.Handle] {
					t.Errorf("handle 0x%x given twice", uint32(g.Handle))
				}
				seen[g.Handle] = true
			}
			mu.Unlock()
			registered.Done()
			registered.Wait() // no handle is freed before all are checked distinct
			for i, g := range mine {
				if i%2 == 0 {
					if err := g.Free(); err != nil {
						t.Error(err)
					}
				}
			}
			for i, g := range mine {
				if i%2 == 1 {
					if got, err := LookupGroup(g.Handle); err != nil || got != g {
						t.Errorf("handle 0x%x: %v, %v", uint32(g.Handle), got, err)
					}
					g.Free()
				}
			}
		}()
	}
	wg.Wait()
}
