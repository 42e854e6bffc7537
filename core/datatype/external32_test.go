package datatype

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"testing"
)

// x87 builds the 16-byte memory image of an x86 long double.
func x87(sign bool, exp uint16, mant uint64) []byte {
	b := make([]byte, 16)
	binary.LittleEndian.PutUint64(b, mant)
	if sign {
		exp |= 0x8000
	}
	binary.LittleEndian.PutUint16(b[8:], exp)
	return b
}

func le64(v uint64) []byte { b := make([]byte, 8); binary.LittleEndian.PutUint64(b, v); return b }
func le32(v uint32) []byte { b := make([]byte, 4); binary.LittleEndian.PutUint32(b, v); return b }
func le16(v uint16) []byte { b := make([]byte, 2); binary.LittleEndian.PutUint16(b, v); return b }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func unhex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// Known external32 images (MPI-4.1 §5.5: big-endian IEEE and two's complement, with
// the standard's sizes).
func TestExternal32Values(t *testing.T) {
	pad := make([]byte, 4)
	tests := []struct {
		name   string
		h      int32
		native []byte
		ext    string
		back   []byte // native form after the round trip, if not native
	}{
		{"int", hInt, le32(0x01020304), "01020304", nil},
		{"negative int", hInt, le32(uint32(0xfffffffe)), "fffffffe", nil},
		{"long narrows", hLong, le64(0x0102030405060708), "05060708", le64(0x05060708)},
		{"negative long", hLong, le64(uint64(0xfffffffffffffffe)), "fffffffe", nil},
		{"unsigned long", hUnsignedLong, le64(0xfffffffe), "fffffffe", nil},
		{"long long", hLongLongInt, le64(0x0102030405060708), "0102030405060708", nil},
		{"wchar", hWchar, le32(0x263a), "263a", nil},
		{"short", hShort, le16(0xff01), "ff01", nil},
		{"char", hChar, []byte{'x'}, "78", nil},
		{"bool", hCBool, []byte{1}, "01", nil},
		{"float", hFloat, le32(math.Float32bits(1.5)), "3fc00000", nil},
		{"double", hDouble, le64(math.Float64bits(1.5)), "3ff8000000000000", nil},
		{"float complex", hCFloatComplex, cat(le32(math.Float32bits(1.5)), le32(math.Float32bits(-2))), "3fc00000c0000000", nil},
		{"double complex", hCDoubleComplex, cat(le64(math.Float64bits(1)), le64(math.Float64bits(-1))), "3ff0000000000000bff0000000000000", nil},
		{"long double 1.5", hLongDouble, x87(false, 0x3fff, 0xc000000000000000), "3fff8000000000000000000000000000", nil},
		{"long double -3", hLongDouble, x87(true, 0x4000, 0xc000000000000000), "c0008000000000000000000000000000", nil},
		{"long double 0", hLongDouble, x87(false, 0, 0), "00000000000000000000000000000000", nil},
		{"long double inf", hLongDouble, x87(true, 0x7fff, 0x8000000000000000), "ffff0000000000000000000000000000", nil},
		{"long double nan", hLongDouble, x87(false, 0x7fff, 0xc000000000000000), "7fff8000000000000000000000000000", nil},
		{"long double denormal", hLongDouble, x87(false, 0, 1), "00000000000000000002000000000000", nil},
		{"long double complex", hCLongDoubleComplex, cat(x87(false, 0x3fff, 0x8000000000000000), x87(true, 0x3fff, 0x8000000000000000)),
			"3fff0000000000000000000000000000bfff0000000000000000000000000000", nil},
		{"real16", hReal16, cat(le64(0), le64(0x3fff800000000000)), "3fff8000000000000000000000000000", nil},
		{"double int", hDoubleInt, cat(le64(math.Float64bits(1.5)), le32(7), pad), "3ff800000000000000000007", nil},
		{"short int", hShortInt, cat(le16(5), []byte{0, 0}, le32(9)), "000500000009", nil},
		{"long int", hLongInt, cat(le64(3), le32(4), pad), "0000000300000004", nil},
		{"long double int", hLongDoubleInt, cat(x87(false, 0x3fff, 0x8000000000000000), le32(2), make([]byte, 12)),
			"3fff000000000000000000000000000000000002", nil},
		{"2int", h2Int, cat(le32(1), le32(2)), "0000000100000002", nil},
		{"float16", hFloat16, le16(0x3c00), "3c00", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ty := Predefined(tc.h)
			want := unhex(tc.ext)
			if n, _ := ExternalPackedSize(1, ty); n != int64(len(want)) {
				t.Fatalf("external size %d, want %d", n, len(want))
			}
			out := make([]byte, len(want))
			if n := PackExternal(out, ptr(tc.native), 1, ty); n != len(want) || !bytes.Equal(out, want) {
				t.Fatalf("packed %x, want %x", out, want)
			}
			back := make([]byte, len(tc.native))
			if n := UnpackExternal(want, ptr(back), 1, ty); n != len(want) {
				t.Fatalf("unpack read %d bytes", n)
			}
			wantBack := tc.back
			if wantBack == nil {
				wantBack = tc.native
			}
			// Padding inside pair types is not part of the type map: compare the data only.
			m := mBasicOrPair(ty)
			for _, e := range m.tm {
				if !bytes.Equal(back[e.off:e.off+e.size], wantBack[e.off:e.off+e.size]) {
					t.Fatalf("round trip: %x, want %x", back, wantBack)
				}
			}
		})
	}
}

// mBasicOrPair models a predefined type from its layout (for the data offsets).
func mBasicOrPair(t *Type) *model {
	if t.kind == kindBasic {
		return mBasic(t)
	}
	var cs []copyAt
	for _, b := range t.blocks {
		cs = mRepeat(mBasic(b.child), b.n, b.disp, cs)
	}
	return place(cs)
}

// Every basic type survives a round trip through external32 with values that fit.
func TestExternal32RoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, s := range basicSpecs {
		ty := Predefined(s.h)
		if ty.Size() == 0 {
			continue
		}
		const count = 17
		native := make([]byte, count*ty.Size())
		for i := range native {
			native[i] = byte(r.IntN(256))
		}
		for i := 0; i < count; i++ {
			e := native[int64(i)*ty.Size() : int64(i+1)*ty.Size()]
			switch s.conv {
			case convInt, convUint:
				if s.ext < ty.Size() { // a value that fits the narrower external form
					sign := byte(0)
					if s.conv == convInt && e[s.ext-1]&0x80 != 0 {
						sign = 0xff
					}
					for j := s.ext; j < ty.Size(); j++ {
						e[j] = sign
					}
				}
			case convLongDouble, convComplexLD:
				for k := 0; k < len(e); k += 16 { // canonical: integer bit set, no padding
					e[k+7] |= 0x80
					clear(e[k+10 : k+16])
				}
			}
		}
		ext := make([]byte, count*ty.ExternalSize())
		PackExternal(ext, ptr(native), count, ty)
		back := make([]byte, len(native))
		UnpackExternal(ext, ptr(back), count, ty)
		if !bytes.Equal(back, native) {
			t.Errorf("%s: round trip differs\n got %x\nwant %x", ty.Name(), back, native)
		}
	}
}
