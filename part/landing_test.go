package part

import (
	"sync"
	"testing"
)

func TestLandingDifferingPartitions(t *testing.T) {
	// 4 receive partitions of 100 bytes, 8 send partitions of 50 (and then 5 of 80).
	for _, tc := range []struct {
		sparts int
		spb    int64
	}{{8, 50}, {5, 80}, {1, 400}} {
		l := newLocalLanding(4)
		for round := uint32(1); round <= 3; round++ {
			for s := 0; s < tc.sparts; s++ {
				if l.complete(round, tc.sparts) {
					t.Fatalf("%d send partitions, round %d: complete after %d", tc.sparts, round, s)
				}
				l.land(round, int64(s)*tc.spb, tc.spb, 100, 1)
				end := int64(s+1) * tc.spb
				for i := 0; i < 4; i++ {
					want := int64(i+1)*100 <= end
					if got := l.arrived(i, round, 100, tc.sparts); got != want {
						t.Errorf("%d send partitions, round %d, after %d: partition %d arrived %v, want %v", tc.sparts, round, s+1, i, got, want)
					}
				}
			}
			if !l.complete(round, tc.sparts) {
				t.Errorf("%d send partitions, round %d: not complete", tc.sparts, round)
			}
			if l.arrived(0, round+1, 100, tc.sparts) {
				t.Errorf("round %d's arrival reads as the next round's", round)
			}
		}
	}
}

func TestLandingConcurrentWriters(t *testing.T) {
	// 64 send partitions of 3 bytes into 3 receive partitions of 64: writers race on
	// the same counters.
	l := newLocalLanding(3)
	var wg sync.WaitGroup
	for s := 0; s < 64; s++ {
		wg.Add(1)
		go func(s int) {
			defer wg.Done()
			l.land(7, int64(s)*3, 3, 64, 1)
		}(s)
	}
	wg.Wait()
	for i := 0; i < 3; i++ {
		if !l.arrived(i, 7, 64, 64) {
			t.Errorf("partition %d not arrived: %#x", i, l.bytes[i].Load())
		}
	}
	if !l.complete(7, 64) || l.writes.Load() != 64 {
		t.Errorf("landed %#x, writes %d", l.landed.Load(), l.writes.Load())
	}
}

func TestLandingEmpty(t *testing.T) {
	l := newLocalLanding(2)
	if l.arrived(0, 1, 0, 2) {
		t.Error("an empty partition arrived before anything landed")
	}
	l.land(1, 0, 0, 0, 2)
	if !l.arrived(1, 1, 0, 2) || !l.complete(1, 2) {
		t.Error("an empty message did not complete when its partitions landed")
	}
}
