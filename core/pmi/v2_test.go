package pmi

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeV2 is a PMI-2 server for tests: a job of size ranks with a KVS whose
// puts show after a fence (as Slurm's and Hydra's), the process mapping
// mapping, and replies that a test may replace (reply[cmd] is sent raw, as
// the body of the answer to cmd) to play a broken or refusing server.
type fakeV2 struct {
	size    int
	mapping string
	reply   map[string]string
	initRsp string // the answer to the PMI-1 init line, if not the normal one
	// hydra makes kvs-fence answer at once, publishing the rank's own puts,
	// as Hydra 4.0's PMI-2 does (it is no barrier there).
	hydra bool

	mu        sync.Mutex
	cond      *sync.Cond
	committed map[string]string
	pending   map[string]string
	arrived   int
	gen       int
	got       []string // every request body, in arrival order
}

func newFakeV2(size int) *fakeV2 {
	f := &fakeV2{size: size, mapping: fmt.Sprintf("(vector,(0,1,%d))", size),
		committed: map[string]string{}, pending: map[string]string{}}
	f.cond = sync.NewCond(&f.mu)
	return f
}

// serve answers one rank's connection until it closes.
func (f *fakeV2) serve(conn net.Conn) {
	defer conn.Close()
	r := bufio.NewReader(conn)
	line, err := readLine(r)
	if err != nil {
		return
	}
	f.record(strings.TrimSpace(line))
	rsp := f.initRsp
	if rsp == "" {
		rsp = "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n"
	}
	io.WriteString(conn, rsp)
	rank := -1
	for {
		var hdr [v2LenField]byte
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return
		}
		n, _ := strconv.Atoi(strings.TrimSpace(string(hdr[:])))
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		f.record(string(body))
		m, err := parseV2(string(body))
		if err != nil {
			return
		}
		if raw, ok := f.reply[m.cmd]; ok {
			io.WriteString(conn, fmt.Sprintf("%-6d%s", len(raw), raw))
			continue
		}
		var out string
		switch m.cmd {
		case "fullinit":
			rank, _ = m.getInt("pmirank")
			out = formatV2("fullinit-response", "pmi-version", "2", "pmi-subversion", "0", "rank", strconv.Itoa(rank),
				"size", strconv.Itoa(f.size), "appnum", "-1", "debugged", "FALSE", "pmiverbose", "FALSE", "rc", "0")
		case "job-getid":
			out = formatV2("job-getid-response", "jobid", "job-7.0", "rc", "0")
		case "info-getjobattr":
			k, _ := m.get("key")
			if k == processMappingKey && f.mapping != "" {
				out = formatV2("info-getjobattr-response", "found", "TRUE", "value", f.mapping, "rc", "0")
			} else {
				out = formatV2("info-getjobattr-response", "found", "FALSE", "rc", "0")
			}
		case "kvs-put":
			k, _ := m.get("key")
			v, _ := m.get("value")
			f.mu.Lock()
			f.pending[k] = v
			f.mu.Unlock()
			out = formatV2("kvs-put-response", "rc", "0")
		case "kvs-fence":
			if f.hydra {
				f.mu.Lock()
				for k, v := range f.pending {
					f.committed[k] = v
				}
				clear(f.pending)
				f.mu.Unlock()
			} else {
				f.fence()
			}
			out = formatV2("kvs-fence-response", "rc", "0")
		case "kvs-get":
			k, _ := m.get("key")
			f.mu.Lock()
			v, ok := f.committed[k]
			f.mu.Unlock()
			if ok {
				out = formatV2("kvs-get-response", "found", "TRUE", "value", v, "rc", "0")
			} else {
				out = formatV2("kvs-get-response", "found", "FALSE", "rc", "0")
			}
		case "abort":
			return
		case "finalize":
			out = formatV2("finalize-response", "rc", "0")
		default:
			out = formatV2(m.cmd+"-response", "rc", "-1", "errmsg", "unknown")
		}
		if _, err := io.WriteString(conn, out); err != nil {
			return
		}
	}
}

func (f *fakeV2) record(s string) {
	f.mu.Lock()
	f.got = append(f.got, s)
	f.mu.Unlock()
}

func (f *fakeV2) received() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.got)
}

// fence is the barrier: the last rank to arrive commits the puts.
func (f *fakeV2) fence() {
	f.mu.Lock()
	defer f.mu.Unlock()
	gen := f.gen
	if f.arrived++; f.arrived == f.size {
		for k, v := range f.pending {
			f.committed[k] = v
		}
		clear(f.pending)
		f.arrived = 0
		f.gen++
		f.cond.Broadcast()
		return
	}
	for gen == f.gen {
		f.cond.Wait()
	}
}

// connectFake starts rank's connection to f and its client.
func connectFake(t *testing.T, f *fakeV2, rank int) (*v2Client, error) {
	t.Helper()
	se, ce := socketPair(t)
	go f.serve(fileConn(t, se))
	conn := fileConn(t, ce)
	c, err := newV2Client(conn, "", "pmirank", strconv.Itoa(rank))
	if err != nil {
		conn.Close()
	}
	return c, err
}

func TestV2Wire(t *testing.T) {
	tests := []struct {
		cmd  string
		kv   []string
		want string
	}{
		{"kvs-fence", nil, "14    cmd=kvs-fence;"},
		{"kvs-put", []string{"key", "a", "value", "b"}, "26    cmd=kvs-put;key=a;value=b;"},
		{"abort", []string{"msg", "x;y"}, "19    cmd=abort;msg=x;;y;"},
	}
	for _, tt := range tests {
		got := formatV2(tt.cmd, tt.kv...)
		if got != tt.want {
			t.Errorf("formatV2(%s, %v) = %q, want %q", tt.cmd, tt.kv, got, tt.want)
		}
		m, err := readV2(strings.NewReader(got))
		if err != nil {
			t.Fatalf("readV2(%q): %v", got, err)
		}
		if m.cmd != tt.cmd || len(m.keys)*2 != len(tt.kv) {
			t.Fatalf("readV2(%q) = %+v", got, m)
		}
		for i := range m.keys {
			if m.keys[i] != tt.kv[2*i] || m.vals[i] != tt.kv[2*i+1] {
				t.Errorf("readV2(%q) pair %d = %s=%s, want %s=%s", got, i, m.keys[i], m.vals[i], tt.kv[2*i], tt.kv[2*i+1])
			}
		}
	}
	bad := []string{"", "abc", "-1    ", "6     cmd=a", "3     x=y", "9     cmd=a;bcd"}
	for _, in := range bad {
		if m, err := readV2(strings.NewReader(in)); err == nil {
			t.Errorf("readV2(%q) = %+v, want an error", in, m)
		}
	}
}

// TestV2Job runs a job of three ranks against the fake server: exchange,
// local ranks, finalize.
func TestV2Job(t *testing.T) {
	const n = 3
	f := newFakeV2(n)
	clients := make([]*v2Client, n)
	for r := range clients {
		c, err := connectFake(t, f, r)
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
		clients[r] = c
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for r, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[r] = func() error {
				if c.Rank() != r || c.Size() != n || c.KVSName() != "job-7.0" || c.AppNum() != 0 || c.UniverseSize() != n || c.Protocol() != "PMI-2" {
					return fmt.Errorf("rank %d size %d job %q appnum %d universe %d", c.Rank(), c.Size(), c.KVSName(), c.AppNum(), c.UniverseSize())
				}
				val := fmt.Sprintf("card %d; a=b %%", r) // needs encoding
				if err := c.Put(fmt.Sprintf("k%d", r), val); err != nil {
					return err
				}
				if _, err := c.Get(-1, "k0"); !errors.Is(err, ErrNotFound) && r == 0 {
					return fmt.Errorf("get before fence: %v, want ErrNotFound", err)
				}
				if err := c.Fence(); err != nil {
					return err
				}
				for p := range n {
					v, err := c.Get(-1, fmt.Sprintf("k%d", p))
					if err != nil {
						return err
					}
					if want := fmt.Sprintf("card %d; a=b %%", p); v != want {
						return fmt.Errorf("get k%d = %q, want %q", p, v, want)
					}
				}
				if _, err := c.Get(-1, "nobody"); !errors.Is(err, ErrNotFound) {
					return fmt.Errorf("get of a missing key: %v, want ErrNotFound", err)
				}
				local, err := c.LocalRanks()
				if err != nil || !slices.Equal(local, []int{0, 1, 2}) {
					return fmt.Errorf("local ranks %v, %v", local, err)
				}
				return nil
			}()
		}()
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
	for _, c := range clients {
		if err := c.Finalize(); err != nil {
			t.Fatal(err)
		}
		if err := c.Put("k", "v"); !errors.Is(err, ErrFinalized) {
			t.Errorf("put after finalize: %v", err)
		}
		if err := c.Finalize(); err != nil {
			t.Errorf("second finalize: %v", err)
		}
	}
	got := f.received()
	if got[0] != "cmd=init pmi_version=2 pmi_subversion=0" {
		t.Errorf("first message %q", got[0])
	}
	if !slices.Contains(got, "cmd=fullinit;pmirank=2;threaded=FALSE;") {
		t.Errorf("no fullinit of rank 2 in %q", got)
	}
}

// TestV2Errors plays a server that refuses or breaks the protocol.
func TestV2Errors(t *testing.T) {
	tests := []struct {
		name    string
		initRsp string
		reply   map[string]string
		mapping string
		op      func(c *v2Client) error // after a good connect; nil: connect must fail
		want    string
	}{
		{name: "version refused", initRsp: "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1\n", want: "refused PMI version 2"},
		{name: "init garbage", initRsp: "hello\n", want: "does not start with cmd="},
		{name: "fullinit rc", reply: map[string]string{"fullinit": "cmd=fullinit-response;rc=-1;errmsg=no_such_rank;"}, want: "rc=-1"},
		{name: "fullinit no size", reply: map[string]string{"fullinit": "cmd=fullinit-response;rc=0;rank=0;"}, want: "lacks size"},
		{name: "fullinit bad rank", reply: map[string]string{"fullinit": "cmd=fullinit-response;rc=0;rank=5;size=2;"}, want: "no valid rank"},
		{name: "wrong reply", reply: map[string]string{"job-getid": "cmd=kvs-put-response;rc=0;"}, want: "expected cmd=job-getid-response"},
		{name: "no jobid", reply: map[string]string{"job-getid": "cmd=job-getid-response;rc=0;"}, want: "no job id"},
		{name: "put refused", reply: map[string]string{"kvs-put": "cmd=kvs-put-response;rc=-1;errmsg=full;"},
			op: func(c *v2Client) error { return c.Put("k", "v") }, want: "kvs-put failed (rc=-1) full"},
		{name: "key too long", op: func(c *v2Client) error { return c.Put(strings.Repeat("k", 64), "v") }, want: "longer than the limit"},
		{name: "key with ;", op: func(c *v2Client) error { return c.Put("a;b", "v") }, want: "cannot be sent"},
		{name: "value too long", op: func(c *v2Client) error { return c.Put("k", strings.Repeat(" ", 400)) }, want: "longer than the limit"},
		{name: "bad mapping", mapping: "(vector,(0,1))",
			op: func(c *v2Client) error { _, err := c.LocalRanks(); return err }, want: "bad PMI_process_mapping"},
		{name: "server gone", reply: map[string]string{"kvs-fence": ""},
			op: func(c *v2Client) error { return c.Fence() }, want: "PMI-2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeV2(2)
			f.initRsp, f.reply = tt.initRsp, tt.reply
			if tt.mapping != "" {
				f.mapping = tt.mapping
			}
			c, err := connectFake(t, f, 0)
			if tt.op == nil {
				if err == nil {
					t.Fatalf("connect succeeded against %s", tt.name)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				defer c.conn.Close()
				err = tt.op(c)
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestV2Abort checks the abort message: isworld, the encoded reason.
func TestV2Abort(t *testing.T) {
	f := newFakeV2(1)
	c, err := connectFake(t, f, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Abort(3, "rank 0: bad; thing"); err != nil {
		t.Fatal(err)
	}
	c.conn.Close()
	want := "cmd=abort;isworld=TRUE;msg=rank%200:%20bad%3B%20thing;"
	for range 1000 {
		if slices.Contains(f.received(), want) {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Errorf("server did not get %q: %q", want, f.received())
}

// TestChooseProtocol checks MPIX_PMI and the detection from the environment.
func TestChooseProtocol(t *testing.T) {
	tests := []struct {
		env     map[string]string
		want    int
		wantErr bool
	}{
		{map[string]string{}, protoV1, false},
		{map[string]string{"PMI_FD": "3", "PMI_RANK": "0", "PMI_SIZE": "2"}, protoV1, false},
		{map[string]string{"PMI_FD": "3", "PMI_RANK": "0", "PMI_JOBID": "12.0"}, protoV2, false},
		{map[string]string{"PMI_PORT": "h:1", "PMI_JOBID": "12.0"}, protoV1, false},
		{map[string]string{"PMIX_NAMESPACE": "slurm.pmix.12.0", "PMIX_RANK": "1"}, protoX, false},
		{map[string]string{"PMIX_NAMESPACE": "ns"}, protoV1, false},
		{map[string]string{"MPIX_PMI": "2", "PMI_FD": "3"}, protoV2, false},
		{map[string]string{"MPIX_PMI": "1", "PMI_FD": "3", "PMI_JOBID": "1"}, protoV1, false},
		{map[string]string{"MPIX_PMI": "pmix"}, protoX, false},
		{map[string]string{"MPIX_PMI": "auto", "PMIX_NAMESPACE": "n", "PMIX_RANK": "0"}, protoX, false},
		{map[string]string{"MPIX_PMI": "3"}, 0, true},
	}
	for _, tt := range tests {
		got, err := chooseProtocol(tt.env["MPIX_PMI"], func(k string) string { return tt.env[k] })
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("%v: %d, %v; want %d (error %v)", tt.env, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestV2FenceIsBarrier: under a server whose kvs-fence is no barrier, no rank
// leaves Fence before the last has entered it.
func TestV2FenceIsBarrier(t *testing.T) {
	for _, hydra := range []bool{false, true} {
		t.Run(fmt.Sprintf("hydra=%v", hydra), func(t *testing.T) {
			const n = 3
			f := newFakeV2(n)
			f.hydra = hydra
			var entered [n]time.Time
			var left [n]time.Time
			var wg sync.WaitGroup
			for r := range n {
				c, err := connectFake(t, f, r)
				if err != nil {
					t.Fatal(err)
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer c.conn.Close()
					for range 2 {
						if r == n-1 {
							time.Sleep(50 * time.Millisecond)
						}
						entered[r] = time.Now()
						if err := c.Fence(); err != nil {
							t.Errorf("rank %d: %v", r, err)
							return
						}
						left[r] = time.Now()
					}
				}()
			}
			wg.Wait()
			for r := range n {
				if left[r].Before(entered[n-1]) {
					t.Errorf("rank %d left the second fence %v before rank %d entered it", r, entered[n-1].Sub(left[r]), n-1)
				}
			}
		})
	}
}
