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

// Limits the server announces when it gives none (Hydra's and ours).
const (
	defaultKVSNameMax = 256
	defaultKeyLenMax  = 64
	defaultValLenMax  = 1024
)

// dialTimeout bounds the TCP connect in PMI_PORT mode.
const dialTimeout = 30 * time.Second

// v1Client is one process's PMI-1 connection to its process manager.
//
// A v1Client is safe for concurrent use: calls are serialized, one request on
// the wire at a time, so a goroutine blocked in Fence holds up the others
// until the barrier completes.
type v1Client struct {
	mu        sync.Mutex
	conn      net.Conn // nil for a singleton
	r         *bufio.Reader
	rank      int
	size      int
	appnum    int
	universe  int
	kvsname   string
	keyLenMax int // server's keylen_max, terminating NUL included
	valLenMax int // server's vallen_max, terminating NUL included
	finalized bool

	// Singleton KVS: puts wait in pending until Fence commits them, as
	// with Hydra.
	committed map[string]string
	pending   map[string]string
}

// connectV1 finds a PMI-1 process manager through the environment and
// performs the init exchange with it:
//
//   - PMI_FD (with PMI_RANK and PMI_SIZE): use the inherited socket;
//   - PMI_PORT=host:port and PMI_ID: connect over TCP and learn rank and
//     size from the server;
//   - no PMI variable: return a singleton client (rank 0 of 1, in-process
//     KVS, Singleton() == true).
func connectV1() (*v1Client, error) {
	if fd := os.Getenv("PMI_FD"); fd != "" {
		return connectFD(fd, os.Getenv("PMI_RANK"), os.Getenv("PMI_SIZE"))
	}
	if port := os.Getenv("PMI_PORT"); port != "" {
		return connectPort(port, os.Getenv("PMI_ID"))
	}
	return newSingleton(), nil
}

func newSingleton() *v1Client {
	return &v1Client{
		size:      1,
		universe:  1,
		kvsname:   "singleton_kvs",
		keyLenMax: defaultKeyLenMax,
		valLenMax: defaultValLenMax,
		committed: map[string]string{},
		pending:   map[string]string{},
	}
}

// connectFD sets up a client on the inherited descriptor named by PMI_FD.
func connectFD(fdStr, rankStr, sizeStr string) (*v1Client, error) {
	fd, err := strconv.Atoi(fdStr)
	if err != nil || fd < 0 {
		return nil, fmt.Errorf("pmi: bad PMI_FD=%q", fdStr)
	}
	rank, err := strconv.Atoi(rankStr)
	if err != nil || rank < 0 {
		return nil, fmt.Errorf("pmi: PMI_FD is set but PMI_RANK=%q is not a rank", rankStr)
	}
	size, err := strconv.Atoi(sizeStr)
	if err != nil || size <= 0 || rank >= size {
		return nil, fmt.Errorf("pmi: PMI_FD is set but PMI_SIZE=%q is not a size for rank %d", sizeStr, rank)
	}
	f := os.NewFile(uintptr(fd), "PMI_FD")
	if f == nil {
		return nil, fmt.Errorf("pmi: bad PMI_FD=%d", fd)
	}
	// FileConn duplicates the descriptor (close-on-exec); closing the
	// inherited one keeps it out of processes this one starts.
	conn, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("pmi: PMI_FD=%d is not a usable socket: %w", fd, err)
	}
	return newClient(conn, rank, size)
}

// connectPort sets up a client over TCP to the PMI_PORT address.
func connectPort(addr, id string) (*v1Client, error) {
	if id == "" {
		return nil, fmt.Errorf("pmi: PMI_PORT=%s is set but PMI_ID is not", addr)
	}
	if _, err := strconv.Atoi(id); err != nil {
		return nil, fmt.Errorf("pmi: bad PMI_ID=%q", id)
	}
	conn, err := net.DialTimeout("tcp", addr, dialTimeout)
	if err != nil {
		return nil, fmt.Errorf("pmi: connect to PMI_PORT=%s: %w", addr, err)
	}
	c := &v1Client{conn: conn, r: bufio.NewReader(conn)}
	if err := c.initack(id); err != nil {
		conn.Close()
		return nil, err
	}
	if err := c.init(); err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

// newClient runs the init exchange over an already connected conn whose
// rank and size are known.
func newClient(conn net.Conn, rank, size int) (*v1Client, error) {
	c := &v1Client{conn: conn, r: bufio.NewReader(conn), rank: rank, size: size}
	if err := c.init(); err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

// initack is PMI_PORT mode's handshake: it identifies this process by
// PMI_ID and receives its size and rank.
func (c *v1Client) initack(id string) error {
	m, err := c.call(formatMessage("initack", "pmiid", id), "initack")
	if err != nil {
		return err
	}
	if m.rc() != 0 {
		return fmt.Errorf("pmi: process manager refused PMI_ID=%s (rc=%d)", id, m.rc())
	}
	// Hydra and MPICH's client: exactly three "set" lines follow.
	var haveRank, haveSize bool
	for range 3 {
		m, err := c.read()
		if err != nil {
			return err
		}
		if m.cmd != "set" || len(m.keys) != 1 {
			return fmt.Errorf("pmi: expected cmd=set after initack, got cmd=%s", m.cmd)
		}
		switch m.keys[0] {
		case "rank":
			c.rank, err = m.getInt("rank")
			haveRank = true
		case "size":
			c.size, err = m.getInt("size")
			haveSize = true
		}
		if err != nil {
			return err
		}
	}
	if !haveRank || !haveSize || c.size <= 0 || c.rank < 0 || c.rank >= c.size {
		return fmt.Errorf("pmi: initack gave no valid rank and size (rank %d, size %d)", c.rank, c.size)
	}
	return nil
}

// init performs the PMI-1 init exchange and caches what does not change:
// limits, appnum, KVS name and universe size.
func (c *v1Client) init() error {
	m, err := c.call(formatMessage("init", "pmi_version", "1", "pmi_subversion", "1"), "response_to_init")
	if err != nil {
		return err
	}
	if m.rc() != 0 {
		v, _ := m.get("pmi_version")
		return fmt.Errorf("pmi: server refused PMI version 1.1 (rc=%d, it speaks version %s)", m.rc(), v)
	}

	c.keyLenMax, c.valLenMax = defaultKeyLenMax, defaultValLenMax
	m, err = c.call(formatMessage("get_maxes"), "maxes")
	if err != nil {
		return err
	}
	if m.rc() != 0 {
		return fmt.Errorf("pmi: get_maxes failed (rc=%d)", m.rc())
	}
	if n, err := m.getInt("keylen_max"); err == nil && n > 1 {
		c.keyLenMax = n
	}
	if n, err := m.getInt("vallen_max"); err == nil && n > 1 {
		c.valLenMax = n
	}

	m, err = c.call(formatMessage("get_appnum"), "appnum")
	if err != nil {
		return err
	}
	if c.appnum, err = m.getInt("appnum"); err != nil {
		return err
	}

	m, err = c.call(formatMessage("get_my_kvsname"), "my_kvsname")
	if err != nil {
		return err
	}
	name, ok := m.get("kvsname")
	if !ok || name == "" || m.rc() != 0 {
		return errors.New("pmi: get_my_kvsname gave no name")
	}
	c.kvsname = name

	m, err = c.call(formatMessage("get_universe_size"), "universe_size")
	if err != nil {
		return err
	}
	if c.universe, err = m.getInt("size"); err != nil {
		return err
	}
	if c.universe <= 0 { // Hydra's fork launcher says -1: unknown.
		c.universe = c.size
	}
	return nil
}

// read reads and parses one line from the server.
func (c *v1Client) read() (message, error) {
	line, err := readLine(c.r)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return message{}, errors.New("pmi: process manager closed the connection")
		}
		return message{}, fmt.Errorf("pmi: read from process manager: %w", err)
	}
	return parseMessage(line)
}

// call sends one request line and reads the reply, which must be cmd=want.
func (c *v1Client) call(line, want string) (message, error) {
	if _, err := io.WriteString(c.conn, line); err != nil {
		return message{}, fmt.Errorf("pmi: write to process manager: %w", err)
	}
	m, err := c.read()
	if err != nil {
		return m, err
	}
	if m.cmd != want {
		return m, fmt.Errorf("pmi: expected cmd=%s in reply to %q, got cmd=%s", want, trimNL(line), m.cmd)
	}
	return m, nil
}

func trimNL(s string) string {
	if n := len(s); n > 0 && s[n-1] == '\n' {
		return s[:n-1]
	}
	return s
}

// Rank returns this process's rank in the job.
func (c *v1Client) Rank() int { return c.rank }

// Size returns the number of processes in the job.
func (c *v1Client) Size() int { return c.size }

// AppNum returns the application number (the index of this process's
// executable on an MPMD command line); 0 for a plain job.
func (c *v1Client) AppNum() int { return c.appnum }

// UniverseSize returns the universe size the process manager announces, or
// Size() where it announces none.
func (c *v1Client) UniverseSize() int { return c.universe }

// Singleton reports whether the process runs without a process manager.
func (c *v1Client) Singleton() bool { return c.conn == nil }

// KVSName returns the name of the job's key-value space.
func (c *v1Client) KVSName() string { return c.kvsname }

// MaxKeyLen returns the longest key Put accepts.
func (c *v1Client) MaxKeyLen() int { return c.keyLenMax - 1 }

// MaxValueLen returns the longest value Put accepts whatever its content:
// the server's vallen_max minus its terminating NUL, divided by the worst
// case of the encoding (3; 341 bytes with Hydra's 1024). Values of mostly
// plain text may be longer: Put accepts any value whose EncodeValue form
// has at most MaxEncodedValueLen bytes.
func (c *v1Client) MaxValueLen() int { return c.MaxEncodedValueLen() / encodeExpansion }

// MaxEncodedValueLen returns the longest encoded value the server stores
// whole (vallen_max-1: 1023 bytes with Hydra).
func (c *v1Client) MaxEncodedValueLen() int { return c.valLenMax - 1 }

// Put stores key=value in the job's KVS. The pair becomes visible to Get,
// in every rank including this one, after the next Fence. A later Put of
// the same key replaces the value.
func (c *v1Client) Put(key, value string) error {
	if err := checkToken(key, true); err != nil {
		return fmt.Errorf("pmi: put: bad key %q: %v", key, err)
	}
	if len(key) > c.MaxKeyLen() {
		return fmt.Errorf("pmi: put: key %q is %d bytes, longer than the limit of %d", key, len(key), c.MaxKeyLen())
	}
	enc := EncodeValue(value)
	if len(enc) > c.MaxEncodedValueLen() {
		return fmt.Errorf("pmi: put %q: value of %d bytes encodes to %d, longer than the limit of %d", key, len(value), len(enc), c.MaxEncodedValueLen())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finalized {
		return fmt.Errorf("pmi: put %q: %w", key, ErrFinalized)
	}
	if c.conn == nil {
		c.pending[key] = enc
		return nil
	}
	m, err := c.call(formatMessage("put", "kvsname", c.kvsname, "key", key, "value", enc), "put_result")
	if err != nil {
		return err
	}
	if rc := m.rc(); rc != 0 {
		msg, _ := m.get("msg")
		return fmt.Errorf("pmi: put %q failed (rc=%d): %s", key, rc, msg)
	}
	return nil
}

// Fence is a barrier across all ranks of the job that also makes every Put
// done before it visible to Get.
func (c *v1Client) Fence() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finalized {
		return fmt.Errorf("pmi: fence: %w", ErrFinalized)
	}
	if c.conn == nil {
		for k, v := range c.pending {
			c.committed[k] = v
		}
		clear(c.pending)
		return nil
	}
	_, err := c.call(formatMessage("barrier_in"), "barrier_out")
	return err
}

// Get returns the value of key as some rank Put it before the last Fence.
// A key nobody put gives an error that wraps ErrNotFound.
func (c *v1Client) Get(_ int, key string) (string, error) {
	if err := checkToken(key, true); err != nil {
		return "", fmt.Errorf("pmi: get: bad key %q: %v", key, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finalized {
		return "", fmt.Errorf("pmi: get %q: %w", key, ErrFinalized)
	}
	var enc string
	if c.conn == nil {
		v, ok := c.committed[key]
		if !ok {
			return "", fmt.Errorf("pmi: get %q: %w", key, ErrNotFound)
		}
		enc = v
	} else {
		m, err := c.call(formatMessage("get", "kvsname", c.kvsname, "key", key), "get_result")
		if err != nil {
			return "", err
		}
		if m.rc() != 0 {
			return "", fmt.Errorf("pmi: get %q: %w", key, ErrNotFound)
		}
		v, ok := m.get("value")
		if !ok {
			return "", fmt.Errorf("pmi: get %q: reply has no value", key)
		}
		enc = v
	}
	v, err := DecodeValue(enc)
	if err != nil {
		return "", fmt.Errorf("pmi: get %q: %w", key, err)
	}
	return v, nil
}

// Abort asks the process manager to end the whole job with exit code code;
// msg says why (Hydra ignores it, mpixexec prints it). It does not wait for
// an answer, and the caller is expected to exit right after. A singleton
// has nobody to tell and returns nil.
func (c *v1Client) Abort(code int, msg string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == nil {
		return nil
	}
	if c.finalized {
		return fmt.Errorf("pmi: abort: %w", ErrFinalized)
	}
	kv := []string{"exitcode", strconv.Itoa(code)}
	if msg != "" {
		kv = append(kv, "message", cutEncoded(EncodeValue(msg), c.MaxEncodedValueLen()))
	}
	if _, err := io.WriteString(c.conn, formatMessage("abort", kv...)); err != nil {
		return fmt.Errorf("pmi: abort: write to process manager: %w", err)
	}
	return nil
}

// Finalize tells the process manager that this process is done with PMI
// (its MPI_Finalize), waits for the acknowledgement and closes the
// connection. Later calls return ErrFinalized; a second Finalize is a no-op.
func (c *v1Client) Finalize() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finalized {
		return nil
	}
	c.finalized = true
	if c.conn == nil {
		return nil
	}
	_, err := c.call(formatMessage("finalize"), "finalize_ack")
	if cerr := c.conn.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("pmi: finalize: %w", cerr)
	}
	return err
}

// Protocol returns "PMI-1", or "singleton" without a launcher.
func (c *v1Client) Protocol() string {
	if c.conn == nil {
		return "singleton"
	}
	return "PMI-1"
}

// LocalRanks reads the launcher's PMI_process_mapping (Hydra, mpixexec and
// Slurm predefine it); a singleton is alone on its node.
func (c *v1Client) LocalRanks() ([]int, error) {
	if c.conn == nil {
		return []int{0}, nil
	}
	m, err := c.Get(-1, processMappingKey)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return localRanksFromMapping(m, c.rank, c.size)
}
