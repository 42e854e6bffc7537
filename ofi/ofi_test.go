//go:build cgo && !mpix_noofi

package ofi

import (
	"bytes"
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"mpix/transport"
)

func TestMain(m *testing.M) {
	if os.Getenv(envChild) == "1" {
		os.Exit(runChild())
	}
	code := m.Run()
	stopPeer()
	os.Exit(code)
}

// openOrSkip opens an endpoint, skipping the test when libfabric has no provider.
func openOrSkip(tb testing.TB, cfg Config) *Endpoint {
	tb.Helper()
	e, err := Open(cfg)
	if errors.Is(err, ErrNoProvider) && cfg.Provider == "" {
		skipDep(tb, "no usable libfabric provider on this machine: %v", err)
	}
	if err != nil {
		tb.Fatalf("Open(%+v): %v", cfg, err)
	}
	tb.Cleanup(func() {
		if err := e.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return e
}

type msg struct {
	h    transport.Header
	data []byte
}

// world is a set of endpoints in this process, ranks 0..n-1, connected to each other.
type world struct {
	tb  testing.TB
	eps []*Endpoint
	got [][]msg
}

func newWorld(tb testing.TB, n int) *world {
	tb.Helper()
	w := &world{tb: tb, got: make([][]msg, n)}
	names := make([][]byte, n)
	for r := 0; r < n; r++ {
		e := openOrSkip(tb, Config{Rank: r, Size: n})
		w.eps = append(w.eps, e)
		names[r] = e.Name()
		if len(names[r]) == 0 {
			tb.Fatalf("rank %d: empty Name", r)
		}
	}
	for r, e := range w.eps {
		if err := e.Connect(names); err != nil {
			tb.Fatalf("rank %d: Connect: %v", r, err)
		}
	}
	tb.Logf("provider %s, MaxPayload %d, inject size %d", w.eps[0].Provider(), w.eps[0].MaxPayload(), w.eps[0].injectSize)
	// Runs before the Closes: let every send complete while all peers still progress,
	// as MPI_Finalize's barrier would. (The shm provider touches a peer's region to
	// complete a send, and crashes if that peer was closed in this same process.)
	tb.Cleanup(w.quiesce)
	return w
}

func (w *world) quiesce() {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		busy := false
		for _, e := range w.eps {
			if e.s != nil {
				e.Poll(func(*transport.Header, []byte) {})
				busy = busy || len(e.free) < cap(e.free)
			}
		}
		if !busy {
			return
		}
	}
	w.tb.Errorf("sends still outstanding after 10s")
}

func (w *world) poll() {
	for r, e := range w.eps {
		e.Poll(func(h *transport.Header, p []byte) {
			w.got[r] = append(w.got[r], msg{*h, bytes.Clone(p)})
		})
		if err := e.Err(); err != nil {
			w.tb.Fatalf("rank %d: %v", r, err)
		}
	}
}

func (w *world) send(from, dst int, h *transport.Header, p []byte) {
	w.tb.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := w.eps[from].Send(dst, h, p)
		if err == nil {
			return
		}
		if !errors.Is(err, transport.ErrAgain) {
			w.tb.Fatalf("Send %d->%d (%d bytes): %v", from, dst, len(p), err)
		}
		if time.Now().After(deadline) {
			w.tb.Fatalf("Send %d->%d: still ErrAgain after 30s", from, dst)
		}
		w.poll()
	}
}

// waitFor polls until rank r has received n messages in all.
func (w *world) waitFor(r, n int) {
	w.tb.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(w.got[r]) < n {
		if time.Now().After(deadline) {
			w.tb.Fatalf("rank %d: got %d of %d messages after 30s", r, len(w.got[r]), n)
		}
		w.poll()
	}
}

func payload(rng *rand.Rand, n int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(rng.Uint32())
	}
	return p
}

func header(src, tag int, seq uint64, p []byte) transport.Header {
	return transport.Header{
		Kind:    transport.KindEager,
		Src:     int32(src),
		Tag:     int32(tag),
		Context: 7,
		Size:    int64(len(p)),
		SendReq: seq,
		RecvReq: uint64(crc32.ChecksumIEEE(p)),
		Offset:  -1,
	}
}

func checkMsg(tb testing.TB, m msg, want transport.Header) {
	tb.Helper()
	if m.h != want {
		tb.Fatalf("header = %+v, want %+v", m.h, want)
	}
	if len(m.data) != int(want.Size) || uint64(crc32.ChecksumIEEE(m.data)) != want.RecvReq {
		tb.Fatalf("payload of %d bytes, checksum %#x; want %d bytes, checksum %#x",
			len(m.data), crc32.ChecksumIEEE(m.data), want.Size, want.RecvReq)
	}
}

func TestSizesAndDirections(t *testing.T) {
	w := newWorld(t, 2)
	max := w.eps[0].MaxPayload()
	if max != BufferSize-transport.HeaderSize {
		t.Errorf("MaxPayload = %d, want %d", max, BufferSize-transport.HeaderSize)
	}
	inj := w.eps[0].injectSize - transport.HeaderSize
	sizes := []int{0, 1, 100, max}
	if inj > 0 {
		sizes = append(sizes, inj, inj+1) // both sides of the fi_inject cut
	}
	rng := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		name     string
		from, to int
	}{
		{"0to1", 0, 1},
		{"1to0", 1, 0},
		{"self0", 0, 0},
		{"self1", 1, 1},
	}
	for _, tc := range tests {
		for _, size := range sizes {
			t.Run(tc.name+"/"+itoa(size), func(t *testing.T) {
				w.tb = t
				p := payload(rng, size)
				h := header(tc.from, size, uint64(size), p)
				before := len(w.got[tc.to])
				w.send(tc.from, tc.to, &h, p)
				w.waitFor(tc.to, before+1)
				if len(w.got[tc.to]) != before+1 {
					t.Fatalf("got %d messages, want 1", len(w.got[tc.to])-before)
				}
				checkMsg(t, w.got[tc.to][before], h)
			})
		}
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// TestOrder streams 10000 messages each way at once, with sizes that mix fi_inject and
// bounce-buffer sends, and checks that each side sees its peer's in order.
func TestOrder(t *testing.T) {
	const count = 10000
	w := newWorld(t, 2)
	max := w.eps[0].MaxPayload()
	rng := rand.New(rand.NewPCG(3, 4))
	size := func(i int) int {
		switch {
		case i%97 == 0:
			return max
		case i%3 == 0:
			return i % 16 // inject-sized
		default:
			return i % 3000
		}
	}
	want := [2][]transport.Header{}
	for i := 0; i < count; i++ {
		for from := 0; from < 2; from++ {
			p := payload(rng, size(i))
			h := header(from, 1, uint64(i), p)
			want[1-from] = append(want[1-from], h)
			w.send(from, 1-from, &h, p)
		}
		if i%64 == 0 {
			w.poll()
		}
	}
	w.waitFor(0, count)
	w.waitFor(1, count)
	for r := 0; r < 2; r++ {
		if len(w.got[r]) != count {
			t.Fatalf("rank %d got %d messages, want %d", r, len(w.got[r]), count)
		}
		for i, m := range w.got[r] {
			if m.h.SendReq != uint64(i) {
				t.Fatalf("rank %d: message %d has sequence %d: order broken", r, i, m.h.SendReq)
			}
			checkMsg(t, m, want[r][i])
		}
	}
}

func TestSingleRankSelfSend(t *testing.T) {
	w := newWorld(t, 1)
	p := []byte("hello, me")
	h := header(0, 3, 1, p)
	w.send(0, 0, &h, p)
	w.waitFor(0, 1)
	checkMsg(t, w.got[0][0], h)
}

func TestErrors(t *testing.T) {
	e := openOrSkip(t, Config{Rank: 0, Size: 2})
	h := transport.Header{Kind: transport.KindEager}
	if err := e.Send(1, &h, nil); err == nil {
		t.Errorf("Send before Connect succeeded")
	}
	if e.Reaches(1) {
		t.Errorf("Reaches(1) before Connect")
	}
	if err := e.Connect([][]byte{e.Name()}); err == nil {
		t.Errorf("Connect with 1 name for a world of 2 succeeded")
	}
	if err := e.Connect([][]byte{e.Name(), e.Name()}); err != nil {
		t.Fatalf("Connect: %v", err)
	}
	tests := []struct {
		name string
		dst  int
		size int
	}{
		{"negative rank", -1, 0},
		{"rank past world", 2, 0},
		{"payload too big", 1, e.MaxPayload() + 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := e.Send(tc.dst, &h, make([]byte, tc.size)); err == nil || errors.Is(err, transport.ErrAgain) {
				t.Errorf("Send(%d, %d bytes) = %v, want a hard error", tc.dst, tc.size, err)
			}
		})
	}
	for dst, want := range map[int]bool{-1: false, 0: true, 1: true, 2: false} {
		if got := e.Reaches(dst); got != want {
			t.Errorf("Reaches(%d) = %v, want %v", dst, got, want)
		}
	}
	if err := e.ReadFrom(1, 0, make([]byte, 8)); !errors.Is(err, transport.ErrNoSingleCopy) {
		t.Errorf("ReadFrom = %v, want ErrNoSingleCopy", err)
	}
	if _, err := Open(Config{Rank: 2, Size: 2}); err == nil {
		t.Errorf("Open with rank 2 of 2 succeeded")
	}
}

func TestCloseTwice(t *testing.T) {
	e, err := Open(Config{Rank: 0, Size: 1})
	if errors.Is(err, ErrNoProvider) {
		skipDep(t, "no usable libfabric provider: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	h := transport.Header{}
	if err := e.Send(0, &h, nil); err == nil {
		t.Errorf("Send after Close succeeded")
	}
	if n := e.Poll(func(*transport.Header, []byte) {}); n != 0 {
		t.Errorf("Poll after Close = %d", n)
	}
}

func requireProvider(t *testing.T, name string) {
	t.Helper()
	avail, err := Available()
	if err != nil {
		skipDep(t, "fi_getinfo: %v", err)
	}
	for _, a := range avail {
		if a == name {
			return
		}
	}
	t.Skipf("provider %q not available here (have %v)", name, avail)
}

func TestProviderSelection(t *testing.T) {
	const rxm = "tcp;ofi_rxm"
	tests := []struct {
		name   string
		env    string
		config string
		want   string // provider, or "" for an error
		errHas []string
	}{
		{name: "env", env: rxm, want: rxm},
		{name: "config beats env", env: "bogus", config: rxm, want: rxm},
		{name: "default", want: rxm},
		{name: "bogus env", env: "bogus", errHas: []string{`"bogus"`, "available:", rxm}},
		{name: "bogus config", config: "no-such-fabric", errHas: []string{`"no-such-fabric"`, "available:", rxm}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			requireProvider(t, rxm)
			t.Setenv(EnvProvider, tc.env)
			e, err := Open(Config{Provider: tc.config, Rank: 0, Size: 1})
			if tc.want == "" {
				if err == nil {
					e.Close()
					t.Fatalf("Open succeeded with provider %q", e.Provider())
				}
				if !errors.Is(err, ErrNoProvider) {
					t.Errorf("error %v does not wrap ErrNoProvider", err)
				}
				for _, s := range tc.errHas {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q lacks %q", err, s)
					}
				}
				t.Logf("error: %v", err)
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer e.Close()
			if got := e.Provider(); got != tc.want {
				t.Errorf("Provider() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestChoose(t *testing.T) {
	tests := []struct {
		avail []string
		want  string
	}{
		{[]string{"tcp;ofi_rxm", "net", "udp;ofi_rxd", "shm", "sockets"}, "tcp;ofi_rxm"},
		{[]string{"shm", "tcp;ofi_rxm", "verbs;ofi_rxm"}, "verbs;ofi_rxm"},
		{[]string{"tcp;ofi_rxm", "efa", "cxi"}, "cxi"},
		{[]string{"shm"}, ""},
		{[]string{"udp;ofi_rxd", "sockets"}, "sockets"},
		{nil, ""},
	}
	for _, tc := range tests {
		if got := choose(tc.avail); got != tc.want {
			t.Errorf("choose(%v) = %q, want %q", tc.avail, got, tc.want)
		}
	}
}

func TestAllocs(t *testing.T) {
	w := newWorld(t, 2)
	e0, e1 := w.eps[0], w.eps[1]
	small := make([]byte, 8)
	big := make([]byte, 4096)
	h := transport.Header{Kind: transport.KindEager}
	got := 0
	deliver := func(*transport.Header, []byte) { got++ }
	// Warm up the connection.
	w.send(0, 1, &h, small)
	w.waitFor(1, 1)
	allocs := testing.AllocsPerRun(200, func() {
		for _, p := range [][]byte{small, big} {
			for {
				err := e0.Send(1, &h, p)
				if err == nil {
					break
				}
				e0.Poll(deliver)
				e1.Poll(deliver)
			}
		}
		for i := 0; i < 4; i++ {
			e0.Poll(deliver)
			e1.Poll(deliver)
		}
	})
	if allocs != 0 {
		t.Errorf("Send+Poll allocate %v times per run", allocs)
	}
}
