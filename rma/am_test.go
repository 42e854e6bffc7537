package rma

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"mpix/core"
	"mpix/transport"
)

func TestRequestRoundTrip(t *testing.T) {
	tests := []struct {
		name         string
		runs         []run
		opH, typeH   int32
		data         [][]byte
		wantDataJoin []byte
	}{
		{"get: runs only", []run{{0x1000, 8}, {0x2000, 4}}, 0, 0, nil, nil},
		{"no runs", nil, 0, 0, nil, nil},
		{"put", []run{{0x7fff00001000, 3}}, 0, 0, [][]byte{{1, 2, 3}}, []byte{1, 2, 3}},
		{"accumulate, negative handles", []run{{1, 12}}, hMaxLoc, hDoubleInt, [][]byte{bytes.Repeat([]byte{7}, 12)}, bytes.Repeat([]byte{7}, 12)},
		{"compare-and-swap: two values", []run{{0x10, 4}}, 0, hInt, [][]byte{{1, 0, 0, 0}, {2, 0, 0, 0}}, []byte{1, 0, 0, 0, 2, 0, 0, 0}},
		{"extreme run", []run{{math.MaxUint64, math.MaxInt64}, {0, 0}}, -1, math.MinInt32, nil, nil},
		{"empty data slice", []run{{8, 0}}, hSum, hInt, [][]byte{{}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := request(tc.runs, tc.opH, tc.typeH, tc.data...)
			if want := prefixLen + runLen*len(tc.runs) + len(tc.wantDataJoin); len(p) != want {
				t.Errorf("payload of %d bytes, want %d", len(p), want)
			}
			runs, opH, typeH, data, ok := parseRequest(p)
			if !ok {
				t.Fatal("parseRequest refused a request")
			}
			if len(tc.runs) == 0 {
				tc.runs = []run{}
			}
			if diff := cmp.Diff(tc.runs, runs, cmp.AllowUnexported(run{})); diff != "" {
				t.Errorf("runs (-sent +parsed):\n%s", diff)
			}
			if opH != tc.opH || typeH != tc.typeH {
				t.Errorf("handles %#x %#x, want %#x %#x", opH, typeH, tc.opH, tc.typeH)
			}
			if !bytes.Equal(data, tc.wantDataJoin) {
				t.Errorf("data %v, want %v", data, tc.wantDataJoin)
			}
		})
	}
}

func TestParseRequestRejects(t *testing.T) {
	// good is a valid request with one run and 4 bytes of data.
	good := request([]run{{0x1000, 4}}, hSum, hInt, []byte{1, 2, 3, 4})
	withRuns := func(k uint32, rest int) []byte {
		p := make([]byte, prefixLen+rest)
		binary.LittleEndian.PutUint32(p, k)
		return p
	}
	negRun := request([]run{{0x1000, 4}, {0x2000, 8}}, 0, 0)
	binary.LittleEndian.PutUint64(negRun[prefixLen+runLen+8:], uint64(1)<<63)
	minusOne := request([]run{{0x1000, 4}}, 0, 0)
	binary.LittleEndian.PutUint64(minusOne[prefixLen+8:], math.MaxUint64)
	tests := []struct {
		name string
		p    []byte
		ok   bool
	}{
		{"nil", nil, false},
		{"empty", []byte{}, false},
		{"one byte short of a prefix", make([]byte, prefixLen-1), false},
		{"prefix only, no runs", make([]byte, prefixLen), true},
		{"one run announced, none sent", withRuns(1, 0), false},
		{"one run announced, 15 bytes sent", withRuns(1, runLen-1), false},
		{"one run announced and sent", withRuns(1, runLen), true},
		{"two runs announced, one sent", withRuns(2, runLen+8), false},
		{"2^31 runs", withRuns(1<<31, 64), false},
		{"2^32-1 runs", withRuns(math.MaxUint32, 64), false},
		{"negative length", negRun, false},
		{"length -1", minusOne, false},
		{"truncated request", good[:len(good)-4-1], false},
		{"good", good, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runs, _, _, data, ok := parseRequest(tc.p)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v (runs %v)", ok, tc.ok, runs)
			}
			if !ok && (runs != nil || data != nil) {
				t.Errorf("refused request returned runs %v, data %v", runs, data)
			}
		})
	}
}

type chunk struct {
	runs   []run
	off, n int64
}

// collect runs splitRuns and returns its chunks.
func collect(runs []run, max, unit int64, carry bool) ([]chunk, error) {
	var out []chunk
	err := splitRuns(runs, max, unit, carry, func(rs []run, off, n int64) error {
		out = append(out, chunk{append([]run(nil), rs...), off, n})
		return nil
	})
	return out, err
}

// checkChunks checks what splitRuns promises: the chunks cover runs exactly and in
// order, offsets follow the data, each message fits max, data comes in whole units.
func checkChunks(t *testing.T, runs []run, max, unit int64, carry bool, got []chunk) {
	t.Helper()
	if unit <= 0 {
		unit = 1
	}
	i, within, off := 0, int64(0), int64(0)
	for c, ch := range got {
		if len(ch.runs) == 0 {
			t.Fatalf("chunk %d has no runs", c)
		}
		if ch.off != off {
			t.Fatalf("chunk %d at offset %d, want %d", c, ch.off, off)
		}
		var n int64
		for _, x := range ch.runs {
			for i < len(runs) && runs[i].n == within && runs[i].n > 0 {
				i, within = i+1, 0
			}
			if i == len(runs) {
				t.Fatalf("chunk %d: run %v beyond the operation's runs", c, x)
			}
			if want := runs[i].addr + uint64(within); x.addr != want || x.n <= 0 || within+x.n > runs[i].n {
				t.Fatalf("chunk %d: run %v, want one at %#x of at most %d bytes", c, x, want, runs[i].n-within)
			}
			if x.n%unit != 0 {
				t.Errorf("chunk %d: run of %d bytes is not whole units of %d", c, x.n, unit)
			}
			within += x.n
			n += x.n
		}
		if ch.n != n {
			t.Errorf("chunk %d: announced %d bytes, runs hold %d", c, ch.n, n)
		}
		if n%unit != 0 {
			t.Errorf("chunk %d: %d bytes of data is not whole units of %d", c, n, unit)
		}
		size := int64(prefixLen + runLen*len(ch.runs))
		if carry {
			size += n
		}
		if size > max {
			t.Errorf("chunk %d: request of %d bytes over the limit %d", c, size, max)
		}
		if !carry && n > max {
			t.Errorf("chunk %d: answer of %d bytes over the limit %d", c, n, max)
		}
		off += n
	}
	for i < len(runs) && runs[i].n == within {
		i, within = i+1, 0
	}
	if i != len(runs) {
		t.Fatalf("chunks stop at run %d of %d (%d bytes in)", i, len(runs), within)
	}
	if off != totalLen(runs) {
		t.Fatalf("chunks carry %d bytes, runs hold %d", off, totalLen(runs))
	}
}

func TestSplitRuns(t *testing.T) {
	many := make([]run, 100)
	for i := range many {
		many[i] = run{uint64(0x1000 + 64*i), 8}
	}
	tests := []struct {
		name       string
		runs       []run
		max, unit  int64
		carry      bool
		wantChunks int // 0: do not check the count
	}{
		{"no runs", nil, 1024, 1, true, 0},
		{"one small run", []run{{0x1000, 100}}, 1024, 1, true, 1},
		{"exactly the limit", []run{{0x1000, 100}}, prefixLen + runLen + 100, 1, true, 1},
		{"one byte over the limit", []run{{0x1000, 100}}, prefixLen + runLen + 99, 1, true, 2},
		{"big run carried", []run{{0x1000, 10000}}, 1024, 1, true, 11},
		{"big run answered", []run{{0x1000, 10000}}, 1024, 1, false, 10},
		{"many runs carried", many, 256, 1, true, 0},
		{"many runs answered: the run table limits", many, 256, 1, false, 0},
		{"accumulate units", []run{{0x1000, 1200}, {0x9000, 48}}, 200, 12, true, 0},
		{"units answered", []run{{0x1000, 1200}, {0x9000, 48}}, 200, 12, false, 0},
		{"unit 0 means bytes", []run{{0x1000, 333}}, 100, 0, true, 0},
		{"unit 8, odd limit", []run{{0x1000, 800}, {0x2000, 8}, {0x3000, 16}}, 16 + 16 + 8 + 7, 8, true, 0},
		{"smallest limit that carries a unit", []run{{0x1000, 64}}, prefixLen + runLen + 16, 16, true, 4},
		{"high addresses", []run{{math.MaxUint64 - 999, 1000}}, 300, 4, true, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := collect(tc.runs, tc.max, tc.unit, tc.carry)
			if err != nil {
				t.Fatal(err)
			}
			checkChunks(t, tc.runs, tc.max, tc.unit, tc.carry, got)
			if tc.wantChunks != 0 && len(got) != tc.wantChunks {
				t.Errorf("%d chunks, want %d", len(got), tc.wantChunks)
			}
		})
	}
}

func TestSplitRunsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 500; iter++ {
		unit := []int64{1, 2, 4, 8, 12, 16}[rng.IntN(6)]
		carry := rng.IntN(2) == 0
		max := prefixLen + runLen + unit + rng.Int64N(600)
		runs := make([]run, rng.IntN(20))
		addr := uint64(rng.Int64N(1 << 40))
		for i := range runs {
			runs[i] = run{addr, unit * (1 + rng.Int64N(80))}
			addr += uint64(runs[i].n) + uint64(rng.Int64N(3))*uint64(unit)
		}
		got, err := collect(runs, max, unit, carry)
		if err != nil {
			t.Fatalf("runs %v max %d unit %d carry %v: %v", runs, max, unit, carry, err)
		}
		checkChunks(t, runs, max, unit, carry, got)
		if t.Failed() {
			t.Fatalf("runs %v max %d unit %d carry %v: chunks %v", runs, max, unit, carry, got)
		}
	}
}

func TestSplitRunsErrors(t *testing.T) {
	calls := 0
	count := func([]run, int64, int64) error { calls++; return nil }
	tests := []struct {
		name      string
		max, unit int64
		carry     bool
	}{
		{"no room for a run", prefixLen + runLen - 1, 1, false},
		{"no room for one byte", prefixLen + runLen, 1, true},
		{"no room for an element", prefixLen + runLen + 11, 12, true},
		{"no room for an element's answer either", prefixLen + runLen + 11, 12, false},
		{"limit below the prefix", 8, 1, true},
		{"negative limit", -1, 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls = 0
			err := splitRuns([]run{{0x1000, 24}}, tc.max, tc.unit, tc.carry, count)
			if classOf(err) != core.ErrIntern {
				t.Errorf("error %v, want MPI_ERR_INTERN", err)
			}
			if calls != 0 {
				t.Errorf("%d chunks sent before the error", calls)
			}
		})
	}
	// A failing send stops the splitting and is returned as it is.
	stop := errors.New("send failed")
	calls = 0
	err := splitRuns([]run{{0x1000, 1000}}, 100, 1, true, func([]run, int64, int64) error {
		calls++
		if calls == 2 {
			return stop
		}
		return nil
	})
	if err != stop || calls != 2 {
		t.Errorf("error %v after %d chunks, want the send's error after 2", err, calls)
	}
}

func TestTargetErrs(t *testing.T) {
	var te targetErrs
	te.note(8, 1, core.ErrRMARange)
	te.note(8, 1, core.ErrType) // the first error stays
	te.note(8, 2, core.ErrOp)
	te.note(16, 1, core.ErrOther)
	// Contexts that differ only above bit 15, and large ranks.
	te.note(0x10008, 1, core.ErrRMASync)
	te.note(8, 0x10001, core.ErrDisp)
	tests := []struct {
		ctx  uint32
		src  int32
		want int
	}{
		{8, 1, core.ErrRMARange},
		{8, 1, 0}, // taken
		{8, 2, core.ErrOp},
		{16, 1, core.ErrOther},
		{0x10008, 1, core.ErrRMASync},
		{8, 0x10001, core.ErrDisp},
		{8, 3, 0},
		{24, 1, 0},
	}
	for _, tc := range tests {
		if got := te.take(tc.ctx, tc.src); got != tc.want {
			t.Errorf("take(%#x, %d) = %d, want %d", tc.ctx, tc.src, got, tc.want)
		}
	}
}

// answer is the origin's side of the replies: it needs no engine for operations
// without a request.
func TestAnswer(t *testing.T) {
	hdr := func(tag int32, id uint64, off int64, flags uint8) *transport.Header {
		return &transport.Header{Kind: transport.KindRMA, Tag: tag, SendReq: id, Offset: off, Flags: flags}
	}
	t.Run("data in chunks", func(t *testing.T) {
		w := &Win{window: &window{}}
		a := &amOp{raw: make([]byte, 8), want: 8}
		id := w.am.add(a)
		w.answer(hdr(amData, id, 4, 0), []byte{5, 6, 7, 8})
		if a.done.Load() {
			t.Fatal("done after half the data")
		}
		w.answer(hdr(amData, id, 0, 0), []byte{1, 2, 3, 4})
		if !a.done.Load() || a.err != 0 {
			t.Fatalf("done %v err %d", a.done.Load(), a.err)
		}
		if !bytes.Equal(a.raw, []byte{1, 2, 3, 4, 5, 6, 7, 8}) {
			t.Errorf("data %v", a.raw)
		}
		if w.am.table.get(id) != nil {
			t.Error("finished operation still registered")
		}
		w.answer(hdr(amData, id, 0, 0), []byte{9}) // late: ignored
		if a.raw[0] != 1 {
			t.Error("an answer to a finished operation was applied")
		}
	})
	t.Run("data out of range", func(t *testing.T) {
		for _, off := range []int64{-1, 5, math.MaxInt64} {
			w := &Win{window: &window{}}
			a := &amOp{raw: make([]byte, 8), want: 8}
			id := w.am.add(a)
			w.answer(hdr(amData, id, off, 0), []byte{1, 2, 3, 4})
			if !a.done.Load() || a.err != core.ErrOther {
				t.Errorf("offset %d: done %v err %d", off, a.done.Load(), a.err)
			}
			if got := w.am.failed.Load(); got != core.ErrOther {
				t.Errorf("offset %d: failed %d, want it kept for the next flush", off, got)
			}
			if !bytes.Equal(a.raw, make([]byte, 8)) {
				t.Errorf("offset %d: data written: %v", off, a.raw)
			}
		}
	})
	t.Run("failed", func(t *testing.T) {
		w := &Win{window: &window{}}
		a := &amOp{raw: make([]byte, 4), want: 4}
		id := w.am.add(a)
		w.answer(hdr(amFailed, id, core.ErrRMARange, 0), nil)
		if !a.done.Load() || a.err != core.ErrRMARange || w.am.failed.Load() != core.ErrRMARange {
			t.Errorf("done %v err %d failed %d", a.done.Load(), a.err, w.am.failed.Load())
		}
	})
	t.Run("flushed", func(t *testing.T) {
		w := &Win{window: &window{}}
		a := &amOp{want: 1}
		id := w.am.add(a)
		w.answer(hdr(amFlushed, id, core.ErrType, 0), nil)
		// The flush reports its own error; it is not kept for the next one.
		if !a.done.Load() || a.err != core.ErrType || w.am.failed.Load() != 0 {
			t.Errorf("done %v err %d failed %d", a.done.Load(), a.err, w.am.failed.Load())
		}
	})
	t.Run("locked", func(t *testing.T) {
		for _, flags := range []uint8{0, flagGranted, flagGranted | flagExclusive} {
			w := &Win{window: &window{}}
			a := &amOp{want: 1}
			id := w.am.add(a)
			w.answer(hdr(amLocked, id, 0, flags), nil)
			if !a.done.Load() || a.granted != (flags&flagGranted != 0) {
				t.Errorf("flags %#x: done %v granted %v", flags, a.done.Load(), a.granted)
			}
		}
	})
	t.Run("unknown id", func(t *testing.T) {
		w := &Win{window: &window{}}
		w.answer(hdr(amData, 42, 0, 0), []byte{1}) // must not panic
		if w.am.failed.Load() != 0 {
			t.Error("an answer to no operation was recorded")
		}
	})
}

func TestAmOriginIDs(t *testing.T) {
	var a amOrigin
	seen := map[uint64]bool{}
	for i := 0; i < 100; i++ {
		id := a.add(&amOp{})
		if id == 0 || seen[id] {
			t.Fatalf("id %d reused or zero (0 means no answer)", id)
		}
		seen[id] = true
	}
}

// checkOwn is the target's check of runs an origin sent: forged addresses never reach
// memory outside the window.
func TestCheckOwn(t *testing.T) {
	own := newState(t)
	own.setRegions([]region{{base: 0x20000, size: 64}})
	self := target{base: 0x10000, size: 128}
	tests := []struct {
		name   string
		flavor Flavor
		runs   []run
		ok     bool
	}{
		{"in the window", FlavorCreate, []run{{0x10000, 128}}, true},
		{"past the window", FlavorAllocate, []run{{0x10000, 4}, {0x10080, 1}}, false},
		{"below the window", FlavorShared, []run{{0xffff, 1}}, false},
		{"another process's address", FlavorCreate, []run{{0x20000, 4}}, false},
		{"attached region", FlavorDynamic, []run{{0x20000, 64}}, true},
		{"past the attached region", FlavorDynamic, []run{{0x20000 + 60, 8}}, false},
		{"the window base of a dynamic window", FlavorDynamic, []run{{0x10000, 4}}, false},
		{"wrapping run", FlavorDynamic, []run{{0x20000 + 8, math.MaxInt64}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := self
			w := &Win{window: &window{flavor: tc.flavor, self: &s, own: own}}
			err := w.checkOwn(tc.runs, 0)
			if tc.ok != (err == nil) || (err != nil && classOf(err) != core.ErrRMARange) {
				t.Errorf("checkOwn: %v, want ok %v", err, tc.ok)
			}
		})
	}
}
