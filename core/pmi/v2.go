package pmi

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"time"
)

// v2Client is one process's PMI-2 connection to its process manager
// (srun --mpi=pmi2, or Hydra, which answers PMI-2 on the same socket when
// the first message asks for version 2).
//
// The exchange, as MPICH's PMI-2 client does it:
//
//	cmd=init pmi_version=2 pmi_subversion=0      (PMI-1 syntax, one line)
//	    cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0
//	cmd=fullinit;pmijobid=J;pmirank=R;threaded=FALSE;
//	    (J: PMI_JOBID, if set; R: PMI_RANK, or PMI_ID with PMI_PORT)
//	    cmd=fullinit-response;rc=0;rank=R;size=N;appnum=A;...
//	cmd=job-getid;                                cmd=job-getid-response;rc=0;jobid=J;
//	cmd=info-getjobattr;key=K;                    cmd=info-getjobattr-response;rc=0;found=TRUE;value=V;
//	cmd=kvs-put;key=K;value=V;                    cmd=kvs-put-response;rc=0;
//	cmd=kvs-fence;                                cmd=kvs-fence-response;rc=0;
//	cmd=kvs-get;jobid=J;srcid=-1;key=K;           cmd=kvs-get-response;rc=0;found=TRUE;value=V;
//	cmd=abort;isworld=TRUE;msg=M;                 (no answer)
//	cmd=finalize;                                 cmd=finalize-response;rc=0;
//
// After the first line every message is length-prefixed (v2wire.go). It is
// safe for concurrent use: one request on the wire at a time.
type v2Client struct {
	mu        sync.Mutex
	conn      net.Conn
	r         *bufio.Reader
	rank      int
	size      int
	appnum    int
	universe  int
	jobid     string
	fences    int // Fence calls so far
	finalized bool
}

// connectV2 connects to the PMI-2 server named by PMI_FD (with PMI_RANK)
// or PMI_PORT (with PMI_ID).
func connectV2() (*v2Client, error) {
	var conn net.Conn
	var idKey, id string
	switch {
	case os.Getenv("PMI_FD") != "":
		fdStr := os.Getenv("PMI_FD")
		fd, err := strconv.Atoi(fdStr)
		if err != nil || fd < 0 {
			return nil, fmt.Errorf("pmi: bad PMI_FD=%q", fdStr)
		}
		id = os.Getenv("PMI_RANK")
		if r, err := strconv.Atoi(id); err != nil || r < 0 {
			return nil, fmt.Errorf("pmi: PMI_FD is set but PMI_RANK=%q is not a rank", id)
		}
		idKey = "pmirank"
		f := os.NewFile(uintptr(fd), "PMI_FD")
		if f == nil {
			return nil, fmt.Errorf("pmi: bad PMI_FD=%d", fd)
		}
		conn, err = net.FileConn(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("pmi: PMI_FD=%d is not a usable socket: %w", fd, err)
		}
	case os.Getenv("PMI_PORT") != "":
		addr := os.Getenv("PMI_PORT")
		id = os.Getenv("PMI_ID")
		if _, err := strconv.Atoi(id); err != nil {
			return nil, fmt.Errorf("pmi: PMI_PORT=%s is set but PMI_ID=%q is not a number", addr, id)
		}
		idKey = "pmirank" // Hydra's name for it in this mode too
		var err error
		conn, err = net.DialTimeout("tcp", addr, dialTimeout)
		if err != nil {
			return nil, fmt.Errorf("pmi: connect to PMI_PORT=%s: %w", addr, err)
		}
	default:
		return nil, fmt.Errorf("pmi: PMI-2 asked for (MPIX_PMI=2) but neither PMI_FD nor PMI_PORT is set")
	}
	c, err := newV2Client(conn, os.Getenv("PMI_JOBID"), idKey, id)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

// newV2Client runs the init exchange over conn, identifying this process
// with idKey=id and, where the launcher gave one (Slurm requires it), the
// job id PMI_JOBID.
func newV2Client(conn net.Conn, jobid, idKey, id string) (*v2Client, error) {
	c := &v2Client{conn: conn, r: bufio.NewReader(conn)}
	// The first line is PMI-1 syntax: it is how a server that speaks both
	// learns which one follows.
	if _, err := io.WriteString(conn, formatMessage("init", "pmi_version", "2", "pmi_subversion", "0")); err != nil {
		return nil, fmt.Errorf("pmi: write to process manager: %w", err)
	}
	line, err := readLine(c.r)
	if err != nil {
		return nil, fmt.Errorf("pmi: read from process manager: %w", err)
	}
	m, err := parseMessage(line)
	if err != nil {
		return nil, err
	}
	if m.cmd != "response_to_init" {
		return nil, fmt.Errorf("pmi: expected cmd=response_to_init, got cmd=%s", m.cmd)
	}
	if v, _ := m.get("pmi_version"); m.rc() != 0 || v != "2" {
		return nil, fmt.Errorf("pmi: process manager refused PMI version 2 (rc=%d, it speaks version %s)", m.rc(), v)
	}
	kv := []string{idKey, id, "threaded", "FALSE"}
	if jobid != "" {
		kv = append([]string{"pmijobid", jobid}, kv...)
	}
	m, err = c.call("fullinit-response", "fullinit", kv...)
	if err != nil {
		return nil, err
	}
	if c.rank, err = m.getInt("rank"); err != nil {
		return nil, err
	}
	if c.size, err = m.getInt("size"); err != nil {
		return nil, err
	}
	if c.size <= 0 || c.rank < 0 || c.rank >= c.size {
		return nil, fmt.Errorf("pmi: fullinit gave no valid rank and size (rank %d, size %d)", c.rank, c.size)
	}
	if n, err := m.getInt("appnum"); err == nil && n > 0 { // Slurm says -1: none
		c.appnum = n
	}
	m, err = c.call("job-getid-response", "job-getid")
	if err != nil {
		return nil, err
	}
	if c.jobid, _ = m.get("jobid"); c.jobid == "" {
		return nil, fmt.Errorf("pmi: job-getid gave no job id")
	}
	c.universe = c.size
	if v, ok, err := c.jobAttr("universeSize"); err != nil {
		return nil, err
	} else if ok {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			c.universe = n
		}
	}
	return c, nil
}

// call sends cmd with the pairs kv and reads the reply, which must be
// cmd=want with rc=0.
func (c *v2Client) call(want, cmd string, kv ...string) (v2Message, error) {
	if _, err := io.WriteString(c.conn, formatV2(cmd, kv...)); err != nil {
		return v2Message{}, fmt.Errorf("pmi: write to process manager: %w", err)
	}
	m, err := readV2(c.r)
	if err != nil {
		return m, err
	}
	if m.cmd != want {
		return m, fmt.Errorf("pmi: expected cmd=%s in reply to cmd=%s, got cmd=%s", want, cmd, m.cmd)
	}
	if rc := m.rc(); rc != 0 {
		msg, _ := m.get("errmsg")
		return m, fmt.Errorf("pmi: %s failed (rc=%d) %s", cmd, rc, msg)
	}
	return m, nil
}

// jobAttr asks for a job attribute; ok is false when the server has none.
func (c *v2Client) jobAttr(key string) (string, bool, error) {
	m, err := c.call("info-getjobattr-response", "info-getjobattr", "key", key)
	if err != nil {
		return "", false, err
	}
	if !v2Bool(&m, "found") {
		return "", false, nil
	}
	v, _ := m.get("value")
	return v, true, nil
}

func (c *v2Client) Protocol() string  { return "PMI-2" }
func (c *v2Client) Rank() int         { return c.rank }
func (c *v2Client) Size() int         { return c.size }
func (c *v2Client) AppNum() int       { return c.appnum }
func (c *v2Client) UniverseSize() int { return c.universe }
func (c *v2Client) KVSName() string   { return c.jobid }
func (c *v2Client) Singleton() bool   { return false }

// LocalRanks reads the PMI_process_mapping job attribute.
func (c *v2Client) LocalRanks() ([]int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finalized {
		return nil, fmt.Errorf("pmi: local ranks: %w", ErrFinalized)
	}
	v, ok, err := c.jobAttr(processMappingKey)
	if err != nil || !ok {
		return nil, err
	}
	return localRanksFromMapping(v, c.rank, c.size)
}

// Put stores key=value; it becomes visible to Get after the next Fence.
func (c *v2Client) Put(key, value string) error {
	if err := checkV2Key(key); err != nil {
		return fmt.Errorf("pmi: put: bad key %q: %v", key, err)
	}
	enc := EncodeValue(value)
	if len(enc) > maxV2ValueLen {
		return fmt.Errorf("pmi: put %q: value of %d bytes encodes to %d, longer than the limit of %d", key, len(value), len(enc), maxV2ValueLen)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finalized {
		return fmt.Errorf("pmi: put %q: %w", key, ErrFinalized)
	}
	_, err := c.call("kvs-put-response", "kvs-put", "key", key, "value", enc)
	return err
}

// Fence is a barrier of the job that publishes every Put before it.
//
// Slurm's kvs-fence is a barrier, Hydra's (4.0) is not: it answers at once,
// and a later kvs-get waits until the key it asks for has been put. So each
// rank also puts a key of its own for this fence before kvs-fence and reads
// every rank's after it: a rank leaves only when all have arrived, under
// either server. (mpix fences a handful of times per job.)
func (c *v2Client) Fence() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finalized {
		return fmt.Errorf("pmi: fence: %w", ErrFinalized)
	}
	c.fences++
	if c.size > 1 {
		if _, err := c.call("kvs-put-response", "kvs-put", "key", fenceKey(c.fences, c.rank), "value", "1"); err != nil {
			return err
		}
	}
	if _, err := c.call("kvs-fence-response", "kvs-fence"); err != nil {
		return err
	}
	for r := 0; r < c.size && c.size > 1; r++ {
		if r == c.rank {
			continue
		}
		if err := c.awaitKey(fenceKey(c.fences, r)); err != nil {
			return fmt.Errorf("pmi: fence: rank %d: %w", r, err)
		}
	}
	return nil
}

// fenceKey is the key rank puts when it reaches fence number gen.
func fenceKey(gen, rank int) string { return fmt.Sprintf("mpix-fence-%d-%d", gen, rank) }

// fenceWait bounds how long Fence waits for a rank whose key a server
// reports missing (one that neither blocks the get nor fences as a barrier).
const fenceWait = 10 * time.Minute

// awaitKey gets key until it is found.
func (c *v2Client) awaitKey(key string) error {
	deadline := time.Now().Add(fenceWait)
	for pause := time.Millisecond; ; pause = min(2*pause, 100*time.Millisecond) {
		m, err := c.call("kvs-get-response", "kvs-get", "jobid", c.jobid, "srcid", "-1", "key", key)
		if err != nil {
			return err
		}
		if v2Bool(&m, "found") {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("did not reach the fence within %v", fenceWait)
		}
		time.Sleep(pause)
	}
}

// Get returns the value some rank put under key before the last Fence.
func (c *v2Client) Get(_ int, key string) (string, error) {
	if err := checkV2Key(key); err != nil {
		return "", fmt.Errorf("pmi: get: bad key %q: %v", key, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finalized {
		return "", fmt.Errorf("pmi: get %q: %w", key, ErrFinalized)
	}
	m, err := c.call("kvs-get-response", "kvs-get", "jobid", c.jobid, "srcid", "-1", "key", key)
	if err != nil {
		return "", err
	}
	if !v2Bool(&m, "found") {
		return "", fmt.Errorf("pmi: get %q: %w", key, ErrNotFound)
	}
	enc, _ := m.get("value")
	v, err := DecodeValue(enc)
	if err != nil {
		return "", fmt.Errorf("pmi: get %q: %w", key, err)
	}
	return v, nil
}

// Abort asks the launcher to kill the job. PMI-2's abort carries no exit
// code: the launcher sees the code this process exits with right after.
func (c *v2Client) Abort(code int, msg string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finalized {
		return fmt.Errorf("pmi: abort: %w", ErrFinalized)
	}
	if msg == "" {
		msg = fmt.Sprintf("aborted with exit code %d", code)
	}
	enc := cutEncoded(EncodeValue(msg), maxV2ValueLen)
	if _, err := io.WriteString(c.conn, formatV2("abort", "isworld", "TRUE", "msg", enc)); err != nil {
		return fmt.Errorf("pmi: abort: write to process manager: %w", err)
	}
	return nil
}

// Finalize says goodbye, waits for the answer and closes the connection.
func (c *v2Client) Finalize() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finalized {
		return nil
	}
	c.finalized = true
	_, err := c.call("finalize-response", "finalize")
	if cerr := c.conn.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("pmi: finalize: %w", cerr)
	}
	return err
}

// PMI-2 limits (MPICH's pmi2.h: PMI2_MAX_KEYLEN 64, PMI2_MAX_VALLEN 1024,
// both counting the terminating NUL).
const (
	maxV2KeyLen   = 63
	maxV2ValueLen = 1023
)

func checkV2Key(key string) error {
	if err := checkToken(key, true); err != nil {
		return err
	}
	if len(key) > maxV2KeyLen {
		return fmt.Errorf("%d bytes, longer than the limit of %d", len(key), maxV2KeyLen)
	}
	for i := 0; i < len(key); i++ {
		if key[i] == ';' {
			return fmt.Errorf("byte ';' at offset %d cannot be sent", i)
		}
	}
	return nil
}
