//go:build cgo && !mpix_noofi

package ofi

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"

	"mpix/transport"
)

// sharedPair opens ranks 0 and 1 of a world of 2 as endpoints of one shared domain,
// connected to each other.
func sharedPair(t *testing.T, stx bool) (*Domain, *Endpoint, *Endpoint) {
	return sharedPairOn(t, "", stx)
}

// sharedPairOn is sharedPair on provider prov ("": the default).
func sharedPairOn(t *testing.T, prov string, stx bool) (*Domain, *Endpoint, *Endpoint) {
	t.Helper()
	caps := Caps(prov)
	if !caps.ThreadSafe {
		skipDep(t, "provider %q opens no thread-safe domain", caps.Provider)
	}
	d, err := SharedDomain(prov)
	if err != nil {
		t.Fatalf("SharedDomain: %v", err)
	}
	var x *STX
	if stx {
		if !caps.SharedTx {
			d.Release()
			t.Skipf("provider %s offers no shared transmit contexts (max_ep_stx_ctx 0): the categories that need them fall back to dynamic", caps.Provider)
		}
		if x, err = OpenSTX(d, prov); err != nil {
			t.Fatalf("OpenSTX: %v", err)
		}
	}
	a, err := Open(Config{Provider: prov, Rank: 0, Size: 2, Domain: d, STX: x})
	if err != nil {
		t.Fatalf("Open on the shared domain: %v", err)
	}
	b, err := Open(Config{Provider: prov, Rank: 1, Size: 2, Domain: d, STX: x})
	if err != nil {
		a.Close()
		t.Fatalf("second Open on the shared domain: %v", err)
	}
	if a.s.dom != b.s.dom || a.s.dom != d.d || d.d.refs != 2 {
		t.Fatalf("endpoints on domains %p and %p (shared %p, %d users)", a.s.dom, b.s.dom, d.d, d.d.refs)
	}
	names := [][]byte{a.Name(), b.Name()}
	for _, e := range []*Endpoint{a, b} {
		if err := e.Connect(names); err != nil {
			t.Fatalf("Connect: %v", err)
		}
	}
	return d, a, b
}

func pump(t *testing.T, eps []transport.Endpoint, got [][]msg, want int, r int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for len(got[r]) < want {
		if time.Now().After(deadline) {
			t.Fatalf("endpoint %d: %d of %d messages after 20s", r, len(got[r]), want)
		}
		for i, e := range eps {
			e.Poll(func(h *transport.Header, p []byte) { got[i] = append(got[i], msg{*h, bytes.Clone(p)}) })
		}
	}
}

func sendUntil(t *testing.T, e transport.Endpoint, dst int, h *transport.Header, p []byte, eps []transport.Endpoint) {
	t.Helper()
	for try := 0; ; try++ {
		err := e.Send(dst, h, p)
		if err == nil {
			return
		}
		if !errors.Is(err, transport.ErrAgain) || try > 100000 {
			t.Fatalf("Send: %v", err)
		}
		for _, o := range eps {
			o.Poll(func(*transport.Header, []byte) {})
		}
	}
}

// Two endpoints of one domain (the dynamic categories) exchange messages both ways;
// their registrations come from the domain's one key counter, and the domain closes
// with the last of them.
func TestSharedDomainEndpoints(t *testing.T) {
	before := MemoryRegistrations()
	_, a, b := sharedPair(t, false)
	if n := MemoryRegistrations() - before; a.s.txmr != nil && n < 4 {
		t.Errorf("%d registrations counted for two endpoints that registered their buffers", n)
	}
	eps := []transport.Endpoint{a, b}
	got := make([][]msg, 2)
	for i := 0; i < 20; i++ {
		p := bytes.Repeat([]byte{byte(i)}, 1+i*1000)
		h := transport.Header{Kind: transport.KindEager, Src: 0, Tag: int32(i), Size: int64(len(p))}
		sendUntil(t, a, 1, &h, p, eps)
		h.Src = 1
		sendUntil(t, b, 0, &h, p, eps)
	}
	pump(t, eps, got, 20, 1)
	pump(t, eps, got, 20, 0)
	for r := 0; r < 2; r++ {
		for i, m := range got[r] {
			if m.h.Tag != int32(i) || len(m.data) != 1+i*1000 || m.data[0] != byte(i) {
				t.Fatalf("endpoint %d message %d: tag %d, %d bytes", r, i, m.h.Tag, len(m.data))
			}
		}
	}
	for _, e := range []*Endpoint{a, b} {
		if err := e.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
	}
	if n := MemoryRegistrations(); n != before {
		t.Errorf("%d registrations open after closing, %d before", n, before)
	}
}

// Endpoints bound to one shared transmit context (shared_dynamic, static), on the
// default provider where it has them and on sockets, which has (tcp;ofi_rxm has not).
func TestSharedTransmitContext(t *testing.T) {
	for _, prov := range []string{"", "sockets"} {
		t.Run("provider="+prov, func(t *testing.T) {
			if prov != "" && !providerAvailable(prov) {
				t.Skipf("libfabric here has no %s provider", prov)
			}
			_, a, b := sharedPairOn(t, prov, true)
			defer b.Close()
			defer a.Close()
			if a.s.stx == nil || a.s.stx != b.s.stx || a.s.stx.refs != 2 {
				t.Fatalf("endpoints not on one shared transmit context")
			}
			eps := []transport.Endpoint{a, b}
			got := make([][]msg, 2)
			for i := 0; i < 50; i++ {
				h := transport.Header{Kind: transport.KindEager, Tag: int32(i)}
				sendUntil(t, a, 1, &h, []byte("through the shared context"), eps)
				h.Tag = int32(1000 + i)
				sendUntil(t, b, 0, &h, []byte("and back"), eps)
			}
			pump(t, eps, got, 50, 1)
			pump(t, eps, got, 50, 0)
			for i := 0; i < 50; i++ {
				if string(got[1][i].data) != "through the shared context" || got[1][i].h.Tag != int32(i) ||
					string(got[0][i].data) != "and back" || got[0][i].h.Tag != int32(1000+i) {
					t.Fatalf("message %d: %q tag %d, %q tag %d", i, got[1][i].data, got[1][i].h.Tag, got[0][i].data, got[0][i].h.Tag)
				}
			}
		})
	}
}

func providerAvailable(name string) bool {
	avail, _ := Available()
	for _, a := range avail {
		if a == name {
			return true
		}
	}
	return false
}

// mpi_threads: VCIs share one endpoint, their messages framed with the VCI; each
// view delivers its own VCI's messages in order and queues the others'.
func TestMuxViews(t *testing.T) {
	w := newWorld(t, 2)
	const vcis = 3
	ma, mb := newMux(w.eps[0], vcis), newMux(w.eps[1], vcis)
	// The world's cleanup closes the endpoints; the views only count down here.
	ma.open, mb.open = vcis+1, vcis+1
	var a, b [vcis]*muxEP
	var all []transport.Endpoint
	for v := 0; v < vcis; v++ {
		a[v], b[v] = ma.view(v), mb.view(v)
		all = append(all, a[v], b[v])
	}
	if a[0].MaxPayload() != w.eps[0].MaxPayload()-vciTrailer {
		t.Errorf("MaxPayload %d", a[0].MaxPayload())
	}
	for i := 0; i < 30; i++ {
		v := i % vcis
		h := transport.Header{Kind: transport.KindEager, Src: 0, Tag: int32(i)}
		sendUntil(t, a[v], 1, &h, []byte{byte(v), byte(i)}, all)
	}
	// Polling VCI 0 alone reads everything and delivers VCI 0's ten only.
	var got [vcis][]msg
	deadline := time.Now().Add(20 * time.Second)
	for len(got[0]) < 10 {
		if time.Now().After(deadline) {
			t.Fatalf("VCI 0 got %d of 10", len(got[0]))
		}
		b[0].Poll(func(h *transport.Header, p []byte) { got[0] = append(got[0], msg{*h, bytes.Clone(p)}) })
		a[0].Poll(func(*transport.Header, []byte) {})
	}
	for v := 1; v < vcis; v++ {
		for len(got[v]) < 10 {
			if time.Now().After(deadline) {
				t.Fatalf("VCI %d got %d of 10", v, len(got[v]))
			}
			b[v].Poll(func(h *transport.Header, p []byte) { got[v] = append(got[v], msg{*h, bytes.Clone(p)}) })
		}
	}
	for v := 0; v < vcis; v++ {
		if len(got[v]) != 10 {
			t.Errorf("VCI %d: %d messages, want 10", v, len(got[v]))
		}
		for k, m := range got[v] {
			if int(m.h.Tag) != v+vcis*k || len(m.data) != 2 || int(m.data[0]) != v || int(m.data[1]) != int(m.h.Tag) {
				t.Errorf("VCI %d message %d: tag %d data %v", v, k, m.h.Tag, m.data)
			}
		}
	}
}

func TestUnframe(t *testing.T) {
	m := &muxShared{}
	b := m.frame(513, []byte("abc"))
	v, p, err := unframe(b)
	if err != nil || v != 513 || string(p) != "abc" {
		t.Fatalf("unframe(frame(513, abc)) = %d %q %v", v, p, err)
	}
	if _, _, err := unframe([]byte{1}); err == nil {
		t.Error("a 1-byte message unframed")
	}
}

// Caps names the provider and reports what it grants.
func TestCaps(t *testing.T) {
	if avail, _ := Available(); len(avail) == 0 {
		skipDep(t, "no libfabric provider")
	}
	c := Caps("")
	if c.Provider == "" {
		t.Fatal("Caps named no provider")
	}
	t.Logf("%+v", c)
}

// mpi_threads under concurrency: a goroutine per VCI on each side, sending and
// polling through its own view of the one endpoint (run with -race).
func TestMuxConcurrent(t *testing.T) {
	w := newWorld(t, 2)
	const vcis, n = 3, 200
	ma, mb := newMux(w.eps[0], vcis), newMux(w.eps[1], vcis)
	ma.open, mb.open = vcis+1, vcis+1
	done := make(chan error, 2*vcis)
	for v := 0; v < vcis; v++ {
		go func(v int) { // sender
			a := ma.view(v)
			for i := 0; i < n; i++ {
				h := transport.Header{Kind: transport.KindEager, Tag: int32(i), Context: uint32(v)}
				for {
					err := a.Send(1, &h, []byte{byte(v), byte(i)})
					if err == nil {
						break
					}
					if !errors.Is(err, transport.ErrAgain) {
						done <- err
						return
					}
					a.Poll(func(*transport.Header, []byte) {})
				}
			}
			deadline := time.Now().Add(20 * time.Second)
			for time.Now().Before(deadline) { // let the sends complete
				a.Poll(func(*transport.Header, []byte) {})
				ma.mu.Lock()
				idle := len(ma.ep.free) == cap(ma.ep.free)
				ma.mu.Unlock()
				if idle {
					break
				}
			}
			done <- nil
		}(v)
		go func(v int) { // receiver
			b := mb.view(v)
			next := 0
			var bad error
			deadline := time.Now().Add(30 * time.Second)
			for next < n && bad == nil && time.Now().Before(deadline) {
				b.Poll(func(h *transport.Header, p []byte) {
					if int(h.Context) != v || int(h.Tag) != next || len(p) != 2 || int(p[0]) != v || int(p[1]) != next%256 {
						bad = fmt.Errorf("VCI %d: message %d: context %d tag %d payload %v", v, next, h.Context, h.Tag, p)
					}
					next++
				})
			}
			if bad == nil && next != n {
				bad = fmt.Errorf("VCI %d: %d of %d messages", v, next, n)
			}
			done <- bad
		}(v)
	}
	for i := 0; i < 2*vcis; i++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// Shared CQs: two endpoints of one domain complete into one CQ pair; each delivers only
// its own messages, in order, whichever of them read the completions, with both driven
// at once from their own goroutines (run with -race); closing one while the other
// still polls is safe, and the last closes the CQs.
func TestSharedCQ(t *testing.T) {
	caps := Caps("")
	if !caps.ThreadSafe {
		skipDep(t, "provider %q opens no thread-safe domain", caps.Provider)
	}
	d, err := SharedDomain("")
	if err != nil {
		t.Fatal(err)
	}
	q, err := OpenSharedCQ(d, 2)
	if err != nil {
		t.Fatal(err)
	}
	var eps [2]*Endpoint
	for r := range eps {
		if eps[r], err = Open(Config{Rank: r, Size: 2, Domain: d, SharedCQ: q}); err != nil {
			t.Fatalf("Open: %v", err)
		}
		if eps[r].s.scq != q.q || eps[r].s.txcq != q.q.txcq {
			t.Fatal("endpoint not on the shared CQs")
		}
	}
	if q.q.refs != 2 {
		t.Fatalf("%d endpoints on the shared CQs", q.q.refs)
	}
	if eps[0].s.cq_data_size != 0 {
		t.Error("an endpoint on shared CQs offers remote CQ data")
	}
	names := [][]byte{eps[0].Name(), eps[1].Name()}
	for _, e := range eps {
		if err := e.Connect(names); err != nil {
			t.Fatal(err)
		}
	}
	const n = 300
	done := make(chan error, 2)
	for r := range eps {
		go func(r int) {
			me, peer := eps[r], 1-r
			next, sent := 0, 0
			var bad error
			deadline := time.Now().Add(30 * time.Second)
			for (next < n || sent < n) && bad == nil && time.Now().Before(deadline) {
				if sent < n {
					p := bytes.Repeat([]byte{byte(r)}, 1+sent%2000)
					h := transport.Header{Kind: transport.KindEager, Src: int32(r), Tag: int32(sent)}
					err := me.Send(peer, &h, p)
					if err == nil {
						sent++
					} else if !errors.Is(err, transport.ErrAgain) {
						bad = err
					}
				}
				me.Poll(func(h *transport.Header, p []byte) {
					if int(h.Src) != peer || int(h.Tag) != next || len(p) != 1+next%2000 || p[0] != byte(peer) {
						bad = fmt.Errorf("endpoint %d: message %d: src %d tag %d, %d bytes", r, next, h.Src, h.Tag, len(p))
					}
					next++
				})
				if err := me.Err(); err != nil {
					bad = err
				}
			}
			if bad == nil && next != n {
				bad = fmt.Errorf("endpoint %d: %d of %d messages", r, next, n)
			}
			// Keep polling until the own sends completed (the peer may need us).
			for time.Now().Before(deadline) && len(me.free) < cap(me.free) {
				me.Poll(func(*transport.Header, []byte) {})
			}
			done <- bad
		}(r)
	}
	for range eps {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	if err := eps[0].Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	eps[1].Poll(func(*transport.Header, []byte) {})
	if q.q.refs != 1 {
		t.Errorf("%d endpoints on the shared CQs after one closed", q.q.refs)
	}
	if err := eps[1].Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}
