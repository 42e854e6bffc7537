package verbs

import (
	"fmt"
	"sync"
	"testing"

	"mpix/transport/epshare"
)

// Three processes exchange their QP addresses through a fake PMI key-value space:
// every driven connection pairs with the one of the peer that points back at it, and
// 2xDynamic's odd QPs are neither published nor connected.
func TestConnectionsPair(t *testing.T) {
	for _, c := range epshare.Categories {
		const size, vcis = 3, 2
		var mu sync.Mutex
		kvs := map[string]string{}
		put := func(k, v string) error { mu.Lock(); defer mu.Unlock(); kvs[k] = v; return nil }
		get := func(r int, k string) (string, error) {
			mu.Lock()
			defer mu.Unlock()
			v, ok := kvs[k]
			if !ok {
				return "", fmt.Errorf("no key %s", k)
			}
			return v, nil
		}
		base, _ := epshare.New(c, vcis, 0, epshare.MLX5())
		qpn := make([][]uint32, size)
		addrs := make([]QPAddr, size)
		psn := func(r int) func(int) uint32 { return func(i int) uint32 { return uint32(r*1000 + i) } }
		for r := 0; r < size; r++ {
			p, _ := base.ForPeers(size-1, epshare.MLX5())
			qpn[r] = make([]uint32, p.NumQPs())
			for i := range qpn[r] {
				qpn[r][i] = uint32(r<<16 | i + 1) // distinct across processes
			}
			addrs[r] = QPAddr{LID: uint16(r + 1), MTU: 5}
			if err := Publish(put, r, size, base, qpn[r], addrs[r], psn(r)); err != nil {
				t.Fatal(err)
			}
		}
		driven := 0
		for _, u := range used(base) {
			if u {
				driven++
			}
		}
		if len(kvs) != size*(size-1)*driven {
			t.Errorf("%s: %d keys published, want %d", c, len(kvs), size*(size-1)*driven)
		}
		// owner maps a QP number to its process and per-peer index.
		owner := map[uint32][2]int{}
		for r := range qpn {
			for i, n := range qpn[r] {
				owner[n] = [2]int{r, i}
			}
		}
		conns := make([]map[int]Conn, size)
		for r := 0; r < size; r++ {
			cs, err := Connections(get, r, size, base, qpn[r], addrs[r], psn(r))
			if err != nil {
				t.Fatalf("%s: rank %d: %v", c, r, err)
			}
			if len(cs) != (size-1)*driven {
				t.Errorf("%s: rank %d: %d connections", c, r, len(cs))
			}
			conns[r] = map[int]Conn{}
			for _, x := range cs {
				conns[r][x.Index] = x
				if x.Local.QPN != qpn[r][x.Index] || x.Remote.LID != uint16(x.Peer+1) {
					t.Errorf("%s: rank %d: %+v", c, r, x)
				}
			}
		}
		for r := 0; r < size; r++ {
			for _, x := range conns[r] {
				o := owner[x.Remote.QPN]
				back, ok := conns[o[0]][o[1]]
				if o[0] != x.Peer || !ok || back.Remote.QPN != x.Local.QPN || back.Remote.PSN != x.Local.PSN || back.Peer != r {
					t.Errorf("%s: rank %d QP %d -> rank %d QP %d does not point back (%+v)", c, r, x.Index, o[0], o[1], back)
				}
				if c == epshare.TwoXDynamic && (x.Index/(size-1))%2 == 1 {
					t.Errorf("2xdynamic: odd QP %d connected", x.Index/(size-1))
				}
			}
		}
	}
	if got := PeerList(0, 1); len(got) != 1 || got[0] != 0 {
		t.Errorf("PeerList(0, 1) = %v", got)
	}
}
