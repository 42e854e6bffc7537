package mpiio

import (
	"testing"

	"mpix/core"
	"mpix/core/datatype"
)

var (
	intType  = datatype.Predefined(0x4c000405) // MPI_INT
	longType = datatype.Predefined(0x4c000807) // MPI_LONG: 8 bytes, 4 in external32
)

// must commits a constructed type; construction errors panic (the test's inputs are
// valid).
func must(ty *datatype.Type, err error) *datatype.Type {
	if err != nil {
		panic(err)
	}
	ty.Commit()
	return ty
}

type seg struct{ off, n int64 }

func segments(v *View, p, n int64) []seg {
	var out []seg
	v.Segments(p, n, func(off, k int64) bool { out = append(out, seg{off, k}); return true })
	return out
}

// TestViewArithmetic checks the mapping of data bytes to file bytes, byte offsets
// and the data below a file size, for views with and without holes.
func TestViewArithmetic(t *testing.T) {
	if intType.Size() != 4 {
		t.Fatalf("MPI_INT handle gives a type of %d bytes", intType.Size())
	}
	// 2 blocks of 2 ints, stride 4 ints, resized to 8 ints: data at ints 0-1 and 4-5
	// of each tile of 8.
	vec := must(datatype.Vector(2, 2, 4, intType, false))
	holes := must(datatype.Resized(vec, 0, 32, false))
	// Indexed with a leading hole: ints 1 and 3-4; lb 4, extent 16.
	idx := must(datatype.Indexed([]int64{1, 2}, []int64{1, 3}, intType, false))
	cases := []struct {
		name        string
		disp        int64
		etype, ft   *datatype.Type
		p, n        int64 // data bytes
		want        []seg
		byteOffsets map[int64]int64 // etype offset -> absolute byte
		below       map[int64]int64 // file size -> data bytes
	}{
		{
			name: "bytes", disp: 10, etype: byteType, ft: byteType,
			p: 5, n: 100, want: []seg{{15, 100}},
			byteOffsets: map[int64]int64{0: 10, 7: 17},
			below:       map[int64]int64{0: 0, 10: 0, 11: 1, 1000: 990},
		},
		{
			name: "contiguous ints", disp: 0, etype: intType, ft: intType,
			p: 8, n: 16, want: []seg{{8, 16}},
			byteOffsets: map[int64]int64{3: 12},
			below:       map[int64]int64{13: 13},
		},
		{
			name: "holes, whole tiles", disp: 100, etype: intType, ft: holes,
			p: 0, n: 32, want: []seg{{100, 8}, {116, 8}, {132, 8}, {148, 8}},
			byteOffsets: map[int64]int64{0: 100, 1: 104, 2: 116, 3: 120, 4: 132, 6: 148},
			below:       map[int64]int64{100: 0, 104: 4, 108: 8, 116: 8, 120: 12, 124: 16, 132: 16, 200: 3*16 + 4},
		},
		{
			name: "holes, mid-run start", disp: 0, etype: intType, ft: holes,
			p: 4, n: 12, want: []seg{{4, 4}, {16, 8}},
			byteOffsets: map[int64]int64{5: 36, 6: 48},
		},
		{
			name: "indexed, leading hole", disp: 0, etype: intType, ft: idx,
			// Extent 16 from lb 4: tile i holds bytes 16i+4..16i+19, so tile 0's last
			// run and tile 1's first meet at byte 20 and merge.
			p: 0, n: 24, want: []seg{{4, 4}, {12, 12}, {28, 8}},
			byteOffsets: map[int64]int64{0: 4, 1: 12, 2: 16, 3: 20, 4: 28},
			below:       map[int64]int64{4: 0, 8: 4, 12: 4, 18: 10, 20: 12, 24: 16, 30: 18, 36: 24},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := NewView(c.disp, c.etype, c.ft, "native")
			if err != nil {
				t.Fatal(err)
			}
			got := segments(v, c.p, c.n)
			if len(got) != len(c.want) {
				t.Fatalf("segments %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("segments %v, want %v", got, c.want)
				}
			}
			for off, want := range c.byteOffsets {
				if b := v.ByteOffset(off); b != want {
					t.Errorf("ByteOffset(%d) = %d, want %d", off, b, want)
				}
			}
			for size, want := range c.below {
				if d := v.DataBelow(size); d != want {
					t.Errorf("DataBelow(%d) = %d, want %d", size, d, want)
				}
			}
		})
	}
}

// TestViewErrors checks the views MPI forbids.
func TestViewErrors(t *testing.T) {
	decreasing := must(datatype.Indexed([]int64{1, 1}, []int64{3, 0}, intType, false))
	overlapping := must(datatype.Resized(must(datatype.Contiguous(4, intType, false)), 0, 8, false))
	uncommitted, err := datatype.Contiguous(2, intType, false)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		disp      int64
		etype, ft *datatype.Type
		rep       string
		class     int
	}{
		{"negative displacement", -1, intType, intType, "native", core.ErrArg},
		{"filetype not a multiple of the etype", 0, intType, byteType, "native", core.ErrType},
		{"decreasing displacements", 0, intType, decreasing, "native", core.ErrType},
		{"tiles overlap", 0, intType, overlapping, "native", core.ErrType},
		{"uncommitted", 0, intType, uncommitted, "native", core.ErrType},
		{"unknown representation", 0, intType, intType, "ebcdic", core.ErrUnsupportedDatarep},
		{"external32 of a type whose size changes", 0, longType, longType, "external32", core.ErrUnsupportedDatarep},
	}
	for _, c := range cases {
		_, err := NewView(c.disp, c.etype, c.ft, c.rep)
		if err == nil || core.AsError(err).Class != c.class {
			t.Errorf("%s: error %v, want class %d", c.name, err, c.class)
		}
	}
	for _, rep := range []string{"internal", "external32"} {
		if _, err := NewView(0, intType, intType, rep); err != nil {
			t.Errorf("%s: %v", rep, err)
		}
	}
}

// TestCheckAmode checks MPI_File_open's access mode rules.
func TestCheckAmode(t *testing.T) {
	for _, c := range []struct {
		amode int
		ok    bool
	}{
		{ModeRdonly, true}, {ModeWronly | ModeCreate | ModeExcl, true}, {ModeRdwr | ModeDeleteOnClose | ModeUniqueOpen | ModeAppend, true},
		{ModeWronly | ModeSequential, true}, {0, false}, {ModeCreate, false}, {ModeRdonly | ModeRdwr, false},
		{ModeRdonly | ModeCreate, false}, {ModeRdonly | ModeExcl, false}, {ModeRdwr | ModeSequential, false},
		{ModeRdwr | 1024, false},
	} {
		err := CheckAmode(c.amode)
		if (err == nil) != c.ok || (err != nil && core.AsError(err).Class != core.ErrAmode) {
			t.Errorf("CheckAmode(%#x) = %v, want ok %v", c.amode, err, c.ok)
		}
	}
}
