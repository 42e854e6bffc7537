package op

import (
	"runtime"
	"testing"
	"unsafe"

	"mpix/core/datatype"
)

func TestCharElem(t *testing.T) {
	for _, c := range []struct {
		arch string
		want elem
	}{{"amd64", eI8}, {"386", eI8}, {"arm64", eU8}, {"ppc64le", eU8}, {"s390x", eU8}, {"riscv64", eU8}, {"loong64", eI8}} {
		if got := charElem(c.arch); got != c.want {
			t.Errorf("charElem(%s) = %d, want %d", c.arch, got, c.want)
		}
	}
}

// TestCharArithmetic: MPI_CHAR and MPI_CHARACTER wrap as 8-bit integers do, signed
// or not as C's char is (MPICH's results, measured with MPI_Reduce_local).
func TestCharArithmetic(t *testing.T) {
	signed := charElem(runtime.GOARCH) == eI8
	tChr := datatype.Predefined(0x4c000101)
	tCharacter := datatype.Predefined(0x4c00011a)
	for _, c := range []struct {
		name   string
		k      Kind
		ty     *datatype.Type
		in, io uint8
		want   uint8
		signed bool // whether want holds only where char is signed
	}{
		{"char sum wraps", Sum, tChr, 100, 100, 200, false},
		{"char prod wraps", Prod, tChr, 16, 17, 16, false},
		{"char max", Max, tChr, 0xff, 1, 1, true}, // -1 < 1
		{"char min", Min, tChr, 0xff, 1, 0xff, true},
		{"char land", Land, tChr, 2, 0, 0, false},
		{"char lor", Lor, tChr, 2, 0, 1, false},
		{"char lxor", Lxor, tChr, 2, 3, 0, false},
		{"char band", Band, tChr, 0x0f, 0x3c, 0x0c, false},
		{"char bor", Bor, tChr, 0x0f, 0x30, 0x3f, false},
		{"char bxor", Bxor, tChr, 0xff, 0x0f, 0xf0, false},
		{"character max is signed", Max, tCharacter, 200, 100, 100, false},
		{"character sum", Sum, tCharacter, 200, 100, 44, false},
	} {
		if c.signed && !signed {
			continue
		}
		in, io := c.in, c.io
		if err := Apply(Predefined(c.k), unsafe.Pointer(&in), unsafe.Pointer(&io), 1, c.ty); err != nil {
			t.Errorf("%s: %v", c.name, err)
		} else if io != c.want {
			t.Errorf("%s: %d op %d = %d, want %d", c.name, c.in, c.io, io, c.want)
		}
	}
	if !signed { // unsigned char: 0xff is 255
		in, io := uint8(0xff), uint8(1)
		if err := Apply(Predefined(Max), unsafe.Pointer(&in), unsafe.Pointer(&io), 1, tChr); err != nil || io != 0xff {
			t.Errorf("unsigned char max: %d, %v", io, err)
		}
	}
}
