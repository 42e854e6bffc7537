package mpiio

import (
	"sort"
	"strconv"
	"unsafe"

	"mpix/core"
	"mpix/core/datatype"
)

// Collective buffering (two-phase I/O, as in ROMIO): in a collective access the ranks
// send the pieces they write to a few aggregators, each of which owns one contiguous
// domain of the file, merges the pieces it receives into runs and writes each run with
// one call; for a read, the aggregators read the runs and send each rank its pieces.
// Many small strided accesses from all ranks become few large contiguous ones.
//
// Aggregators: the first rank of each node in the file's communicator by default; the
// hint cb_nodes asks for another number. romio_cb_write / romio_cb_read: "disable"
// never buffers, "enable" always does, "automatic" (the default) does when the ranks'
// accesses interleave or one of them is not contiguous in the file.
//
// Memory: an aggregator's domain is done in rounds of cb_buffer_size bytes of file
// (16 MiB by default).

// exchange is an all-to-all of int64 words or bytes with per-rank counts.
func alltoallv[T int64 | byte](c *core.Comm, send []T, scounts []int64, rcounts []int64, t *datatype.Type) ([]T, error) {
	sdispl, _ := displs(scounts)
	rdispl, rtotal := displs(rcounts)
	recv := make([]T, rtotal+1) // never empty: core wants an address
	if len(send) == 0 {
		send = make([]T, 1)
	}
	_, err := core.Alltoall(core.Blocking, core.AlltoallArgs{
		Sbuf: unsafe.Pointer(&send[0]), Scounts: scounts, Sdispl: sdispl, St: t,
		Rbuf: unsafe.Pointer(&recv[0]), Rcounts: rcounts, Rdispl: rdispl, Rt: t,
	}, c)
	return recv[:rtotal], err
}

func displs(counts []int64) ([]int64, int64) {
	d := make([]int64, len(counts))
	var sum int64
	for i, n := range counts {
		d[i] = sum
		sum += n
	}
	return d, sum
}

// The values of romio_cb_read and romio_cb_write.
const (
	cbAutomatic = iota
	cbEnable
	cbDisable
)

var cbModes = map[string]int64{"automatic": cbAutomatic, "enable": cbEnable, "disable": cbDisable}

// cbNodes is the cb_nodes hint (0: one aggregator per node).
func (f *File) cbNodes() int {
	f.mu.Lock()
	s, _, _ := f.hints.Get("cb_nodes")
	f.mu.Unlock()
	n, _ := strconv.Atoi(s)
	return max(n, 0)
}

// aggregators returns the ranks of c that aggregate, in rank order: the first rank of
// each node, or want ranks (the first of each node first) when want > 0.
func (f *File) aggregators(want int) []int {
	c := f.comm
	peers := core.Peers()
	var first, rest []int
	seen := map[int]bool{}
	for r := 0; r < c.Size; r++ {
		node := 0
		if w := c.WorldRank(r); w >= 0 && w < len(peers) {
			node = peers[w].Node
		}
		if !seen[node] {
			seen[node] = true
			first = append(first, r)
		} else {
			rest = append(rest, r)
		}
	}
	if want <= 0 {
		return first
	}
	aggs := append(first, rest...)
	if want < len(aggs) {
		aggs = aggs[:want]
	}
	sort.Ints(aggs)
	return aggs
}

// cbMode is a collective buffering hint's value: "enable", "disable" or "automatic".
func (f *File) cbMode(write bool) string {
	key := "romio_cb_read"
	if write {
		key = "romio_cb_write"
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	v, _, _ := f.hints.Get(key)
	return v
}

// Collective is a collective access (MPI_File_write_at_all, MPI_File_read_all...) at
// etype offset pos of the view: two-phase when the hints and the access call for it,
// else each rank's own access. Every rank of the file's communicator must call it.
func (f *File) Collective(pos int64, b Buf, write bool) (int64, error) {
	v, atomic := f.state()
	err := f.access(write)
	if err == nil {
		err = b.check(v)
	}
	if err == nil && pos < 0 {
		err = core.Errorf(core.ErrArg, "the offset must not be negative (%d)", pos)
	}
	// This rank's file segments.
	var segs []run
	lo, hi := int64(-1), int64(-1)
	if err == nil && b.Bytes() > 0 {
		v.Segments(pos*v.esize, b.Bytes(), func(off, n int64) bool {
			segs = append(segs, run{off, n})
			return true
		})
		lo, hi = segs[0].off, segs[len(segs)-1].off+segs[len(segs)-1].n
	}
	class := int64(0)
	if err != nil {
		class = int64(core.AsError(err).Class)
	}
	// The hints that steer collective buffering may differ between ranks (set_info
	// is per process): rank 0's decide, so that every rank takes the same path.
	const k = 7
	all, gerr := allgather(f.comm, class, lo, hi, int64(len(segs)), cbModes[f.cbMode(write)], f.cbBufferSize(), int64(f.cbNodes()))
	if gerr != nil {
		return 0, gerr
	}
	for r := 0; r < f.comm.Size; r++ { // the lowest failing rank's error, as agree
		if cl := all[k*r]; cl != 0 {
			if r == f.comm.Rank {
				return 0, err
			}
			return 0, core.Errorf(int(cl), "the collective access failed at rank %d of the file's communicator", r)
		}
	}
	mode, cb, cbNodes := all[4], all[5], int(all[6])
	interleaved := false
	type span struct{ lo, hi int64 }
	var spans []span
	glo, ghi := int64(-1), int64(-1)
	for r := 0; r < f.comm.Size; r++ {
		l, h, n := all[k*r+1], all[k*r+2], all[k*r+3]
		if n > 1 {
			interleaved = true
		}
		if l < 0 {
			continue
		}
		spans = append(spans, span{l, h})
		if glo < 0 || l < glo {
			glo = l
		}
		if h > ghi {
			ghi = h
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].lo < spans[j].lo })
	for i := 1; i < len(spans); i++ {
		if spans[i].lo < spans[i-1].hi {
			interleaved = true
		}
	}
	if mode == cbDisable || (mode != cbEnable && !interleaved) || glo < 0 {
		return f.transfer(v, pos, b, write, atomic)
	}
	return f.twoPhase(segs, b, write, atomic, glo, ghi, cb, f.aggregators(cbNodes))
}

// twoPhase carries out a collective access whose file segments at this rank are segs
// (in data order) and whose ranks' data all lies in [glo, ghi). Each aggregator's
// domain is done in rounds of at most cb_buffer_size bytes of file, so that no
// aggregator holds more than that (plus the pieces' bookkeeping) at once.
func (f *File) twoPhase(segs []run, b Buf, write, atomic bool, glo, ghi, cb int64, aggs []int) (int64, error) {
	na := int64(len(aggs))
	dom := (ghi - glo + na - 1) / na
	dom = (dom + cb - 1) / cb * cb // a whole number of rounds
	rounds := int(dom / cb)

	// The data, packed (a read fills it and unpacks it at the end).
	v, _ := f.state()
	var data []byte
	if write {
		data = pack(v, b)
	} else {
		data = make([]byte, b.Bytes())
	}
	// Split the segments at every round boundary (domain boundaries are some of
	// them): the pieces of each round, per aggregator, in data order.
	perRound := make([][][]piece, rounds)
	for r := range perRound {
		perRound[r] = make([][]piece, na)
	}
	var at int64
	for _, s := range segs {
		for off, left := s.off, s.n; left > 0; {
			w := (off - glo) / cb // the cb-sized window of the file
			end := min(off+left, glo+(w+1)*cb)
			a, r := int((off-glo)/dom), int(w%int64(rounds))
			perRound[r][a] = append(perRound[r][a], piece{off: off, n: end - off, at: at})
			at += end - off
			left -= end - off
			off = end
		}
	}
	var readErr error
	for r := 0; r < rounds; r++ {
		if err := f.round(aggs, perRound[r], data, write, atomic, &readErr); err != nil {
			return 0, err
		}
	}
	if write {
		return b.Bytes(), nil
	}
	if readErr != nil {
		return 0, readErr
	}
	// The count is the data before the first piece the file did not hold whole.
	var pieces []piece
	for _, pr := range perRound {
		for _, ps := range pr {
			pieces = append(pieces, ps...)
		}
	}
	sort.Slice(pieces, func(i, j int) bool { return pieces[i].at < pieces[j].at })
	var done int64
	for _, p := range pieces {
		done += p.have
		if p.have < p.n {
			break
		}
	}
	if done > 0 {
		unpack(v, b, data[:done])
	}
	return done, nil
}

// piece is part of one rank's access that one aggregator serves in one round: n
// bytes at file offset off, at offset at of the rank's packed data; have is how many
// of them a read found in the file.
type piece struct{ off, n, at, have int64 }

// cbBufferSize is the cb_buffer_size hint (16 MiB when unset or invalid).
func (f *File) cbBufferSize() int64 {
	f.mu.Lock()
	s, _, _ := f.hints.Get("cb_buffer_size")
	f.mu.Unlock()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 16 << 20
	}
	return n
}

// round is one round of two-phase I/O: mine holds this rank's pieces per aggregator
// (aggs[a] serves mine[a]); data is this rank's packed data, which a read fills. A
// write's error is agreed by all ranks and returned; a read's reaches only the ranks
// whose pieces it spoiled, through readErr, so that every rank does every round.
func (f *File) round(aggs []int, mine [][]piece, data []byte, write, atomic bool, readErr *error) error {
	c := f.comm
	// Phase 1: the pieces' offsets and lengths to their aggregators.
	var meta []int64
	mcounts := make([]int64, c.Size)
	dcounts := make([]int64, c.Size)
	var out []byte
	for a, ps := range mine {
		r := aggs[a]
		for _, p := range ps {
			meta = append(meta, p.off, p.n)
			dcounts[r] += p.n
			if write {
				out = append(out, data[p.at:p.at+p.n]...)
			}
		}
		mcounts[r] += int64(2 * len(ps))
	}
	rmcounts, err := alltoallv(c, mcounts, ones(c.Size), ones(c.Size), int64Type)
	if err != nil {
		return err
	}
	rmeta, err := alltoallv(c, meta, mcounts, rmcounts, int64Type)
	if err != nil {
		return err
	}
	// What this rank aggregates: every received piece, with where its data is in the
	// received (write) or returned (read) buffer, in rank order.
	rdcounts := make([]int64, c.Size)
	var agg []piece
	{
		i := 0
		var pos int64
		for r := 0; r < c.Size; r++ {
			for k := int64(0); k < rmcounts[r]; k += 2 {
				agg = append(agg, piece{off: rmeta[i], n: rmeta[i+1], at: pos})
				rdcounts[r] += rmeta[i+1]
				pos += rmeta[i+1]
				i += 2
			}
		}
	}
	order := make([]int, len(agg))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return agg[order[i]].off < agg[order[j]].off })

	var ioErr error
	if write {
		// Phase 2: the data to the aggregators, which write merged runs.
		in, err := alltoallv(c, out, dcounts, rdcounts, byteType)
		if err != nil {
			return err
		}
		var run []byte
		runOff := int64(-1)
		flush := func() {
			if len(run) > 0 && ioErr == nil {
				ioErr = f.writeRun(run, runOff, atomic)
			}
			run, runOff = run[:0], -1
		}
		for _, i := range order {
			p := agg[i]
			if runOff >= 0 && runOff+int64(len(run)) == p.off {
				run = append(run, in[p.at:p.at+p.n]...)
				continue
			}
			if runOff >= 0 && p.off < runOff+int64(len(run)) {
				// Overlapping pieces of different ranks: the later one wins.
				end := runOff + int64(len(run))
				copy(run[p.off-runOff:], in[p.at:p.at+min(p.n, end-p.off)])
				if p.off+p.n > end {
					run = append(run, in[p.at+end-p.off:p.at+p.n]...)
				}
				continue
			}
			flush()
			runOff = p.off
			run = append(run, in[p.at:p.at+p.n]...)
		}
		flush()
		return agree(c, ioErr)
	}

	// A read: the aggregator reads merged runs (small holes read through: data
	// sieving) and returns each piece, with how much of it the file held.
	_, total := displs(rdcounts)
	back := make([]byte, total)
	valid := make([]int64, len(agg))
	const sieveGap = 64 << 10
	for i := 0; i < len(order) && ioErr == nil; {
		// A span of pieces whose gaps are small.
		start := agg[order[i]].off
		end := start + agg[order[i]].n
		j := i + 1
		for ; j < len(order); j++ {
			p := agg[order[j]]
			if p.off > end+sieveGap {
				break
			}
			end = max(end, p.off+p.n)
		}
		buf := make([]byte, end-start)
		got, err := f.readRun(buf, start, atomic)
		if err != nil {
			ioErr = err
			break
		}
		for _, k := range order[i:j] {
			p := agg[k]
			have := min(p.n, max(0, got-(p.off-start)))
			copy(back[p.at:p.at+have], buf[p.off-start:])
			valid[k] = have
		}
		i = j
	}
	if ioErr != nil {
		// Every piece this rank serves reports the error's class (as a negative
		// length) to the rank that asked for it.
		for k := range valid {
			valid[k] = -int64(core.AsError(ioErr).Class)
		}
	}
	// Phase 2: pieces and their valid lengths back to their ranks.
	vcounts := make([]int64, c.Size)
	mvcounts := make([]int64, c.Size)
	for r := range vcounts {
		vcounts[r] = rmcounts[r] / 2
		mvcounts[r] = mcounts[r] / 2
	}
	rvalid, err := alltoallv(c, valid, vcounts, mvcounts, int64Type)
	if err != nil {
		return err
	}
	in, err := alltoallv(c, back, rdcounts, dcounts, byteType)
	if err != nil {
		return err
	}
	var inAt, vi int64
	for a := range mine {
		for k := range mine[a] {
			p := &mine[a][k]
			copy(data[p.at:p.at+p.n], in[inAt:inAt+p.n])
			p.have = rvalid[vi]
			inAt += p.n
			vi++
			if p.have < 0 && *readErr == nil {
				// Reported once every round is done: the other ranks go on.
				*readErr = core.Errorf(int(-p.have), "mpix: the read failed at rank %d, which aggregates file bytes %d-%d", aggs[a], p.off, p.off+p.n-1)
			}
		}
	}
	return nil
}

func ones(n int) []int64 {
	o := make([]int64, n)
	for i := range o {
		o[i] = 1
	}
	return o
}

func (f *File) writeRun(p []byte, off int64, atomic bool) error {
	if atomic {
		if err := f.h.Lock(off, int64(len(p)), true); err != nil {
			return ioError("lock "+f.path, err)
		}
		defer f.h.Unlock(off, int64(len(p)))
	}
	_, err := f.h.WriteAt(p, off)
	return ioError("write "+f.path, err)
}

func (f *File) readRun(p []byte, off int64, atomic bool) (int64, error) {
	if atomic {
		if err := f.h.Lock(off, int64(len(p)), false); err != nil {
			return 0, ioError("lock "+f.path, err)
		}
		defer f.h.Unlock(off, int64(len(p)))
	}
	n, err := f.h.ReadAt(p, off)
	return int64(n), ioError("read "+f.path, err)
}
