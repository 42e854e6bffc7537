package pmi

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"time"
)

// EventKind says what a rank did.
type EventKind int

// The events a Server reports.
const (
	// EventInit: the rank completed the PMI init exchange.
	EventInit EventKind = iota + 1
	// EventFinalize: the rank called finalize (MPI_Finalize).
	EventFinalize
	// EventAbort: the rank asked to abort the job; Code and Message say
	// with what.
	EventAbort
	// EventDisconnect: the rank's connection closed after init without
	// finalize or abort (the process most likely died).
	EventDisconnect
	// EventError: the rank sent something the server could not serve;
	// Message describes it. The server answered with an error and goes on.
	EventError
)

func (k EventKind) String() string {
	switch k {
	case EventInit:
		return "init"
	case EventFinalize:
		return "finalize"
	case EventAbort:
		return "abort"
	case EventDisconnect:
		return "disconnect"
	case EventError:
		return "error"
	}
	return "EventKind(" + strconv.Itoa(int(k)) + ")"
}

// Event is one thing a rank did, as the server saw it.
type Event struct {
	Kind    EventKind
	Rank    int
	Code    int    // EventAbort: the exit code the rank asked for
	Message string // EventAbort: the rank's reason; EventError: what went wrong
}

// RankStatus is what the server knows about one rank.
type RankStatus struct {
	Connected    bool // a connection for the rank exists or existed
	Closed       bool // that connection has ended
	Initialized  bool // init completed
	Finalized    bool // finalize received
	Aborted      bool // abort received
	AbortCode    int
	AbortMessage string
}

// Limits the server announces in "maxes": Hydra's, so that code tested
// under mpixexec behaves the same under Hydra.
const (
	serverKVSNameMax = defaultKVSNameMax
	serverKeyLenMax  = defaultKeyLenMax
	serverValLenMax  = defaultValLenMax
)

// Server is the process-manager side of PMI-1 for one job of Size ranks.
// Each rank talks to it over its own connection: a socket handed over with
// Serve (PMI_FD mode) or accepted on a listener opened with ListenTCP
// (PMI_PORT mode). It keeps the job's KVS, implements the barrier across all
// ranks that publishes puts, and reports events on Events.
//
// All methods are safe for concurrent use.
type Server struct {
	size    int
	kvsname string

	mu        sync.Mutex
	ranks     []rankState
	kvs       map[string]string
	pending   []kvPair // puts since the last barrier, in arrival order
	inBarrier int
	listeners []net.Listener
	conns     map[*serverConn]struct{}
	closed    bool

	// Event queue: unbounded, so that serving a rank never waits for the
	// owner; a pump goroutine feeds it to events.
	evMu    sync.Mutex
	evCond  *sync.Cond
	evQueue []Event
	evDone  bool
	events  chan Event
	quit    chan struct{} // closed by Close

	wg sync.WaitGroup
}

type kvPair struct{ key, val string }

type rankState struct {
	status    RankStatus
	conn      *serverConn
	inBarrier bool
	done      chan struct{} // closed when the connection ends
}

type serverConn struct {
	conn net.Conn
	r    *bufio.Reader
	wmu  sync.Mutex
	rank int
}

func (c *serverConn) send(line string) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := io.WriteString(c.conn, line)
	return err
}

// NewServer returns a server for a job of size ranks. Its KVS already holds
// PMI_process_mapping, saying that all ranks share one node.
func NewServer(size int) *Server {
	if size <= 0 {
		panic("pmi: NewServer: size must be positive")
	}
	s := &Server{
		size:    size,
		kvsname: fmt.Sprintf("kvs_%d_0", os.Getpid()),
		ranks:   make([]rankState, size),
		kvs: map[string]string{
			"PMI_process_mapping": fmt.Sprintf("(vector,(0,1,%d))", size),
		},
		conns:  map[*serverConn]struct{}{},
		events: make(chan Event),
		quit:   make(chan struct{}),
	}
	for i := range s.ranks {
		s.ranks[i].done = make(chan struct{})
	}
	s.evCond = sync.NewCond(&s.evMu)
	s.wg.Add(1)
	go s.pump()
	return s
}

// Size returns the number of ranks in the job.
func (s *Server) Size() int { return s.size }

// KVSName returns the name of the job's KVS.
func (s *Server) KVSName() string { return s.kvsname }

// Events returns the channel on which the server reports what ranks do, in
// the order it saw it. The server never waits for the reader: events queue
// up until read. The channel is closed by Close.
func (s *Server) Events() <-chan Event { return s.events }

// emit queues an event for the owner.
func (s *Server) emit(ev Event) {
	s.evMu.Lock()
	if !s.evDone {
		s.evQueue = append(s.evQueue, ev)
		s.evCond.Signal()
	}
	s.evMu.Unlock()
}

// pump moves queued events to the events channel until Close.
func (s *Server) pump() {
	defer s.wg.Done()
	defer close(s.events)
	for {
		s.evMu.Lock()
		for len(s.evQueue) == 0 && !s.evDone {
			s.evCond.Wait()
		}
		if s.evDone {
			s.evMu.Unlock()
			return
		}
		ev := s.evQueue[0]
		s.evQueue = s.evQueue[1:]
		s.evMu.Unlock()
		select {
		case s.events <- ev:
		case <-s.quit:
			return
		}
	}
}

// Status returns what the server knows about rank.
func (s *Server) Status(rank int) RankStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rank < 0 || rank >= s.size {
		return RankStatus{}
	}
	return s.ranks[rank].status
}

// WaitClosed waits up to timeout for rank's connection to end, then
// returns its status. A launcher calls it when the rank's process has exited,
// so that an abort or finalize still in the socket is read before it judges
// the exit. It returns at once for a rank that never connected.
func (s *Server) WaitClosed(rank int, timeout time.Duration) RankStatus {
	if rank < 0 || rank >= s.size {
		return RankStatus{}
	}
	s.mu.Lock()
	connected := s.ranks[rank].status.Connected
	done := s.ranks[rank].done
	s.mu.Unlock()
	if connected {
		t := time.NewTimer(timeout)
		select {
		case <-done:
		case <-t.C:
		}
		t.Stop()
	}
	return s.Status(rank)
}

// Serve serves rank over conn (PMI_FD mode: the launcher's end of the
// rank's socket pair) in a new goroutine. The server owns conn from then on.
func (s *Server) Serve(rank int, conn net.Conn) error {
	c := &serverConn{conn: conn, r: bufio.NewReader(conn), rank: rank}
	if !s.track(c) {
		conn.Close()
		return errors.New("pmi: server closed")
	}
	if err := s.attach(c); err != nil {
		s.untrack(c)
		return err
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.serveConn(c)
	}()
	return nil
}

// track records c so that Close can close it; false if the server is closed.
func (s *Server) track(c *serverConn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

// untrack forgets c and closes it.
func (s *Server) untrack(c *serverConn) {
	c.conn.Close()
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// attach registers c, tracked already, as the connection of c.rank.
func (s *Server) attach(c *serverConn) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("pmi: server closed")
	}
	if c.rank < 0 || c.rank >= s.size {
		return fmt.Errorf("pmi: rank %d out of range for a job of %d", c.rank, s.size)
	}
	st := &s.ranks[c.rank]
	if st.status.Connected {
		return fmt.Errorf("pmi: rank %d is already connected", c.rank)
	}
	st.status.Connected = true
	st.conn = c
	return nil
}

// ListenTCP opens a TCP listener on addr (use "127.0.0.1:0" for a free
// loopback port) for PMI_PORT mode and accepts ranks on it until Close. It
// returns the address to put in PMI_PORT. A connecting client identifies
// itself with "cmd=initack pmiid=ID"; ID is its rank.
func (s *Server) ListenTCP(addr string) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("pmi: listen: %w", err)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ln.Close()
		return "", errors.New("pmi: server closed")
	}
	s.listeners = append(s.listeners, ln)
	s.mu.Unlock()
	s.wg.Add(1)
	go s.accept(ln)
	return ln.Addr().String(), nil
}

func (s *Server) accept(ln net.Listener) {
	defer s.wg.Done()
	for {
		conn, err := ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return // closed
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.handshake(conn)
		}()
	}
}

// handshakeTimeout bounds the wait for the initack line of a new TCP
// connection.
const handshakeTimeout = time.Minute

// handshake reads the PMI_PORT initack, answers it, and serves the rank.
func (s *Server) handshake(conn net.Conn) {
	c := &serverConn{conn: conn, r: bufio.NewReader(conn), rank: -1}
	if !s.track(c) {
		conn.Close()
		return
	}
	conn.SetReadDeadline(time.Now().Add(handshakeTimeout))
	line, err := readLine(c.r)
	if err != nil {
		s.untrack(c)
		return
	}
	conn.SetReadDeadline(time.Time{})
	m, err := parseMessage(line)
	if err == nil && m.cmd != "initack" {
		err = fmt.Errorf("expected cmd=initack first, got cmd=%s", m.cmd)
	}
	if err == nil {
		c.rank, err = m.getInt("pmiid")
	}
	if err == nil {
		err = s.attach(c)
	}
	if err != nil {
		s.emit(Event{Kind: EventError, Rank: c.rank, Message: "PMI_PORT handshake: " + err.Error()})
		c.send(formatMessage("initack", "rc", "-1"))
		s.untrack(c)
		return
	}
	err = c.send(formatMessage("initack") +
		formatMessage("set", "size", strconv.Itoa(s.size)) +
		formatMessage("set", "rank", strconv.Itoa(c.rank)) +
		formatMessage("set", "debug", "0"))
	if err != nil {
		s.detach(c, err)
		return
	}
	s.serveConn(c)
}

// serveConn answers c's requests until the connection ends.
func (s *Server) serveConn(c *serverConn) {
	for {
		line, err := readLine(c.r)
		if err != nil {
			s.detach(c, err)
			return
		}
		m, err := parseMessage(line)
		if err != nil {
			s.emit(Event{Kind: EventError, Rank: c.rank, Message: err.Error()})
			c.send(formatMessage("error", "rc", "-1", "msg", "malformed_command"))
			continue
		}
		if err := s.handle(c, &m); err != nil {
			s.detach(c, err)
			return
		}
	}
}

// detach records the end of c's connection.
func (s *Server) detach(c *serverConn, err error) {
	c.conn.Close()
	s.mu.Lock()
	st := &s.ranks[c.rank]
	delete(s.conns, c)
	if st.conn != c {
		s.mu.Unlock()
		return
	}
	st.status.Closed = true
	st.conn = nil
	if st.inBarrier {
		st.inBarrier = false
		s.inBarrier--
	}
	report := st.status.Initialized && !st.status.Finalized && !st.status.Aborted && !s.closed
	s.mu.Unlock()
	close(st.done)
	if report {
		msg := "connection closed"
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
			msg = err.Error()
		}
		s.emit(Event{Kind: EventDisconnect, Rank: c.rank, Message: msg})
	}
}

// unsupported are PMI-1 commands this server knows but does not implement,
// with the name of their reply.
var unsupported = map[string]string{
	"spawn":          "spawn_result",
	"publish_name":   "publish_result",
	"unpublish_name": "unpublish_result",
	"lookup_name":    "lookup_result",
}

// handle serves one request. An error return ends the connection.
func (s *Server) handle(c *serverConn, m *message) error {
	rank := c.rank
	switch m.cmd {
	case "init":
		v, _ := m.get("pmi_version")
		if v != "1" {
			s.emit(Event{Kind: EventError, Rank: rank, Message: "unsupported PMI version " + v})
			return c.send(formatMessage("response_to_init", "pmi_version", "1", "pmi_subversion", "1", "rc", "-1"))
		}
		s.mu.Lock()
		s.ranks[rank].status.Initialized = true
		s.mu.Unlock()
		s.emit(Event{Kind: EventInit, Rank: rank})
		return c.send(formatMessage("response_to_init", "pmi_version", "1", "pmi_subversion", "1", "rc", "0"))

	case "get_maxes":
		return c.send(formatMessage("maxes", "rc", "0",
			"kvsname_max", strconv.Itoa(serverKVSNameMax),
			"keylen_max", strconv.Itoa(serverKeyLenMax),
			"vallen_max", strconv.Itoa(serverValLenMax)))

	case "get_appnum":
		return c.send(formatMessage("appnum", "appnum", "0"))

	case "get_my_kvsname":
		return c.send(formatMessage("my_kvsname", "kvsname", s.kvsname))

	case "get_universe_size":
		return c.send(formatMessage("universe_size", "size", strconv.Itoa(s.size)))

	case "put":
		key, _ := m.get("key")
		val, _ := m.get("value")
		kvs, _ := m.get("kvsname")
		var bad string
		switch {
		case kvs != s.kvsname:
			bad = "unknown_kvsname"
		case key == "":
			bad = "missing_key"
		case len(key) >= serverKeyLenMax:
			bad = "key_too_long"
		case len(val) >= serverValLenMax:
			bad = "value_too_long"
		}
		if bad != "" {
			return c.send(formatMessage("put_result", "rc", "-1", "msg", bad))
		}
		s.mu.Lock()
		s.pending = append(s.pending, kvPair{key, val})
		s.mu.Unlock()
		return c.send(formatMessage("put_result", "rc", "0", "msg", "success"))

	case "barrier_in":
		return s.barrierIn(c)

	case "get":
		key, _ := m.get("key")
		kvs, _ := m.get("kvsname")
		if kvs != s.kvsname {
			return c.send(formatMessage("get_result", "rc", "-1", "msg", "unknown_kvsname", "value", "unknown"))
		}
		s.mu.Lock()
		val, ok := s.kvs[key]
		s.mu.Unlock()
		if !ok {
			msg := "key_not_found"
			if checkToken(key, true) == nil {
				msg = "key_" + key + "_not_found"
			}
			return c.send(formatMessage("get_result", "rc", "-1", "msg", msg, "value", "unknown"))
		}
		return c.send(formatMessage("get_result", "rc", "0", "msg", "success", "value", val))

	case "abort":
		code := 1
		if v, ok := m.get("exitcode"); ok {
			if n, err := strconv.Atoi(v); err == nil {
				code = n
			}
		}
		msg, ok := m.get("message")
		if !ok {
			msg, _ = m.get("error_msg")
		}
		msg = decodeLenient(msg)
		s.mu.Lock()
		st := &s.ranks[rank].status
		first := !st.Aborted
		if first {
			st.Aborted, st.AbortCode, st.AbortMessage = true, code, msg
		}
		s.mu.Unlock()
		if first {
			s.emit(Event{Kind: EventAbort, Rank: rank, Code: code, Message: msg})
		}
		return nil // no reply: the client exits

	case "finalize":
		s.mu.Lock()
		s.ranks[rank].status.Finalized = true
		s.mu.Unlock()
		s.emit(Event{Kind: EventFinalize, Rank: rank})
		return c.send(formatMessage("finalize_ack"))

	case "initack":
		s.emit(Event{Kind: EventError, Rank: rank, Message: "initack on an identified connection"})
		return c.send(formatMessage("initack", "rc", "-1"))
	}

	if reply, ok := unsupported[m.cmd]; ok {
		s.emit(Event{Kind: EventError, Rank: rank, Message: "unsupported PMI command " + m.cmd})
		return c.send(formatMessage(reply, "rc", "-1", "msg", "unsupported"))
	}
	s.emit(Event{Kind: EventError, Rank: rank, Message: "unknown PMI command " + strconv.Quote(m.cmd)})
	return c.send(formatMessage("error", "rc", "-1", "msg", "unknown_command"))
}

// barrierIn enters c's rank into the barrier; the last rank to enter
// publishes the pending puts and releases everyone.
func (s *Server) barrierIn(c *serverConn) error {
	s.mu.Lock()
	st := &s.ranks[c.rank]
	if st.inBarrier {
		s.mu.Unlock()
		s.emit(Event{Kind: EventError, Rank: c.rank, Message: "barrier_in while already in the barrier"})
		return nil
	}
	st.inBarrier = true
	s.inBarrier++
	if s.inBarrier < s.size {
		s.mu.Unlock()
		return nil
	}
	for _, p := range s.pending {
		s.kvs[p.key] = p.val
	}
	s.pending = nil
	s.inBarrier = 0
	release := make([]*serverConn, 0, s.size)
	for i := range s.ranks {
		if s.ranks[i].inBarrier {
			s.ranks[i].inBarrier = false
			release = append(release, s.ranks[i].conn)
		}
	}
	s.mu.Unlock()
	out := formatMessage("barrier_out")
	var err error
	for _, rc := range release {
		if e := rc.send(out); e != nil && rc == c {
			err = e
		}
		// A failed send to another rank ends that rank's own read
		// loop soon; nothing to do here.
	}
	return err
}

// Close stops the listeners, closes every rank's connection, waits for the
// server's goroutines and closes the Events channel. Events not yet read are
// dropped.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	for _, ln := range s.listeners {
		ln.Close()
	}
	for c := range s.conns {
		c.conn.Close()
	}
	s.mu.Unlock()
	s.evMu.Lock()
	s.evDone = true
	s.evQueue = nil
	s.evCond.Broadcast()
	s.evMu.Unlock()
	close(s.quit)
	s.wg.Wait()
	return nil
}
