package pmi

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// socketPair returns the two ends of a Unix stream socket pair as files.
func socketPair(t *testing.T) (*os.File, *os.File) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	return os.NewFile(uintptr(fds[0]), "pmi-server"), os.NewFile(uintptr(fds[1]), "pmi-client")
}

// fileConn turns f into a net.Conn and closes f.
func fileConn(t *testing.T, f *os.File) net.Conn {
	t.Helper()
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// transport connects rank r of srv and returns its client.
type transport struct {
	name    string
	connect func(t *testing.T, srv *Server, r int) (*v1Client, error)
}

var transports = []transport{
	{"socketpair", func(t *testing.T, srv *Server, r int) (*v1Client, error) {
		se, ce := socketPair(t)
		if err := srv.Serve(r, fileConn(t, se)); err != nil {
			t.Fatal(err)
		}
		return newClient(fileConn(t, ce), r, srv.Size())
	}},
	{"tcp", func(t *testing.T, srv *Server, r int) (*v1Client, error) {
		addr := tcpAddr(t, srv)
		return connectPort(addr, strconv.Itoa(r))
	}},
}

var tcpAddrs sync.Map // *Server -> string

func tcpAddr(t *testing.T, srv *Server) string {
	if a, ok := tcpAddrs.Load(srv); ok {
		return a.(string)
	}
	addr, err := srv.ListenTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := tcpAddrs.LoadOrStore(srv, addr)
	return a.(string)
}

// eventLog collects a server's events in the background.
type eventLog struct {
	mu     sync.Mutex
	events []Event
	done   chan struct{}
}

func collect(srv *Server) *eventLog {
	l := &eventLog{done: make(chan struct{})}
	go func() {
		defer close(l.done)
		for ev := range srv.Events() {
			l.mu.Lock()
			l.events = append(l.events, ev)
			l.mu.Unlock()
		}
	}()
	return l
}

// wait waits until pred holds for the events seen so far.
func (l *eventLog) wait(t *testing.T, what string, pred func([]Event) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		l.mu.Lock()
		ok := pred(l.events)
		l.mu.Unlock()
		if ok {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	t.Fatalf("timed out waiting for %s; events: %+v", what, l.events)
}

func count(evs []Event, kind EventKind) int {
	n := 0
	for _, ev := range evs {
		if ev.Kind == kind {
			n++
		}
	}
	return n
}

// startJob starts a server of n ranks and connects n clients over tr.
func startJob(t *testing.T, tr transport, n int) (*Server, []*v1Client) {
	t.Helper()
	srv := NewServer(n)
	t.Cleanup(func() { srv.Close() })
	clients := make([]*v1Client, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := range n {
		wg.Go(func() { clients[r], errs[r] = tr.connect(t, srv, r) })
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: connect: %v", r, err)
		}
	}
	return srv, clients
}

// runRanks runs f for every client concurrently and fails on any error.
func runRanks(t *testing.T, clients []*v1Client, f func(c *v1Client) error) {
	t.Helper()
	errs := make([]error, len(clients))
	var wg sync.WaitGroup
	for r, c := range clients {
		wg.Go(func() { errs[r] = f(c) })
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}

func TestClientServer(t *testing.T) {
	const n = 4
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			srv, clients := startJob(t, tr, n)
			log := collect(srv)
			runRanks(t, clients, func(c *v1Client) error {
				if c.Singleton() || c.Size() != n || c.UniverseSize() != n || c.AppNum() != 0 {
					return fmt.Errorf("singleton=%v size=%d universe=%d appnum=%d", c.Singleton(), c.Size(), c.UniverseSize(), c.AppNum())
				}
				if c.KVSName() != srv.KVSName() {
					return fmt.Errorf("kvsname %q, server's %q", c.KVSName(), srv.KVSName())
				}
				key := fmt.Sprintf("card-%d", c.Rank())
				val := fmt.Sprintf("rank %d = %%ok\n\x00", c.Rank())
				if err := c.Put(key, val); err != nil {
					return err
				}
				// Hydra's rule: not visible before the fence, not even here.
				if _, err := c.Get(-1, key); !errors.Is(err, ErrNotFound) {
					return fmt.Errorf("get before fence: %v, want ErrNotFound", err)
				}
				if err := c.Fence(); err != nil {
					return err
				}
				for r := range n {
					got, err := c.Get(-1, fmt.Sprintf("card-%d", r))
					want := fmt.Sprintf("rank %d = %%ok\n\x00", r)
					if err != nil || got != want {
						return fmt.Errorf("get card-%d = %q, %v; want %q", r, got, err, want)
					}
				}
				if _, err := c.Get(-1, "missing"); !errors.Is(err, ErrNotFound) {
					return fmt.Errorf("get missing: %v, want ErrNotFound", err)
				}
				if m, err := c.Get(-1, "PMI_process_mapping"); err != nil || m != fmt.Sprintf("(vector,(0,1,%d))", n) {
					return fmt.Errorf("PMI_process_mapping = %q, %v", m, err)
				}
				if err := c.Finalize(); err != nil {
					return err
				}
				if err := c.Finalize(); err != nil {
					return fmt.Errorf("second finalize: %v", err)
				}
				if err := c.Put("x", "y"); !errors.Is(err, ErrFinalized) {
					return fmt.Errorf("put after finalize: %v", err)
				}
				return nil
			})
			ranks := map[int]bool{}
			for _, c := range clients {
				ranks[c.Rank()] = true
			}
			if len(ranks) != n {
				t.Errorf("ranks %v, want 0..%d each once", ranks, n-1)
			}
			log.wait(t, "init and finalize of every rank", func(evs []Event) bool {
				return count(evs, EventInit) == n && count(evs, EventFinalize) == n
			})
			for r := range n {
				st := srv.WaitClosed(r, 5*time.Second)
				if !st.Connected || !st.Initialized || !st.Finalized || st.Aborted || !st.Closed {
					t.Errorf("rank %d status %+v", r, st)
				}
			}
			if count(log.events, EventDisconnect)+count(log.events, EventError) != 0 {
				t.Errorf("unexpected events %+v", log.events)
			}
		})
	}
}

func TestFenceRounds(t *testing.T) {
	const n, rounds = 5, 4
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			_, clients := startJob(t, tr, n)
			runRanks(t, clients, func(c *v1Client) error {
				for round := range rounds {
					// A per-round key and one key everybody overwrites.
					if err := c.Put(fmt.Sprintf("r%d-%d", round, c.Rank()), strconv.Itoa(round*100+c.Rank())); err != nil {
						return err
					}
					if err := c.Put(fmt.Sprintf("last-%d", c.Rank()), strconv.Itoa(round)); err != nil {
						return err
					}
					if err := c.Fence(); err != nil {
						return err
					}
					for r := range n {
						peer := (c.Rank() + r) % n
						v, err := c.Get(-1, fmt.Sprintf("r%d-%d", round, peer))
						if err != nil || v != strconv.Itoa(round*100+peer) {
							return fmt.Errorf("round %d: get from %d = %q, %v", round, peer, v, err)
						}
						if v, err := c.Get(-1, fmt.Sprintf("last-%d", peer)); err != nil || v != strconv.Itoa(round) {
							return fmt.Errorf("round %d: last-%d = %q, %v", round, peer, v, err)
						}
					}
					if _, err := c.Get(-1, fmt.Sprintf("r%d-0", round+1)); !errors.Is(err, ErrNotFound) {
						return fmt.Errorf("round %d: next round's key visible: %v", round, err)
					}
				}
				return c.Finalize()
			})
		})
	}
}

// TestFenceWaitsForAll checks that a fence does not complete before the
// last rank enters it.
func TestFenceWaitsForAll(t *testing.T) {
	_, clients := startJob(t, transports[0], 3)
	released := make(chan int, 3)
	for _, c := range clients[:2] {
		go func() {
			if err := c.Fence(); err != nil {
				t.Error(err)
			}
			released <- c.Rank()
		}()
	}
	select {
	case r := <-released:
		t.Fatalf("rank %d left the fence before rank 2 entered it", r)
	case <-time.After(200 * time.Millisecond):
	}
	if err := clients[2].Fence(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		select {
		case <-released:
		case <-time.After(5 * time.Second):
			t.Fatal("fence did not release the waiting ranks")
		}
	}
}

func TestAbortEvent(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			srv, clients := startJob(t, tr, 2)
			log := collect(srv)
			msg := "rank 1: bad thing = 100% wrong\nreally"
			if err := clients[1].Abort(7, msg); err != nil {
				t.Fatal(err)
			}
			clients[1].conn.Close() // the process exits
			log.wait(t, "abort event", func(evs []Event) bool { return count(evs, EventAbort) == 1 })
			var ev Event
			for _, e := range log.events {
				if e.Kind == EventAbort {
					ev = e
				}
			}
			if ev.Rank != 1 || ev.Code != 7 || ev.Message != msg {
				t.Errorf("abort event %+v, want rank 1 code 7 message %q", ev, msg)
			}
			st := srv.WaitClosed(1, 5*time.Second)
			if !st.Aborted || st.AbortCode != 7 || st.AbortMessage != msg || !st.Closed || st.Finalized {
				t.Errorf("status after abort %+v", st)
			}
			// An abort is not also reported as a disconnect.
			time.Sleep(50 * time.Millisecond)
			log.mu.Lock()
			if n := count(log.events, EventDisconnect); n != 0 {
				t.Errorf("%d disconnect events after abort", n)
			}
			log.mu.Unlock()
		})
	}
}

func TestAbortLongMessage(t *testing.T) {
	srv, clients := startJob(t, transports[0], 1)
	log := collect(srv)
	msg := strings.Repeat("é", 1000) // every byte escaped: far over the limit
	if err := clients[0].Abort(3, msg); err != nil {
		t.Fatal(err)
	}
	log.wait(t, "abort event", func(evs []Event) bool { return count(evs, EventAbort) == 1 })
	got := log.events[len(log.events)-1].Message
	if len(got) == 0 || !strings.HasPrefix(msg, got) {
		t.Errorf("cut message %q is not a prefix of the original", got)
	}
}

func TestDisconnectEvent(t *testing.T) {
	srv, clients := startJob(t, transports[0], 2)
	log := collect(srv)
	clients[0].conn.Close() // dies after init, without finalize
	log.wait(t, "disconnect of rank 0", func(evs []Event) bool {
		return count(evs, EventDisconnect) == 1
	})
	st := srv.WaitClosed(0, time.Second)
	if !st.Initialized || st.Finalized || !st.Closed {
		t.Errorf("status %+v", st)
	}
	if err := clients[1].Finalize(); err != nil {
		t.Fatal(err)
	}
}

func TestSingleton(t *testing.T) {
	for _, v := range []string{"PMI_FD", "PMI_PORT", "PMI_ID", "PMI_RANK", "PMI_SIZE"} {
		t.Setenv(v, "")
	}
	c, err := Connect()
	if err != nil {
		t.Fatal(err)
	}
	if !c.Singleton() || c.Rank() != 0 || c.Size() != 1 || c.UniverseSize() != 1 || c.AppNum() != 0 {
		t.Fatalf("singleton: singleton=%v rank=%d size=%d universe=%d appnum=%d",
			c.Singleton(), c.Rank(), c.Size(), c.UniverseSize(), c.AppNum())
	}
	if err := c.Put("k", "v w=x"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(-1, "k"); !errors.Is(err, ErrNotFound) {
		t.Errorf("get before fence: %v, want ErrNotFound", err)
	}
	if err := c.Fence(); err != nil {
		t.Fatal(err)
	}
	if v, err := c.Get(-1, "k"); err != nil || v != "v w=x" {
		t.Errorf("get = %q, %v", v, err)
	}
	if err := c.Put("bad key", "v"); err == nil {
		t.Error("put with a space in the key succeeded")
	}
	if err := c.Abort(1, "no launcher"); err != nil {
		t.Errorf("singleton abort: %v", err)
	}
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(-1, "k"); !errors.Is(err, ErrFinalized) {
		t.Errorf("get after finalize: %v, want ErrFinalized", err)
	}
	if err := c.Fence(); !errors.Is(err, ErrFinalized) {
		t.Errorf("fence after finalize: %v, want ErrFinalized", err)
	}
}

// TestConnectEnv checks Connect's reading of the environment in both modes.
func TestConnectEnv(t *testing.T) {
	t.Run("PMI_FD", func(t *testing.T) {
		srv := NewServer(2)
		defer srv.Close()
		se, ce := socketPair(t)
		if err := srv.Serve(1, fileConn(t, se)); err != nil {
			t.Fatal(err)
		}
		defer ce.Close()
		// A child would inherit the descriptor; hand Connect a copy.
		fd, err := syscall.Dup(int(ce.Fd()))
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv("PMI_PORT", "")
		t.Setenv("PMI_FD", strconv.Itoa(fd))
		t.Setenv("PMI_RANK", "1")
		t.Setenv("PMI_SIZE", "2")
		c, err := Connect()
		if err != nil {
			t.Fatal(err)
		}
		if c.Rank() != 1 || c.Size() != 2 || c.Singleton() {
			t.Errorf("rank %d size %d singleton %v", c.Rank(), c.Size(), c.Singleton())
		}
		// Connect closed the inherited descriptor (it keeps its own dup).
		var st syscall.Stat_t
		if err := syscall.Fstat(fd, &st); err == nil {
			t.Errorf("PMI_FD %d still open after Connect", fd)
		}
		if !srv.Status(1).Initialized {
			t.Error("server did not see the init")
		}
		c.(*v1Client).conn.Close()
	})
	t.Run("PMI_PORT", func(t *testing.T) {
		srv := NewServer(3)
		defer srv.Close()
		addr, err := srv.ListenTCP("127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv("PMI_FD", "")
		t.Setenv("PMI_PORT", addr)
		t.Setenv("PMI_ID", "2")
		t.Setenv("PMI_RANK", "0") // ignored: the server says who we are
		t.Setenv("PMI_SIZE", "1")
		c, err := Connect()
		if err != nil {
			t.Fatal(err)
		}
		if c.Rank() != 2 || c.Size() != 3 {
			t.Errorf("rank %d size %d, want 2 and 3", c.Rank(), c.Size())
		}
		c.(*v1Client).conn.Close()
	})
	bad := []struct {
		name string
		env  map[string]string
	}{
		{"fd not a number", map[string]string{"PMI_FD": "x", "PMI_RANK": "0", "PMI_SIZE": "1"}},
		{"fd without rank", map[string]string{"PMI_FD": "0", "PMI_SIZE": "1"}},
		{"rank beyond size", map[string]string{"PMI_FD": "0", "PMI_RANK": "2", "PMI_SIZE": "2"}},
		{"fd not a socket", map[string]string{"PMI_FD": "999", "PMI_RANK": "0", "PMI_SIZE": "1"}},
		{"port without id", map[string]string{"PMI_PORT": "127.0.0.1:1"}},
		{"port refused", map[string]string{"PMI_PORT": "127.0.0.1:1", "PMI_ID": "0"}},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			for _, v := range []string{"PMI_FD", "PMI_PORT", "PMI_ID", "PMI_RANK", "PMI_SIZE"} {
				t.Setenv(v, tt.env[v])
			}
			if c, err := Connect(); err == nil {
				t.Errorf("Connect succeeded: rank %d size %d", c.Rank(), c.Size())
			}
		})
	}
}

func TestPutLimits(t *testing.T) {
	_, clients := startJob(t, transports[0], 1)
	c := clients[0]
	if c.MaxKeyLen() != 63 || c.MaxEncodedValueLen() != 1023 || c.MaxValueLen() != 341 {
		t.Fatalf("limits: key %d, encoded value %d, value %d", c.MaxKeyLen(), c.MaxEncodedValueLen(), c.MaxValueLen())
	}
	worst := strings.Repeat("\x00", c.MaxValueLen()) // every byte escaped
	text := strings.Repeat("t", c.MaxEncodedValueLen())
	tests := []struct {
		key, val string
		ok       bool
	}{
		{strings.Repeat("k", 63), "v", true},
		{strings.Repeat("k", 64), "v", false},
		{"", "v", false},
		{"a b", "v", false},
		{"a=b", "v", false},
		{"worst", worst, true},
		{"worst1", worst + "\x00", false},
		{"text", text, true},
		{"text1", text + "t", false},
	}
	for _, tt := range tests {
		if err := c.Put(tt.key, tt.val); (err == nil) != tt.ok {
			t.Errorf("Put(%.20q, %d bytes) = %v, want ok=%v", tt.key, len(tt.val), err, tt.ok)
		}
	}
	if err := c.Fence(); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"worst": worst, "text": text} {
		if got, err := c.Get(-1, key); err != nil || got != want {
			t.Errorf("Get(%s) = %d bytes, %v", key, len(got), err)
		}
	}
}

// rawConn speaks raw wire lines to a server, as a foreign client would.
type rawConn struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
}

func dialRaw(t *testing.T, srv *Server, rank int) *rawConn {
	se, ce := socketPair(t)
	if err := srv.Serve(rank, fileConn(t, se)); err != nil {
		t.Fatal(err)
	}
	c := fileConn(t, ce)
	t.Cleanup(func() { c.Close() })
	return &rawConn{t, c, bufio.NewReader(c)}
}

func (c *rawConn) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.conn, line+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

func (c *rawConn) recv() string {
	c.t.Helper()
	c.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := readLine(c.r)
	if err != nil {
		c.t.Fatal(err)
	}
	return strings.TrimSuffix(line, "\n")
}

// TestServerWire checks the server's replies line by line, in the forms
// Hydra uses, and its tolerance of MPICH's unencoded values.
func TestServerWire(t *testing.T) {
	srv := NewServer(1)
	defer srv.Close()
	log := collect(srv)
	c := dialRaw(t, srv, 0)
	kvs := srv.KVSName()
	exchanges := []struct{ send, want string }{
		{"cmd=init pmi_version=2 pmi_subversion=0", "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1"},
		{"cmd=init pmi_version=1 pmi_subversion=1", "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0"},
		{"cmd=get_maxes", "cmd=maxes rc=0 kvsname_max=256 keylen_max=64 vallen_max=1024"},
		{"cmd=get_appnum", "cmd=appnum appnum=0"},
		{"cmd=get_my_kvsname", "cmd=my_kvsname kvsname=" + kvs},
		{"cmd=get_universe_size", "cmd=universe_size size=1"},
		{"cmd=put kvsname=" + kvs + " key=hex value=2F6465762F", "cmd=put_result rc=0 msg=success"},
		{"cmd=put kvsname=other key=a value=b", "cmd=put_result rc=-1 msg=unknown_kvsname"},
		{"cmd=put kvsname=" + kvs + " key=" + strings.Repeat("k", 64) + " value=b", "cmd=put_result rc=-1 msg=key_too_long"},
		{"cmd=put kvsname=" + kvs + " key=v value=" + strings.Repeat("v", 1024), "cmd=put_result rc=-1 msg=value_too_long"},
		{"cmd=get kvsname=" + kvs + " key=hex", "cmd=get_result rc=-1 msg=key_hex_not_found value=unknown"},
		{"cmd=barrier_in", "cmd=barrier_out"},
		{"cmd=get kvsname=" + kvs + " key=hex", "cmd=get_result rc=0 msg=success value=2F6465762F"},
		{"cmd=get kvsname=wrong key=hex", "cmd=get_result rc=-1 msg=unknown_kvsname value=unknown"},
		{"cmd=lookup_name service=x", "cmd=lookup_result rc=-1 msg=unsupported"},
		{"cmd=bogus", "cmd=error rc=-1 msg=unknown_command"},
		{"nonsense", "cmd=error rc=-1 msg=malformed_command"},
		{"cmd=finalize", "cmd=finalize_ack"},
	}
	for _, ex := range exchanges {
		c.send(ex.send)
		if got := c.recv(); got != ex.want {
			t.Errorf("%.60q:\n got  %q\n want %q", ex.send, got, ex.want)
		}
	}
	log.wait(t, "events", func(evs []Event) bool {
		return count(evs, EventInit) == 1 && count(evs, EventFinalize) == 1 && count(evs, EventError) == 4
	})
}

func TestServerAbortForms(t *testing.T) {
	tests := []struct {
		line string
		code int
		msg  string
	}{
		{"cmd=abort exitcode=5", 5, ""},                                  // MPICH 4.0
		{"cmd=abort exitcode=3 error_msg=hello there", 3, "hello there"}, // unencoded words
		{"cmd=abort exitcode=-1 message=a%20b%3Dc", -1, "a b=c"},         // ours
		{"cmd=abort exitcode=2 message=100%", 2, "100%"},                 // not an encoding
		{"cmd=abort", 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			srv := NewServer(1)
			defer srv.Close()
			log := collect(srv)
			c := dialRaw(t, srv, 0)
			c.send("cmd=init pmi_version=1 pmi_subversion=1")
			c.recv()
			c.send(tt.line)
			c.send(tt.line) // a second abort is not reported again
			c.conn.Close()
			st := srv.WaitClosed(0, 5*time.Second)
			if !st.Aborted || st.AbortCode != tt.code || st.AbortMessage != tt.msg {
				t.Errorf("status %+v, want code %d message %q", st, tt.code, tt.msg)
			}
			log.wait(t, "abort", func(evs []Event) bool { return count(evs, EventAbort) == 1 })
			time.Sleep(20 * time.Millisecond)
			log.mu.Lock()
			defer log.mu.Unlock()
			if count(log.events, EventAbort) != 1 || count(log.events, EventDisconnect) != 0 {
				t.Errorf("events %+v", log.events)
			}
		})
	}
}

func TestServerPortHandshakeErrors(t *testing.T) {
	srv := NewServer(2)
	defer srv.Close()
	log := collect(srv)
	addr, err := srv.ListenTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	first, err := connectPort(addr, "1")
	if err != nil {
		t.Fatal(err)
	}
	defer first.conn.Close()
	for _, id := range []string{"1", "2", "-1"} { // taken, out of range, negative
		if c, err := connectPort(addr, id); err == nil {
			t.Errorf("connect as PMI_ID %s succeeded: rank %d", id, c.Rank())
		}
	}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(conn, "cmd=init pmi_version=1 pmi_subversion=1\n")
	if line, _ := bufio.NewReader(conn).ReadString('\n'); line != "cmd=initack rc=-1\n" {
		t.Errorf("init without initack answered %q", line)
	}
	conn.Close()
	log.wait(t, "handshake errors", func(evs []Event) bool { return count(evs, EventError) == 4 })
}

func TestServerClose(t *testing.T) {
	srv := NewServer(2)
	se, ce := socketPair(t)
	if err := srv.Serve(0, fileConn(t, se)); err != nil {
		t.Fatal(err)
	}
	client, err := newClient(fileConn(t, ce), 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	addr, err := srv.ListenTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// A connection stuck before its handshake must not hold up Close.
	idle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	fenceErr := make(chan error, 1)
	go func() { fenceErr <- client.Fence() }() // waits for rank 1 forever
	time.Sleep(50 * time.Millisecond)
	done := make(chan struct{})
	go func() { srv.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close hangs")
	}
	if err := <-fenceErr; err == nil {
		t.Error("fence succeeded on a closed server")
	}
	if _, ok := <-srv.Events(); ok {
		// Drain: the channel must be closed, possibly after queued events.
		for range srv.Events() {
		}
	}
	se, _ = socketPair(t)
	if err := srv.Serve(1, fileConn(t, se)); err == nil {
		t.Error("Serve after Close succeeded")
	}
	if _, err := srv.ListenTCP("127.0.0.1:0"); err == nil {
		t.Error("ListenTCP after Close succeeded")
	}
	if err := srv.Close(); err != nil {
		t.Error(err)
	}
}

func TestServerServeErrors(t *testing.T) {
	srv := NewServer(1)
	defer srv.Close()
	for _, rank := range []int{-1, 1} {
		se, _ := socketPair(t)
		if err := srv.Serve(rank, fileConn(t, se)); err == nil {
			t.Errorf("Serve(rank %d) of a 1-rank job succeeded", rank)
		}
	}
	se, _ := socketPair(t)
	if err := srv.Serve(0, fileConn(t, se)); err != nil {
		t.Fatal(err)
	}
	se, _ = socketPair(t)
	if err := srv.Serve(0, fileConn(t, se)); err == nil {
		t.Error("second Serve of rank 0 succeeded")
	}
	if st := srv.WaitClosed(5, time.Second); st.Connected {
		t.Error("status of a rank beyond the job")
	}
}

func TestEventKindString(t *testing.T) {
	for k, want := range map[EventKind]string{EventInit: "init", EventFinalize: "finalize",
		EventAbort: "abort", EventDisconnect: "disconnect", EventError: "error", 42: "EventKind(42)"} {
		if k.String() != want {
			t.Errorf("%d.String() = %q, want %q", int(k), k.String(), want)
		}
	}
}
