package datatype

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// arena is a byte buffer holding count elements of a type whose type map may reach
// below the buffer address: base is the address the type map is relative to.
type arena struct {
	mem  []byte
	base unsafe.Pointer
	org  int64 // index of base in mem
}

func newArena(m *model, count int64, fill func(i int) byte) *arena {
	lo, hi := int64(0), int64(0)
	tlb, tub := m.trueBounds()
	for i := int64(0); i < count; i++ {
		lo = min(lo, i*m.ext()+tlb)
		hi = max(hi, i*m.ext()+tub)
	}
	const margin = 16
	a := &arena{mem: make([]byte, hi-lo+2*margin), org: -lo + margin}
	for i := range a.mem {
		a.mem[i] = fill(i)
	}
	a.base = unsafe.Pointer(&a.mem[a.org])
	return a
}

// refPack packs count elements by walking the model's type map element by element.
func refPack(m *model, a *arena, count int64) []byte {
	var out []byte
	for i := int64(0); i < count; i++ {
		for _, e := range m.tm {
			at := a.org + i*m.ext() + e.off
			out = append(out, a.mem[at:at+e.size]...)
		}
	}
	return out
}

// refUnpack writes a packed stream into the arena element by element.
func refUnpack(m *model, a *arena, count int64, stream []byte) {
	pos := int64(0)
	for i := int64(0); i < count; i++ {
		for _, e := range m.tm {
			at := a.org + i*m.ext() + e.off
			copy(a.mem[at:at+e.size], stream[pos:pos+e.size])
			pos += e.size
		}
	}
}

// refExternal is the external32 form of a packed stream of these basic types (all of
// which keep their size in external32): each element byte-reversed.
func refExternal(m *model, a *arena, count int64) []byte {
	var out []byte
	for i := int64(0); i < count; i++ {
		for _, e := range m.tm {
			at := a.org + i*m.ext() + e.off
			v := append([]byte{}, a.mem[at:at+e.size]...)
			if e.b.conv == convComplex {
				h := len(v) / 2
				reverse(v[:h])
				reverse(v[h:])
			} else {
				reverse(v)
			}
			out = append(out, v...)
		}
	}
	return out
}

func reverse(b []byte) {
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
}

// splits cuts n bytes into random chunks.
func splits(r *rand.Rand, n int64) []int64 {
	var cuts []int64
	for left := n; left > 0; {
		k := 1 + r.Int64N(min(left, 1+r.Int64N(64)))
		cuts = append(cuts, k)
		left -= k
	}
	return cuts
}

// checkType compares one type built by the constructors with its model: bounds, size,
// Pack and Unpack whole and in chunks, Elements, BytesForElements and external32.
func checkType(t *testing.T, ty *Type, m *model, count int64, r *rand.Rand) {
	t.Helper()
	tlb, tub := m.trueBounds()
	if ty.Size() != m.size() || ty.LB() != m.lb || ty.UB() != m.ub || ty.NumBasic() != int64(len(m.tm)) {
		t.Fatalf("size/bounds: got size %d lb %d ub %d nbasic %d, model size %d lb %d ub %d nbasic %d",
			ty.Size(), ty.LB(), ty.UB(), ty.NumBasic(), m.size(), m.lb, m.ub, len(m.tm))
	}
	if ty.Size() > 0 && (ty.TrueLB() != tlb || ty.TrueLB()+ty.TrueExtent() != tub) {
		t.Fatalf("true bounds: got %d+%d, model [%d, %d)", ty.TrueLB(), ty.TrueExtent(), tlb, tub)
	}
	ty.Commit()
	a := newArena(m, count, func(i int) byte { return byte(i*7 + 3) })
	want := refPack(m, a, count)
	total := PackedSize(count, ty)
	if int64(len(want)) != total {
		t.Fatalf("packed size %d, model %d", total, len(want))
	}
	// whole
	got := make([]byte, total+5)
	if n := Pack(got, a.base, count, ty, 0); int64(n) != total || !bytes.Equal(got[:n], want) {
		t.Fatalf("Pack: %d bytes %x, want %x", n, got[:n], want)
	}
	// chunks
	got = got[:0]
	off := int64(0)
	for _, k := range splits(r, total) {
		chunk := make([]byte, k)
		if n := Pack(chunk, a.base, count, ty, off); int64(n) != k {
			t.Fatalf("Pack chunk at %d: %d bytes, want %d", off, n, k)
		}
		got = append(got, chunk...)
		off += k
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("chunked Pack: %x, want %x", got, want)
	}
	if n := Pack(make([]byte, 4), a.base, count, ty, total); n != 0 {
		t.Fatalf("Pack past the end copied %d bytes", n)
	}
	// Unpack a distinct stream, whole and in chunks, compared with the reference.
	stream := make([]byte, total)
	for i := range stream {
		stream[i] = byte(r.IntN(256))
	}
	wantMem := newArena(m, count, func(int) byte { return 0xee })
	refUnpack(m, wantMem, count, stream)
	gotMem := newArena(m, count, func(int) byte { return 0xee })
	if n := Unpack(stream, gotMem.base, count, ty, 0); int64(n) != total || !bytes.Equal(gotMem.mem, wantMem.mem) {
		t.Fatalf("Unpack: %d bytes, memory differs", n)
	}
	gotMem = newArena(m, count, func(int) byte { return 0xee })
	off = 0
	for _, k := range splits(r, total) {
		Unpack(stream[off:off+k], gotMem.base, count, ty, off)
		off += k
	}
	if !bytes.Equal(gotMem.mem, wantMem.mem) {
		t.Fatalf("chunked Unpack: memory differs")
	}
	// Elements and BytesForElements at every basic element boundary and one inside.
	var bytesSoFar int64
	all := int64(len(m.tm))
	for i := int64(0); i <= count*all && i < 200; i++ {
		if got, _ := BytesForElements(ty, i); got != bytesSoFar {
			t.Fatalf("BytesForElements(%d) = %d, want %d", i, got, bytesSoFar)
		}
		if n, whole := Elements(ty, bytesSoFar); n != i || whole != (ty.Size() > 0 && bytesSoFar%ty.Size() == 0 || bytesSoFar == 0) {
			t.Fatalf("Elements(%d bytes) = %d, %v, want %d", bytesSoFar, n, whole, i)
		}
		if i < count*all {
			e := m.tm[i%all]
			if e.size > 1 {
				if n, _ := Elements(ty, bytesSoFar+1); n != -1 {
					t.Fatalf("Elements(%d bytes), inside an element = %d, want -1", bytesSoFar+1, n)
				}
			}
			bytesSoFar += e.size
		}
	}
	// external32
	ext := refExternal(m, a, count)
	if es, _ := ExternalPackedSize(count, ty); es != int64(len(ext)) {
		t.Fatalf("external size %d, want %d", es, len(ext))
	}
	gotExt := make([]byte, len(ext))
	if n := PackExternal(gotExt, a.base, count, ty); n != len(ext) || !bytes.Equal(gotExt, ext) {
		t.Fatalf("PackExternal: %x, want %x", gotExt, ext)
	}
	back := newArena(m, count, func(int) byte { return 0xee })
	UnpackExternal(gotExt, back.base, count, ty)
	wantBack := newArena(m, count, func(int) byte { return 0xee })
	refUnpack(m, wantBack, count, want)
	if !bytes.Equal(back.mem, wantBack.mem) {
		t.Fatalf("external32 round trip differs")
	}
}

func checkRandom(t *testing.T, seed uint64) {
	g := newGen(seed)
	defer g.free(t)
	ty, m := g.typ(4, 400)
	if !ty.IsPredefined() {
		defer func() {
			if t.Failed() {
				t.Logf("seed %d: %s", seed, describeTree(ty, 0))
			}
		}()
	}
	checkType(t, ty, m, g.between(1, 3), g.r)
}

// FuzzPack builds a random nested type from the seed and checks the engine against the
// reference model. `go test -fuzz FuzzPack ./core/datatype` explores further; the seeds
// below run in every `go test`.
func FuzzPack(f *testing.F) {
	for seed := uint64(0); seed < 300; seed++ {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		before := Live()
		checkRandom(t, seed)
		if after := Live(); after != before && !t.Failed() {
			// Only a sequential run can see the count; the fuzzer runs one input at a time per process.
			t.Fatalf("leak: %d live handles before, %d after", before, after)
		}
	})
}

// describeTree prints a type's constructor tree for failure messages.
func describeTree(t *Type, depth int) string {
	pad := string(bytes.Repeat([]byte("  "), depth))
	if t.IsPredefined() {
		return pad + t.Name() + "\n"
	}
	ints, addrs, counts, types, _ := t.Contents()
	s := pad + combinerName(t.combiner) + " ints=" + sprint(ints) + " addrs=" + sprint(addrs) + " counts=" + sprint(counts) + "\n"
	for _, c := range types {
		s += describeTree(c, depth+1)
	}
	return s
}

func sprint[T any](v []T) string {
	b := []byte{'['}
	for i, x := range v {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, []byte(fmtAny(x))...)
	}
	return string(append(b, ']'))
}

func combinerName(c int) string {
	return map[int]string{CombinerDup: "dup", CombinerContiguous: "contiguous", CombinerVector: "vector",
		CombinerHvector: "hvector", CombinerIndexed: "indexed", CombinerHindexed: "hindexed",
		CombinerIndexedBlock: "indexed_block", CombinerHindexedBlock: "hindexed_block",
		CombinerStruct: "struct", CombinerSubarray: "subarray", CombinerDarray: "darray",
		CombinerResized: "resized"}[c]
}

func ptr[T any](s []T) unsafe.Pointer { return unsafe.Pointer(&s[0]) }
