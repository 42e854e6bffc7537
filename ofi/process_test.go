//go:build cgo && !mpix_noofi

package ofi

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"mpix/transport"
)

// The two-process tests re-execute the test binary as rank 1 (envChild=1). Names go
// through two pipes (fds 3 and 4 in the child); the child then echoes pings, counts
// streamed messages, and exits on tagQuit or when the parent's pipe closes.
const envChild = "MPIX_OFI_TEST_CHILD"

const (
	tagPing = iota + 1
	tagStream
	tagStreamEnd
	tagQuit
)

func writeName(w io.Writer, name []byte) error {
	var n [4]byte
	binary.LittleEndian.PutUint32(n[:], uint32(len(name)))
	if _, err := w.Write(n[:]); err != nil {
		return err
	}
	_, err := w.Write(name)
	return err
}

func readName(r io.Reader) ([]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	name := make([]byte, binary.LittleEndian.Uint32(n[:]))
	_, err := io.ReadFull(r, name)
	return name, err
}

// sendRetry sends, polling with deliver while the transport says ErrAgain.
func sendRetry(e *Endpoint, dst int, h *transport.Header, p []byte, deliver transport.DeliverFunc) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := e.Send(dst, h, p)
		if !errors.Is(err, transport.ErrAgain) {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("still ErrAgain after 30s")
		}
		e.Poll(deliver)
	}
}

func runChild() int {
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "ofi test child: %v\n", err)
		return 1
	}
	in, out := os.NewFile(3, "from-parent"), os.NewFile(4, "to-parent")
	name0, err := readName(in)
	if err != nil {
		return fail(err)
	}
	e, err := Open(Config{Rank: 1, Size: 2})
	if err != nil {
		return fail(err)
	}
	defer e.Close()
	if err := writeName(out, e.Name()); err != nil {
		return fail(err)
	}
	if err := e.Connect([][]byte{name0, e.Name()}); err != nil {
		return fail(err)
	}
	var parentGone atomic.Bool
	go func() {
		io.Copy(io.Discard, in)
		parentGone.Store(true)
	}()

	var (
		pending []msg // replies to send after Poll returns
		count   uint64
		quit    bool
		bufs    [][]byte
	)
	deliver := func(h *transport.Header, p []byte) {
		switch h.Tag {
		case tagPing:
			var b []byte
			if len(bufs) > 0 {
				b, bufs = bufs[len(bufs)-1][:0], bufs[:len(bufs)-1]
			}
			pending = append(pending, msg{*h, append(b, p...)})
		case tagStream:
			count++
		case tagStreamEnd:
			r := *h
			r.SendReq = count
			count = 0
			pending = append(pending, msg{r, nil})
		case tagQuit:
			quit = true
			pending = append(pending, msg{*h, nil})
		}
	}
	var quitAt time.Time
	for !parentGone.Load() {
		if e.Poll(deliver) == 0 {
			idle()
		}
		for len(pending) > 0 {
			m := pending[0]
			pending = pending[1:]
			m.h.Src = 1
			if err := sendRetry(e, 0, &m.h, m.data, deliver); err != nil {
				return fail(err)
			}
			if m.data != nil {
				bufs = append(bufs, m.data)
			}
		}
		if err := e.Err(); err != nil {
			return fail(err)
		}
		if quit {
			if quitAt.IsZero() {
				quitAt = time.Now()
			}
			// Keep progressing a little so the acknowledgement leaves.
			if time.Since(quitAt) > 5*time.Second {
				break
			}
		}
	}
	return 0
}

// idle gives the CPU away when a poll found nothing, so that the two processes of
// these tests (and whatever else runs) share a small machine without waiting out
// whole scheduler time slices. Set MPIX_OFI_TEST_SPIN=1 to busy-poll instead.
var spin = os.Getenv("MPIX_OFI_TEST_SPIN") == "1"

func idle() {
	if !spin {
		syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
	}
}

// peer is rank 1 in a child process, seen from rank 0 in this one.
type peer struct {
	cmd  *exec.Cmd
	toCh *os.File
	ep   *Endpoint

	got     int
	lastH   transport.Header
	last    []byte
	deliver transport.DeliverFunc
}

var (
	peerOnce sync.Once
	thePeer  *peer
	peerErr  error
)

func getPeer(tb testing.TB) *peer {
	tb.Helper()
	peerOnce.Do(func() { thePeer, peerErr = startPeer() })
	if errors.Is(peerErr, ErrNoProvider) {
		skipDep(tb, "no usable libfabric provider on this machine: %v", peerErr)
	}
	if peerErr != nil {
		tb.Fatalf("starting rank 1: %v", peerErr)
	}
	return thePeer
}

func startPeer() (*peer, error) {
	e, err := Open(Config{Rank: 0, Size: 2})
	if err != nil {
		return nil, err
	}
	toR, toW, err := os.Pipe()
	if err != nil {
		e.Close()
		return nil, err
	}
	fromR, fromW, err := os.Pipe()
	if err != nil {
		e.Close()
		return nil, err
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envChild+"=1", EnvProvider+"="+e.Provider())
	cmd.ExtraFiles = []*os.File{toR, fromW}
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		e.Close()
		return nil, err
	}
	toR.Close()
	fromW.Close()
	p := &peer{cmd: cmd, toCh: toW, ep: e}
	p.deliver = func(h *transport.Header, b []byte) {
		p.got++
		p.lastH = *h
		p.last = append(p.last[:0], b...)
	}
	fail := func(err error) (*peer, error) {
		toW.Close()
		cmd.Process.Kill()
		cmd.Wait()
		e.Close()
		return nil, err
	}
	if err := writeName(toW, e.Name()); err != nil {
		return fail(err)
	}
	name1, err := readName(fromR)
	fromR.Close()
	if err != nil {
		return fail(fmt.Errorf("reading rank 1's name: %w", err))
	}
	if err := e.Connect([][]byte{e.Name(), name1}); err != nil {
		return fail(err)
	}
	return p, nil
}

// await polls until n more messages than before have arrived.
func (p *peer) await(before int) error {
	deadline := time.Now().Add(30 * time.Second)
	for p.got == before {
		if p.ep.Poll(p.deliver) == 0 {
			idle()
		}
		if p.got == before && time.Now().After(deadline) {
			return fmt.Errorf("no reply from rank 1 after 30s")
		}
	}
	return p.ep.Err()
}

func stopPeer() {
	if thePeer == nil {
		return
	}
	p := thePeer
	thePeer = nil
	h := transport.Header{Kind: transport.KindEager, Tag: tagQuit}
	before := p.got
	if sendRetry(p.ep, 1, &h, nil, p.deliver) == nil {
		p.await(before)
	}
	p.toCh.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			fmt.Fprintf(os.Stderr, "ofi test child: %v\n", err)
		}
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
	p.ep.Close()
}

func TestTwoProcessPingPong(t *testing.T) {
	p := getPeer(t)
	max := p.ep.MaxPayload()
	sizes := []int{0, 8, 100, 1000, 16 << 10, 60000, max}
	rng := rand.New(rand.NewPCG(5, 6))
	var rtt [2]time.Duration // small, large
	var nrt [2]int
	for i := 0; i < 1000; i++ {
		size := sizes[i%len(sizes)]
		b := payload(rng, size)
		h := header(0, tagPing, uint64(i), b)
		before := p.got
		start := time.Now()
		if err := sendRetry(p.ep, 1, &h, b, p.deliver); err != nil {
			t.Fatalf("ping %d: %v", i, err)
		}
		if err := p.await(before); err != nil {
			t.Fatalf("ping %d: %v", i, err)
		}
		k := 0
		if size > 1000 {
			k = 1
		}
		rtt[k] += time.Since(start)
		nrt[k]++
		want := h
		want.Src = 1
		if p.lastH != want {
			t.Fatalf("ping %d: echoed header %+v, want %+v", i, p.lastH, want)
		}
		if !bytes.Equal(p.last, b) || uint64(crc32.ChecksumIEEE(p.last)) != h.RecvReq {
			t.Fatalf("ping %d: echoed payload differs (%d bytes, want %d)", i, len(p.last), size)
		}
	}
	t.Logf("provider %s: mean round trip %v for messages <= 1000 B, %v for larger",
		p.ep.Provider(), rtt[0]/time.Duration(nrt[0]), rtt[1]/time.Duration(nrt[1]))
}

// BenchmarkLatency8B is a ping-pong of 8-byte payloads with rank 1 in another process;
// one-way latency is half the round trip.
func BenchmarkLatency8B(b *testing.B) {
	p := getPeer(b)
	buf := make([]byte, 8)
	h := transport.Header{Kind: transport.KindEager, Tag: tagPing}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		before := p.got
		if err := sendRetry(p.ep, 1, &h, buf, p.deliver); err != nil {
			b.Fatal(err)
		}
		if err := p.await(before); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/2/1000, "us/one-way")
}

// BenchmarkStream64K streams full 64 KiB frames (MaxPayload bytes of payload) to rank 1
// in another process and waits for its count at the end.
func BenchmarkStream64K(b *testing.B) {
	p := getPeer(b)
	buf := make([]byte, p.ep.MaxPayload())
	h := transport.Header{Kind: transport.KindEager, Tag: tagStream}
	b.SetBytes(int64(len(buf)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := sendRetry(p.ep, 1, &h, buf, p.deliver); err != nil {
			b.Fatal(err)
		}
	}
	end := transport.Header{Kind: transport.KindEager, Tag: tagStreamEnd}
	before := p.got
	if err := sendRetry(p.ep, 1, &end, nil, p.deliver); err != nil {
		b.Fatal(err)
	}
	if err := p.await(before); err != nil {
		b.Fatal(err)
	}
	if p.lastH.SendReq != uint64(b.N) {
		b.Fatalf("rank 1 counted %d messages, want %d", p.lastH.SendReq, b.N)
	}
}
