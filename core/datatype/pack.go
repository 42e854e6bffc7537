package datatype

import (
	"math"
	"unsafe"
)

// PackedSize is the number of bytes count elements of t take packed.
func PackedSize(count int64, t *Type) int64 { return count * t.size }

// Pack copies bytes [offset, offset+len(dst)) of the packed stream of count elements
// of t at buf into dst, and returns the number of bytes copied (less than len(dst) only
// at the end of the stream). Transports call it chunk by chunk: finding offset costs a
// binary search over one element's runs, and Pack never allocates (once t is
// committed).
func Pack(dst []byte, buf unsafe.Pointer, count int64, t *Type, offset int64) int {
	return transfer(dst, buf, count, t, offset, false)
}

// Unpack copies src into bytes [offset, offset+len(src)) of the packed stream of count
// elements of t at buf, and returns the number of bytes copied.
func Unpack(src []byte, buf unsafe.Pointer, count int64, t *Type, offset int64) int {
	return transfer(src, buf, count, t, offset, true)
}

func transfer(stream []byte, buf unsafe.Pointer, count int64, t *Type, offset int64, unpack bool) int {
	if t.size == 0 {
		return 0
	}
	total := count * t.size
	if count > math.MaxInt64/t.size {
		total = math.MaxInt64 // the caller cannot hold more anyway
	}
	if count <= 0 || offset < 0 || offset >= total || len(stream) == 0 {
		return 0
	}
	n := min(int64(len(stream)), total-offset)
	p := t.program()
	if p.contig {
		mem := unsafe.Slice((*byte)(unsafe.Add(buf, t.trueLB+offset)), n)
		if unpack {
			copy(mem, stream[:n])
		} else {
			copy(stream[:n], mem)
		}
		return int(n)
	}
	// Find the element, the unit in it, and the run in the unit.
	elem, r := offset/t.size, offset%t.size
	rep, u := r/p.unit, r%p.unit
	lo, hi := 0, len(p.runs)-1 // the last run i with cum[i] <= u
	for lo < hi {
		mid := int(uint(lo+hi+1) >> 1)
		if p.cum[mid] <= u {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	i, within := lo, u-p.cum[lo]
	ext := t.Extent()
	base := elem*ext + rep*p.stride
	var done int64
	for done < n {
		x := p.runs[i]
		k := min(x.len-within, n-done)
		at := unsafe.Add(buf, base+x.off+within)
		switch {
		case k == 8: // small runs are common (a vector of doubles): skip memmove
			if unpack {
				*(*[8]byte)(at) = [8]byte(stream[done : done+8])
			} else {
				*(*[8]byte)(stream[done : done+8]) = *(*[8]byte)(at)
			}
		case k == 4:
			if unpack {
				*(*[4]byte)(at) = [4]byte(stream[done : done+4])
			} else {
				*(*[4]byte)(stream[done : done+4]) = *(*[4]byte)(at)
			}
		case unpack:
			copy(unsafe.Slice((*byte)(at), k), stream[done:done+k])
		default:
			copy(stream[done:done+k], unsafe.Slice((*byte)(at), k))
		}
		done += k
		within = 0
		if i++; i == len(p.runs) {
			i = 0
			if rep++; rep == p.reps {
				rep = 0
				elem++
			}
			base = elem*ext + rep*p.stride
		}
	}
	return int(n)
}

// Runs calls fn with the contiguous byte runs that count elements of t occupy, in
// type-map order, as offsets from the buffer's address and lengths, adjacent runs
// merged; it stops early when fn returns false. One-sided communication describes a
// target's memory this way, as plain numbers another process can check and apply.
func Runs(count int64, t *Type, fn func(off, n int64) bool) {
	if t.size == 0 || count <= 0 {
		return
	}
	p := t.program()
	if p.contig {
		fn(t.trueLB, count*t.size)
		return
	}
	ext := t.Extent()
	var curOff, curLen int64
	for e := int64(0); e < count; e++ {
		for rep := int64(0); rep < p.reps; rep++ {
			base := e*ext + rep*p.stride
			for _, x := range p.runs {
				off := base + x.off
				if curLen > 0 && curOff+curLen == off {
					curLen += x.len
					continue
				}
				if curLen > 0 && !fn(curOff, curLen) {
					return
				}
				curOff, curLen = off, x.len
			}
		}
	}
	if curLen > 0 {
		fn(curOff, curLen)
	}
}
