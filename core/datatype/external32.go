package datatype

import (
	"encoding/binary"
	"unsafe"
)

// external32 (MPI-4.1 §5.5): every basic element big-endian, in the sizes of the
// standard's table (MPI_LONG and MPI_UNSIGNED_LONG 4 bytes, MPI_WCHAR 2,
// MPI_LONG_DOUBLE 16 as IEEE binary128), packed without gaps.

// External32 is the one data representation MPI_Pack_external knows.
const External32 = "external32"

// ExternalPackedSize is the number of bytes count elements of t take in external32.
func ExternalPackedSize(count int64, t *Type) (int64, error) {
	var a arith
	n := a.mul(count, t.extSize)
	if a.overflow {
		return 0, errTooLarge
	}
	return n, nil
}

// PackExternal converts count elements of t at buf to external32 in dst, which must
// hold ExternalPackedSize(count, t) bytes, and returns the number of bytes written.
// Integers too large for a narrower external32 type (MPI_LONG) are truncated, as MPICH
// does.
func PackExternal(dst []byte, buf unsafe.Pointer, count int64, t *Type) int {
	w := extWalker{stream: dst, buf: buf}
	for i := int64(0); i < count; i++ {
		w.walk(t, i*t.Extent())
	}
	return w.pos
}

// UnpackExternal converts count elements of t from external32 in src to native form at
// buf and returns the number of bytes read.
func UnpackExternal(src []byte, buf unsafe.Pointer, count int64, t *Type) int {
	w := extWalker{stream: src, buf: buf, unpack: true}
	for i := int64(0); i < count; i++ {
		w.walk(t, i*t.Extent())
	}
	return w.pos
}

type extWalker struct {
	stream []byte
	pos    int
	buf    unsafe.Pointer
	unpack bool
}

// walk converts the basic elements of one element of t at displacement base, in
// type-map order.
func (w *extWalker) walk(t *Type, base int64) {
	if t.size == 0 {
		return
	}
	if t.kind == kindBasic {
		w.convert(t.basic, base)
		return
	}
	for r := int64(0); r < t.reps; r++ {
		for _, b := range t.blocks {
			c := b.child
			ext := c.Extent()
			for j := int64(0); j < b.n; j++ {
				w.walk(c, base+r*t.stride+b.disp+j*ext)
			}
		}
	}
}

func (w *extWalker) convert(b *basic, disp int64) {
	mem := unsafe.Slice((*byte)(unsafe.Add(w.buf, disp)), b.size)
	ext := w.stream[w.pos : w.pos+int(b.ext)]
	w.pos += int(b.ext)
	switch b.conv {
	case convCopy:
		w.copy(mem, ext)
	case convInt, convUint:
		if w.unpack {
			v := uint64(0)
			for _, x := range ext {
				v = v<<8 | uint64(x)
			}
			if b.conv == convInt && len(ext) < 8 && ext[0]&0x80 != 0 {
				v |= ^uint64(0) << (8 * len(ext)) // sign-extend
			}
			for i := range mem {
				mem[i] = byte(v >> (8 * i))
			}
		} else {
			v := uint64(0)
			for i := len(mem) - 1; i >= 0; i-- {
				v = v<<8 | uint64(mem[i])
			}
			for i := range ext {
				ext[len(ext)-1-i] = byte(v >> (8 * i))
			}
		}
	case convFloat:
		w.swap(mem, ext)
	case convComplex:
		h := len(mem) / 2
		w.swap(mem[:h], ext[:h])
		w.swap(mem[h:], ext[h:])
	case convLongDouble:
		w.longDouble(mem, ext)
	case convComplexLD:
		w.longDouble(mem[:16], ext[:16])
		w.longDouble(mem[16:], ext[16:])
	}
}

func (w *extWalker) copy(mem, ext []byte) {
	if w.unpack {
		copy(mem, ext)
	} else {
		copy(ext, mem)
	}
}

// swap moves a little-endian value between memory and its big-endian form.
func (w *extWalker) swap(mem, ext []byte) {
	n := len(mem)
	if w.unpack {
		for i := range mem {
			mem[i] = ext[n-1-i]
		}
	} else {
		for i := range mem {
			ext[n-1-i] = mem[i]
		}
	}
}

// longDouble converts between the x86 80-bit extended format (64-bit significand
// with an explicit integer bit, 15-bit exponent, sign; 16 bytes with padding) and
// IEEE binary128 (same exponent bias, 112-bit fraction). Unpacking truncates the
// fraction to 63 bits.
func (w *extWalker) longDouble(mem, ext []byte) {
	if w.unpack {
		hi := binary.BigEndian.Uint64(ext[:8])
		lo := binary.BigEndian.Uint64(ext[8:])
		se := uint16(hi >> 48) // sign and exponent
		frac := (hi&(1<<48-1))<<15 | lo>>49
		if se&0x7fff != 0 {
			frac |= 1 << 63 // the explicit integer bit of normal numbers, infinities, NaNs
		}
		if se&0x7fff == 0x7fff && frac<<1 == 0 && (hi&(1<<48-1) != 0 || lo != 0) {
			frac |= 1 << 62 // a NaN whose payload did not survive stays a NaN
		}
		binary.LittleEndian.PutUint64(mem[:8], frac)
		binary.LittleEndian.PutUint16(mem[8:10], se)
		clear(mem[10:])
		return
	}
	m := binary.LittleEndian.Uint64(mem[:8]) & (1<<63 - 1)
	se := uint64(binary.LittleEndian.Uint16(mem[8:10]))
	binary.BigEndian.PutUint64(ext[:8], se<<48|m>>15)
	binary.BigEndian.PutUint64(ext[8:], m<<49)
}
