// Package shm is mpix's intra-node transport: processes on one node exchange small
// messages through shared memory and read large ones from each other with a single
// copy (process_vm_readv).
//
// Every node-local rank creates one region (a file under /dev/shm that every rank of
// the node maps). A region holds the rank's receive queue, a lock-free
// multi-producer single-consumer queue of cell references; the rank's pool of cells,
// which it fills as a sender; and the pool's free ring, a second MPSC queue to which
// receivers give the cells back. A send takes a cell from the sender's own pool,
// writes the header and payload into it and enqueues a reference on the receiver's
// queue: no lock, no system call, no allocation. A poll dequeues references in
// order, hands the header and a slice of the cell to the caller and pushes the cell
// back onto its owner's free ring. This is the design of MPICH's nemesis queues that
// the threadcomm paper (EuroMPI'23, §3.2) describes, with the pools divided among
// senders. See ring.go for the queue and its memory-ordering argument, region.go for
// the layout.
//
// Fastboxes. A message through the queue costs several dependent cache-line
// transfers: the claim on the receiver's tail, the published slot, the cell, and the
// cell's way back through the owner's free ring. For small messages every region also
// holds one fastbox per node-local sender, a slot of DefaultFastbox payload bytes
// after a one-line header whose first word is a flag (MPICH nemesis has the same
// idea). The sender writes header and payload into its fastbox in the receiver's
// region and publishes them by storing the flag; the receiver sees the flag, delivers
// straight out of the fastbox and stores 0 into the flag to hand it back. A send
// whose payload fits and whose fastbox is empty costs the sender's load of the flag
// and the line transfers of the fastbox itself, nothing else. When the fastbox is
// still full (or the payload too large, or the destination is the sender itself) the
// message goes through the queue as before.
//
// Order. Every message from sender s to receiver d carries a sequence number: s
// counts the messages it sent to d (sendSeq, private to s), d counts those it
// delivered from s (recvSeq, private to d). A cell carries the number in its header,
// a fastbox in its flag (number + 1, so that 0 means empty). d delivers message k
// from s only when recvSeq[s] == k. The two paths can only be out of step in two
// ways, both of them bounded by the single fastbox:
//
//   - the queue entry d pops from s is ahead (k > recvSeq[s]): the messages in
//     between did not go through the queue, whose entries from one sender are in
//     send order, so they went through the fastbox, which holds one message: k is
//     recvSeq[s]+1 and the fastbox holds recvSeq[s]. s published the fastbox before
//     it pushed k, and d's acquire of k's slot makes that visible: d delivers the
//     fastbox first, then k.
//   - the fastbox holds a message ahead (k > recvSeq[s]): s sent earlier messages
//     through the queue (while the fastbox was full) and they are still there,
//     published (Send returns only after the push). d leaves the fastbox alone; after
//     delivering a queue message from s it checks s's fastbox again.
//
// A number behind recvSeq, or a gap the fastbox does not fill, means corrupt shared
// memory: the entry is reported through Err and dropped (a gap resynchronizes on the
// queue's number), never a reason to stop or to fault.
//
// Memory ordering of a fastbox (as for the rings, Go's atomics are sequentially
// consistent and the same instructions order accesses between processes that map
// the same pages):
//
//   - Publication: the sender writes length, header and payload with plain stores
//     and then atomically stores flag = k+1. The receiver atomically loads the flag,
//     sees it not 0, and only then reads the fastbox.
//   - Return: the receiver reads the fastbox (and deliver returns: the payload slice
//     is valid only during the call) before it atomically stores flag = 0. The
//     sender atomically loads the flag, sees 0, and only then writes the fastbox.
//   - Only the sender stores a non-zero flag and only the receiver stores 0, each only
//     after it observed the other's value, so the fastbox is never written and read
//     at the same time. Numbers grow by one per message (64 bits never wrap), so a
//     stale flag is never mistaken for a fresh one.
//
// Fastboxes cost local ranks x (64 + DefaultFastbox) bytes per region: 70 KiB for 64
// local ranks. A receiver polls every fastbox's flag on each Poll; the flags sit on
// separate lines that stay in its cache until a sender writes one.
//
// Startup is collective: every rank calls Create, the job runs a PMI fence, every
// rank calls Attach, a second fence, every rank calls Unlink. After Unlink no name is
// left under /dev/shm, so a crash later leaks nothing; the mappings stay valid for as
// long as some process holds them.
//
// C fast path. The same fastboxes and queues are also driven from C (fastabi.h,
// fast.c, lite.c), so that MPI_Send, MPI_Recv, MPI_Irecv and their waits of small
// contiguous messages between node-local processes never enter Go: a cgo crossing
// costs more than the whole message. C works on an endpoint through its FastView,
// under the same VCI lock and sequence rules as the Go methods. The C code references
// nothing outside this package (capi calls it and hands it Go's progress through a
// function pointer); fastpath.go checks that C and Go agree on every layout they share
// before the library turns the path on.
package shm

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"sync/atomic"
	"syscall"
	"unsafe"

	"mpix/transport"
)

// Defaults for Config.CellSize and Config.Cells: a cell is 16 KiB with its header,
// a pool 64 cells (1 MiB per rank). BenchmarkStreamCells (bench_test.go) streams
// 1 MiB messages through 4, 16 and 64 KiB cells with 8 to 256 cells per pool. On the
// 2-core development VM: 4 KiB cells ~8.5 GB/s, 16 KiB ~10 GB/s, 64 KiB ~11 GB/s
// (but 64 KiB x 256 cells, a 16 MiB pool, fell to ~7.5 GB/s). 16 KiB keeps most of
// the bandwidth while leaving 64 cells, i.e. 64 small messages in flight per sender
// across all its destinations, in the same 1 MiB as 16 cells of 64 KiB.
const (
	DefaultCellSize = 16<<10 - cellHeaderSize
	DefaultCells    = 64
)

// DefaultFastbox is Config.Fastbox's default, the payload capacity of a fastbox.
// BenchmarkPingPong (bench_test.go) measures 8-byte to 1 KiB messages through it.
const DefaultFastbox = 1 << 10

// Dir is where the region files live.
const Dir = "/dev/shm"

// Config describes this rank and the node it runs on. Every rank of a node passes the
// same Job, NodeRanks, PIDs, CellSize and Cells.
type Config struct {
	Job       string // unique per job (names the segment files under /dev/shm)
	Rank      int    // this process's MPI_COMM_WORLD rank
	NodeRanks []int  // world ranks of every process on this node, ascending; includes Rank
	PIDs      []int  // their process ids, same order (for process_vm_readv)
	CellSize  int    // payload bytes per cell; 0 = DefaultCellSize
	Cells     int    // cells in each sender's pool; 0 = DefaultCells
	Fastbox   int    // payload bytes per fastbox, at most CellSize; 0 = DefaultFastbox, negative = no fastboxes
}

// Errors Send returns besides transport.ErrAgain.
var (
	ErrNotLocal    = errors.New("shm: destination rank is not on this node")
	ErrTooLarge    = errors.New("shm: payload larger than MaxPayload")
	ErrNotAttached = errors.New("shm: destination region not attached (call Attach)")
	ErrClosed      = errors.New("shm: endpoint closed")
)

// Endpoint is one rank's shared-memory transport context. Like every
// transport.Endpoint it is used by one VCI at a time; other processes reach it only
// through the lock-free rings in shared memory.
type Endpoint struct {
	cfg      Config
	g        geometry
	me       int       // this rank's local index
	path     string    // region file; "" for regions not backed by a file (tests)
	regions  []*region // by local index; nil until mapped
	own      *region   // regions[me]
	attached bool
	unlinked bool
	closed   bool

	localOf  []int32 // world rank - minRank -> local index, or -1 (dense table)
	minRank  int
	noSingle []bool // per local index: process_vm_readv was refused

	fbMax int // largest payload a fastbox takes; -1 without fastboxes
	// sendSeq, recvSeq, pending and localOf live in priv, outside the Go heap, where
	// capi's C fast path shares them (fastview.go).
	priv    *privateState
	sendSeq []uint64 // per destination local index: messages sent to it
	recvSeq []uint64 // per source local index: messages delivered from it
	pending []bool   // per source local index: its fastbox holds a message ahead of the queue

	stats stats // counters for tests and benchmarks

	hdr transport.Header // the header Poll hands to deliver
	err error            // first inconsistency Poll or Send found in shared memory
}

var _ transport.Endpoint = (*Endpoint)(nil)

// stats counts which ways messages took (private to the endpoint, no atomics).
type stats struct {
	fastbox    uint64 // messages sent through a fastbox
	queued     uint64 // messages sent through the queue
	fbAhead    uint64 // fastbox messages found ahead of the sender's queued ones
	queueAhead uint64 // queue messages found ahead of the sender's fastbox
}

func validJob(job string) error {
	if job == "" || len(job) > 128 {
		return fmt.Errorf("shm: job name %q must be 1..128 characters", job)
	}
	for _, c := range job {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("shm: job name %q: only letters, digits, '.', '_' and '-'", job)
		}
	}
	return nil
}

// newEndpoint checks cfg and builds an endpoint with no region mapped.
func newEndpoint(cfg Config) (*Endpoint, error) {
	if err := validJob(cfg.Job); err != nil {
		return nil, err
	}
	n := len(cfg.NodeRanks)
	if n == 0 {
		return nil, errors.New("shm: NodeRanks is empty")
	}
	if len(cfg.PIDs) != n {
		return nil, fmt.Errorf("shm: %d PIDs for %d node ranks", len(cfg.PIDs), n)
	}
	me := -1
	for i, r := range cfg.NodeRanks {
		if r < 0 || r > 1<<31-1 {
			return nil, fmt.Errorf("shm: invalid rank %d in NodeRanks", r)
		}
		if i > 0 && r <= cfg.NodeRanks[i-1] {
			return nil, fmt.Errorf("shm: NodeRanks not strictly ascending at index %d", i)
		}
		if cfg.PIDs[i] <= 0 {
			return nil, fmt.Errorf("shm: invalid pid %d for rank %d", cfg.PIDs[i], r)
		}
		if r == cfg.Rank {
			me = i
		}
	}
	if me < 0 {
		return nil, fmt.Errorf("shm: rank %d is not in NodeRanks", cfg.Rank)
	}
	if cfg.CellSize < 0 || cfg.Cells < 0 {
		return nil, errors.New("shm: negative CellSize or Cells")
	}
	if cfg.CellSize == 0 {
		cfg.CellSize = DefaultCellSize
	}
	if cfg.Cells == 0 {
		cfg.Cells = DefaultCells
	}
	if cfg.Fastbox == 0 {
		cfg.Fastbox = DefaultFastbox
	}
	g, err := newGeometry(n, cfg.CellSize, cfg.Cells, cfg.Fastbox)
	if err != nil {
		return nil, err
	}
	cfg.NodeRanks = append([]int(nil), cfg.NodeRanks...)
	cfg.PIDs = append([]int(nil), cfg.PIDs...)
	e := &Endpoint{
		cfg:      cfg,
		g:        g,
		me:       me,
		regions:  make([]*region, n),
		noSingle: make([]bool, n),
		minRank:  cfg.NodeRanks[0],
		fbMax:    -1,
	}
	if g.fbCap > 0 {
		e.fbMax = g.fbCap
	}
	span := cfg.NodeRanks[n-1] - e.minRank + 1
	if span > 1<<20 {
		span = 0 // sparse ranks: binary search instead of a table
	}
	if e.priv, err = newPrivateState(n, span); err != nil {
		return nil, err
	}
	v := e.priv.view
	v.Me, v.FbCap, v.MinRank, v.World = uint32(me), int32(e.fbMax), int32(e.minRank), int32(cfg.Rank)
	e.sendSeq, e.recvSeq, e.pending = e.priv.sendSeq(), e.priv.recvSeq(), e.priv.pending()
	if span > 0 {
		e.localOf = e.priv.localOf()
		for i := range e.localOf {
			e.localOf[i] = -1
		}
		for i, r := range cfg.NodeRanks {
			e.localOf[r-e.minRank] = int32(i)
		}
	}
	return e, nil
}

// segmentPath names rank's region file for job.
func segmentPath(job string, rank int) string {
	return filepath.Join(Dir, "mpix-"+job+"-"+strconv.Itoa(rank))
}

// Create creates, maps and initializes this rank's region. Other ranks may Attach to
// it once Create has returned (the caller runs a PMI fence in between).
func Create(cfg Config) (*Endpoint, error) {
	e, err := newEndpoint(cfg)
	if err != nil {
		return nil, err
	}
	path := segmentPath(e.cfg.Job, e.cfg.Rank)
	fd, err := syscall.Open(path, syscall.O_RDWR|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("shm: create %s: %w", path, err)
	}
	mem, err := func() ([]byte, error) {
		defer syscall.Close(fd)
		if err := syscall.Ftruncate(fd, int64(e.g.size)); err != nil {
			return nil, fmt.Errorf("shm: size %s to %d bytes: %w", path, e.g.size, err)
		}
		mem, err := syscall.Mmap(fd, 0, e.g.size, syscall.PROT_READ|syscall.PROT_WRITE,
			syscall.MAP_SHARED|syscall.MAP_POPULATE)
		if err != nil {
			return nil, fmt.Errorf("shm: map %s: %w", path, err)
		}
		return mem, nil
	}()
	if err != nil {
		syscall.Unlink(path)
		return nil, err
	}
	e.path = path
	r := newRegion(mem, e.g, true)
	r.initRegion(e.g, e.cfg.Rank, e.cfg.PIDs[e.me], e.me)
	e.adopt(e.me, r)
	return e, nil
}

// adopt installs region r as local index idx.
func (e *Endpoint) adopt(idx int, r *region) {
	e.regions[idx] = r
	if idx == e.me {
		e.own = r
	}
	e.publishFastboxes(idx, r)
}

// Attach maps the region of every other node-local rank. Every rank must have
// returned from Create first. Calling it again maps only what is still missing.
func (e *Endpoint) Attach() error {
	if e.closed {
		return ErrClosed
	}
	for i, rank := range e.cfg.NodeRanks {
		if e.regions[i] != nil {
			continue
		}
		r, err := e.mapPeer(rank)
		if err == nil {
			if err = r.check(e.g, rank, e.cfg.PIDs[i], i); err != nil {
				r.unmap()
			}
		}
		if err != nil {
			return fmt.Errorf("shm: attach rank %d's region: %w", rank, err)
		}
		e.adopt(i, r)
	}
	e.attached = true
	return nil
}

// mapPeer maps rank's region file after checking its size.
func (e *Endpoint) mapPeer(rank int) (*region, error) {
	path := segmentPath(e.cfg.Job, rank)
	fd, err := syscall.Open(path, syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, err
	}
	if st.Size != int64(e.g.size) {
		return nil, fmt.Errorf("%s has %d bytes, want %d (different CellSize or Cells?)", path, st.Size, e.g.size)
	}
	mem, err := syscall.Mmap(fd, 0, e.g.size, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_SHARED|syscall.MAP_POPULATE)
	if err != nil {
		return nil, err
	}
	return newRegion(mem, e.g, true), nil
}

// Unlink removes this rank's region name from /dev/shm. The mappings stay valid.
// Every rank calls it after the fence that follows Attach.
func (e *Endpoint) Unlink() error {
	if e.unlinked || e.path == "" {
		e.unlinked = true
		return nil
	}
	e.unlinked = true
	if err := syscall.Unlink(e.path); err != nil && err != syscall.ENOENT {
		return fmt.Errorf("shm: unlink %s: %w", e.path, err)
	}
	return nil
}

// Close unlinks the region name if that has not happened yet and unmaps every region.
// Other ranks keep their own mappings of this rank's region.
func (e *Endpoint) Close() error {
	if e.closed {
		return nil
	}
	errs := []error{e.Unlink()}
	e.closed = true
	clear(e.priv.fbOut())
	clear(e.priv.fbIn())
	clear(e.priv.regions())
	e.priv.view.RecvTail = 0
	for i, r := range e.regions {
		if r != nil {
			if err := r.unmap(); err != nil {
				errs = append(errs, fmt.Errorf("shm: unmap rank %d's region: %w", e.cfg.NodeRanks[i], err))
			}
			e.regions[i] = nil
		}
	}
	e.own = nil
	return errors.Join(errs...)
}

// localIndex returns the local index of world rank rank, or -1.
func (e *Endpoint) localIndex(rank int) int {
	if e.localOf != nil {
		i := rank - e.minRank
		if i < 0 || i >= len(e.localOf) {
			return -1
		}
		return int(e.localOf[i])
	}
	i := sort.SearchInts(e.cfg.NodeRanks, rank)
	if i < len(e.cfg.NodeRanks) && e.cfg.NodeRanks[i] == rank {
		return i
	}
	return -1
}

// Reaches reports whether dst is a rank on this node (this rank included).
func (e *Endpoint) Reaches(dst int) bool { return e.localIndex(dst) >= 0 }

// MaxPayload is the payload capacity of one cell; core splits larger messages.
func (e *Endpoint) MaxPayload() int { return e.g.cellSize }

// Err returns the first inconsistency found in shared memory (a corrupt cell
// reference or length, an overfull ring), or nil. Such entries are dropped, never
// delivered.
func (e *Endpoint) Err() error { return e.err }

func (e *Endpoint) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// Send copies h and payload into dst's fastbox for this rank when the payload fits
// and the fastbox is empty, and otherwise into a cell of this rank's pool that it
// enqueues on dst's receive queue. It returns transport.ErrAgain when the message
// needs a cell and every cell of the pool is in flight; cells come back as receivers
// poll.
func (e *Endpoint) Send(dst int, h *transport.Header, payload []byte) error {
	li := e.localIndex(dst)
	if li < 0 {
		return ErrNotLocal
	}
	if len(payload) > e.g.cellSize {
		return ErrTooLarge
	}
	r := e.regions[li]
	if r == nil {
		if e.closed {
			return ErrClosed
		}
		return ErrNotAttached
	}
	k := e.sendSeq[li]
	if len(payload) <= e.fbMax && li != e.me {
		fb := r.fastbox(e.me)
		if atomic.LoadUint64(&fb.flag) == 0 { // acquire: the receiver is done with it
			fb.len = uint32(len(payload))
			fb.hdr = *h
			copy(fbPayload(fb, uint32(len(payload))), payload)
			e.sendSeq[li] = k + 1
			atomic.StoreUint64(&fb.flag, k+1) // publish (release)
			e.stats.fastbox++
			return nil
		}
	}
	c, ok := e.takeCell()
	if !ok {
		return transport.ErrAgain
	}
	p := e.own.cell(c)
	ch := (*cellHead)(p)
	ch.hdr = *h
	ch.len = uint32(len(payload))
	ch.seq = k
	if len(payload) > 0 {
		copy(unsafe.Slice((*byte)(unsafe.Add(p, cellHeaderSize)), len(payload)), payload)
	}
	if !r.recv.push(uint64(e.me)<<32 | c) {
		// Cannot happen while every process plays by the rules (the queue has a slot
		// for every cell on the node); keep the cell and let the caller retry.
		e.fail(fmt.Errorf("shm: rank %d's receive queue is full", dst))
		e.own.free.push(c)
		return transport.ErrAgain
	}
	e.sendSeq[li] = k + 1
	e.stats.queued++
	return nil
}

// takeCell takes a free cell of this rank's pool.
func (e *Endpoint) takeCell() (uint64, bool) {
	if e.own == nil {
		return 0, false
	}
	for {
		c, ok := e.own.free.pop()
		if !ok {
			return 0, false
		}
		if c < e.own.ncells {
			return c, true
		}
		e.fail(fmt.Errorf("shm: corrupt cell index %d in the free ring", c))
	}
}

// Poll delivers the messages waiting in this rank's fastboxes and receive queue, in
// send order for every sender: at most one queue's capacity of queue messages per
// call, plus the fastbox messages that come before, between or after them. The header and payload handed to deliver point into memory that
// is reused once deliver returns. deliver may call Send, but not Poll.
func (e *Endpoint) Poll(deliver transport.DeliverFunc) int {
	if e.own == nil {
		return 0
	}
	n := 0
	if e.attached && e.g.fbCap > 0 {
		n = e.pollFastboxes(deliver)
	}
	return n + e.pollQueue(deliver)
}

// pollFastboxes delivers the fastboxes whose message is the next one from its sender
// and marks those that hold a message ahead of the queue as pending.
func (e *Endpoint) pollFastboxes(deliver transport.DeliverFunc) int {
	n := 0
	for s := range e.g.nLocal {
		if s == e.me {
			continue
		}
		fb := e.own.fastbox(s)
		if f := atomic.LoadUint64(&fb.flag); f != 0 { // acquire
			n += e.takeFastbox(s, fb, f, deliver)
		}
	}
	return n
}

// takeFastbox handles the full fastbox fb of sender s whose flag is f (not 0): it
// delivers the message if it is the next one from s, leaves it if it is ahead, and
// drops it if it is behind (corrupt). It returns how many messages it delivered.
func (e *Endpoint) takeFastbox(s int, fb *fastbox, f uint64, deliver transport.DeliverFunc) int {
	k, want := f-1, e.recvSeq[s]
	if d := int64(k - want); d > 0 {
		if !e.pending[s] {
			e.pending[s] = true // earlier messages from s are in the queue
			e.stats.fbAhead++
		}
		return 0
	} else if d < 0 {
		e.fail(fmt.Errorf("shm: stale message number %d (want %d) in rank %d's fastbox", k, want, e.cfg.NodeRanks[s]))
		atomic.StoreUint64(&fb.flag, 0)
		return 0
	}
	e.pending[s] = false
	e.recvSeq[s] = want + 1
	delivered := 0
	if ln := fb.len; uint64(ln) > uint64(e.g.fbCap) {
		e.fail(fmt.Errorf("shm: corrupt payload length %d in rank %d's fastbox", ln, e.cfg.NodeRanks[s]))
	} else {
		e.hdr = fb.hdr
		deliver(&e.hdr, fbPayload(fb, ln))
		delivered = 1
	}
	atomic.StoreUint64(&fb.flag, 0) // hand the fastbox back (release)
	return delivered
}

// nextFastbox delivers s's fastbox if it holds the next message from s.
func (e *Endpoint) nextFastbox(s int, deliver transport.DeliverFunc) int {
	if s == e.me || e.g.fbCap == 0 {
		return 0
	}
	fb := e.own.fastbox(s)
	f := atomic.LoadUint64(&fb.flag) // acquire
	if f == 0 || f-1 != e.recvSeq[s] {
		return 0
	}
	return e.takeFastbox(s, fb, f, deliver)
}

// pollQueue delivers the messages waiting in the receive queue, in queue order,
// merged with the fastboxes by message number.
func (e *Endpoint) pollQueue(deliver transport.DeliverFunc) int {
	q := &e.own.recv
	n := 0
	for i := 0; i < len(q.slots); i++ {
		v, ok := q.peek()
		if !ok {
			break
		}
		idx, c := v>>32, v&(1<<32-1)
		var r *region
		if idx < uint64(len(e.regions)) {
			r = e.regions[idx]
			if r == nil && !e.attached {
				// A peer that attached before us sent already: deliver after Attach.
				break
			}
		}
		q.advance()
		if r == nil || c >= r.ncells {
			e.fail(fmt.Errorf("shm: corrupt cell reference %#x in the receive queue", v))
			continue
		}
		s := int(idx)
		p := r.cell(c)
		ch := (*cellHead)(p)
		k := ch.seq
		if k != e.recvSeq[s] {
			// The message before k is in the fastbox (see "Order" above).
			e.stats.queueAhead++
			n += e.nextFastbox(s, deliver)
		}
		switch d := int64(k - e.recvSeq[s]); {
		case d < 0:
			e.fail(fmt.Errorf("shm: stale message number %d (want %d) in a cell of rank %d", k, e.recvSeq[s], e.cfg.NodeRanks[s]))
			e.giveBack(r, s, c)
			continue
		case d > 0:
			e.fail(fmt.Errorf("shm: message number %d from rank %d, want %d (lost messages)", k, e.cfg.NodeRanks[s], e.recvSeq[s]))
		}
		e.recvSeq[s] = k + 1
		if ln := uint64(ch.len); ln > uint64(e.g.cellSize) {
			e.fail(fmt.Errorf("shm: corrupt payload length %d in a cell of rank %d", ln, e.cfg.NodeRanks[s]))
		} else {
			e.hdr = ch.hdr
			deliver(&e.hdr, unsafe.Slice((*byte)(unsafe.Add(p, cellHeaderSize)), ln))
			n++
		}
		e.giveBack(r, s, c)
		if e.pending[s] {
			n += e.nextFastbox(s, deliver)
		}
	}
	return n
}

// giveBack returns cell c to the free ring of r, the region of local rank s.
func (e *Endpoint) giveBack(r *region, s int, c uint64) {
	if !r.free.push(c) {
		e.fail(fmt.Errorf("shm: rank %d's free ring is full (cell returned twice?)", e.cfg.NodeRanks[s]))
	}
}
