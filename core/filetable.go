package core

import "sync"

// FileTable gives open files their Fortran handles. MPI_File is a C pointer (MPICH's
// struct ADIOI_FileD *), not an int handle, so unlike the other kinds it cannot be its
// own Fortran INTEGER: the MPI-IO layer registers each file it opens here and
// unregisters it when the file is closed, and MPI_File_c2f and MPI_File_f2c translate
// through the table. Index 0 is MPI_FILE_NULL, a file is any nonzero address, and the
// index of a closed file is given to the next file opened.
type FileTable struct {
	mu    sync.Mutex
	files []uintptr         // Fortran handle -> file; 0 in a free slot (and at index 0)
	index map[uintptr]int32 // file -> Fortran handle
	free  []int32           // free slots, reused last freed first
}

// Files is the process's table, shared by every MPI-IO call.
var Files FileTable

// Register gives the open file f a Fortran handle, or returns the one it has.
func (t *FileTable) Register(f uintptr) int32 {
	if f == 0 {
		panic("core: FileTable.Register of MPI_FILE_NULL")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if h, ok := t.index[f]; ok {
		return h
	}
	if t.index == nil {
		t.index = map[uintptr]int32{}
		t.files = []uintptr{0}
	}
	var h int32
	if n := len(t.free); n > 0 {
		h, t.free = t.free[n-1], t.free[:n-1]
		t.files[h] = f
	} else {
		h = int32(len(t.files))
		t.files = append(t.files, f)
	}
	t.index[f] = h
	return h
}

// Unregister forgets a closed file; its Fortran handle becomes free.
func (t *FileTable) Unregister(f uintptr) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if h, ok := t.index[f]; ok {
		delete(t.index, f)
		t.files[h] = 0
		t.free = append(t.free, h)
	}
}

// Fortran returns the Fortran handle of f (0 for MPI_FILE_NULL); false when f is not
// an open file.
func (t *FileTable) Fortran(f uintptr) (int32, bool) {
	if f == 0 {
		return 0, true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	h, ok := t.index[f]
	return h, ok
}

// File returns the file whose Fortran handle is h (0 for MPI_FILE_NULL); false when no
// open file has that handle.
func (t *FileTable) File(h int32) (uintptr, bool) {
	if h == 0 {
		return 0, true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if h < 0 || int(h) >= len(t.files) || t.files[h] == 0 {
		return 0, false
	}
	return t.files[h], true
}
