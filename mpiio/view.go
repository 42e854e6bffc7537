package mpiio

import (
	"sort"

	"mpix/core"
	"mpix/core/datatype"
)

// View is a file view (MPI-4.1 §14.3): the data a process sees starts disp bytes into
// the file and is the file's bytes that the filetype, tiled end to end from there,
// selects; offsets and file pointers count etypes of that data stream.
type View struct {
	Disp     int64
	Etype    *datatype.Type
	Filetype *datatype.Type
	Datarep  string

	layout
}

// layout is a filetype flattened: the byte runs of one tile (offsets from the tile's
// start, increasing), the data bytes before each run, and the tile's extent.
type layout struct {
	esize  int64   // etype size
	runs   []run   // one tile's data
	before []int64 // data bytes in runs[:i]
	tsize  int64   // data bytes in a tile
	extent int64   // distance between tiles
}

type run struct{ off, n int64 }

// flatten lays out a view of filetype ft (etype size esize). A filetype's
// displacements must be non-negative and increasing (MPI-4.1 §14.3): its runs, in
// type-map order, may not go backwards or overlap.
func flatten(esize int64, ft *datatype.Type) (layout, error) {
	l := layout{esize: esize, extent: ft.Extent(), tsize: ft.Size()}
	var bad error
	datatype.Runs(1, ft, func(off, n int64) bool {
		if off < 0 {
			bad = core.Errorf(core.ErrType, "the filetype has a negative displacement (%d)", off)
			return false
		}
		if k := len(l.runs); k > 0 && off < l.runs[k-1].off+l.runs[k-1].n {
			bad = core.Errorf(core.ErrType, "the filetype's displacements must increase (byte %d comes after byte %d)", off, l.runs[k-1].off+l.runs[k-1].n-1)
			return false
		}
		l.before = append(l.before, l.size())
		l.runs = append(l.runs, run{off, n})
		return true
	})
	if bad != nil {
		return layout{}, bad
	}
	if l.tsize > 0 && l.extent <= 0 {
		return layout{}, core.Errorf(core.ErrType, "the filetype's extent must be positive (%d)", l.extent)
	}
	if k := len(l.runs); k > 0 && l.runs[k-1].off+l.runs[k-1].n > l.extent+l.runs[0].off {
		// Tiles would overlap: the next tile's data starts before this one's ends.
		return layout{}, core.Errorf(core.ErrType, "the filetype's data spans bytes %d to %d, more than its extent (%d): its tiles would overlap",
			l.runs[0].off, l.runs[k-1].off+l.runs[k-1].n, l.extent)
	}
	return l, nil
}

func (l *layout) size() int64 {
	if len(l.runs) == 0 {
		return 0
	}
	k := len(l.runs) - 1
	return l.before[k] + l.runs[k].n
}

// fileOffset is the file byte (from the view's displacement) that holds data byte p.
func (l *layout) fileOffset(p int64) int64 {
	tile, within := p/l.tsize, p%l.tsize
	i := sort.Search(len(l.runs), func(i int) bool { return l.before[i] > within }) - 1
	return tile*l.extent + l.runs[i].off + within - l.before[i]
}

// Segments calls fn with the file byte ranges (absolute offsets) that hold data bytes
// [p, p+n) of the view, in order; each segment's data follows the previous one's in
// the data stream. It stops when fn returns false.
func (v *View) Segments(p, n int64, fn func(off, n int64) bool) {
	l := &v.layout
	if n <= 0 || l.tsize == 0 {
		return
	}
	if len(l.runs) == 1 && l.runs[0].off == 0 && l.runs[0].n == l.extent {
		// A filetype without holes (MPI_BYTE, MPI_INT...): the data is the file.
		fn(v.Disp+p, n)
		return
	}
	tile, within := p/l.tsize, p%l.tsize
	i := sort.Search(len(l.runs), func(i int) bool { return l.before[i] > within }) - 1
	skip := within - l.before[i]
	var curOff, curLen int64 // adjacent runs merge
	for n > 0 {
		r := l.runs[i]
		take := min(r.n-skip, n)
		off := v.Disp + tile*l.extent + r.off + skip
		if curLen > 0 && curOff+curLen == off {
			curLen += take
		} else {
			if curLen > 0 && !fn(curOff, curLen) {
				return
			}
			curOff, curLen = off, take
		}
		n -= take
		skip = 0
		if i++; i == len(l.runs) {
			i, tile = 0, tile+1
		}
	}
	if curLen > 0 {
		fn(curOff, curLen)
	}
}

// ByteOffset is MPI_File_get_byte_offset: the absolute file byte of etype offset.
func (v *View) ByteOffset(offset int64) int64 {
	if v.tsize == 0 {
		return v.Disp
	}
	return v.Disp + v.fileOffset(offset*v.esize)
}

// DataBelow is the number of data bytes of the view that lie before absolute file
// byte end (the data a file of size end holds through this view).
func (v *View) DataBelow(end int64) int64 {
	l := &v.layout
	if l.tsize == 0 {
		return 0
	}
	// Each tile's data lies within one extent from its first run's offset.
	rel := end - v.Disp - l.runs[0].off
	if rel <= 0 {
		return 0
	}
	tiles, within := rel/l.extent, rel%l.extent+l.runs[0].off
	d := tiles * l.tsize
	for i, r := range l.runs {
		if within <= r.off {
			break
		}
		d = tiles*l.tsize + l.before[i] + min(r.n, within-r.off)
	}
	return d
}

// NewView checks and lays out a view. The etype and filetype must be committed (or
// predefined), the filetype's type map a whole number of etypes.
func NewView(disp int64, etype, filetype *datatype.Type, datarep string) (*View, error) {
	if disp < 0 {
		return nil, core.Errorf(core.ErrArg, "the displacement must not be negative (%d)", disp)
	}
	for _, t := range []*datatype.Type{etype, filetype} {
		if !t.Committed() {
			return nil, core.Errorf(core.ErrType, "the etype and the filetype must be committed")
		}
	}
	if etype.Size() == 0 {
		return nil, core.Errorf(core.ErrType, "the etype must not be empty")
	}
	if filetype.Size()%etype.Size() != 0 {
		return nil, core.Errorf(core.ErrType, "the filetype (%d bytes of data) is not a whole number of etypes (%d bytes)", filetype.Size(), etype.Size())
	}
	switch datarep {
	case "native", "internal":
	case datatype.External32:
		// The file holds the data big-endian. mpix supports the types whose external32
		// size is their native size (the fixed-size integers, int, float, double,
		// char...), so the view's layout is the same in both representations; others
		// (MPI_LONG, MPI_LONG_DOUBLE...) would change the file's layout.
		for _, t := range []*datatype.Type{etype, filetype} {
			if err := sameExternalSize(t); err != nil {
				return nil, err
			}
		}
	default:
		return nil, core.Errorf(core.ErrUnsupportedDatarep, "unknown data representation %q", datarep)
	}
	l, err := flatten(etype.Size(), filetype)
	if err != nil {
		return nil, err
	}
	if l.tsize == 0 {
		return nil, core.Errorf(core.ErrType, "the filetype selects no data")
	}
	return &View{Disp: disp, Etype: etype, Filetype: filetype, Datarep: datarep, layout: l}, nil
}

// sameExternalSize refuses, for external32, a type whose external32 size differs from
// its native size.
func sameExternalSize(t *datatype.Type) error {
	if t.ExternalSize() != t.Size() {
		return core.Errorf(core.ErrUnsupportedDatarep,
			"mpix: external32 files support only types whose external32 size is their native size (this one: %d bytes native, %d in external32)",
			t.Size(), t.ExternalSize())
	}
	return nil
}
