package core

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFileTableNull(t *testing.T) {
	var tab FileTable
	h, ok := tab.Fortran(0)
	require.True(t, ok)
	require.Equal(t, int32(0), h, "MPI_File_c2f(MPI_FILE_NULL)")
	f, ok := tab.File(0)
	require.True(t, ok)
	require.Equal(t, uintptr(0), f, "MPI_File_f2c(0)")
	require.Panics(t, func() { tab.Register(0) })
}

func TestFileTableRoundTripAndReuse(t *testing.T) {
	var tab FileTable
	a, b := tab.Register(0x1000), tab.Register(0x2000)
	require.Equal(t, int32(1), a)
	require.Equal(t, int32(2), b)
	require.Equal(t, a, tab.Register(0x1000), "registering an open file again keeps its handle")
	for _, c := range []struct {
		f uintptr
		h int32
	}{{0x1000, a}, {0x2000, b}} {
		h, ok := tab.Fortran(c.f)
		require.True(t, ok)
		require.Equal(t, c.h, h)
		f, ok := tab.File(c.h)
		require.True(t, ok)
		require.Equal(t, c.f, f)
	}

	tab.Unregister(0x1000)
	_, ok := tab.Fortran(0x1000)
	require.False(t, ok, "a closed file has no Fortran handle")
	_, ok = tab.File(a)
	require.False(t, ok, "a closed file's handle names no file")
	tab.Unregister(0x1000) // twice: nothing to do
	require.Equal(t, a, tab.Register(0x3000), "the freed slot is reused")
	require.Equal(t, int32(3), tab.Register(0x4000))
	f, ok := tab.File(a)
	require.True(t, ok)
	require.Equal(t, uintptr(0x3000), f)
}

func TestFileTableUnknown(t *testing.T) {
	var tab FileTable
	_, ok := tab.Fortran(0x1234)
	require.False(t, ok)
	for _, h := range []int32{-1, 1, 7} {
		_, ok := tab.File(h)
		require.False(t, ok, "File(%d) on an empty table", h)
	}
	tab.Register(0x10)
	_, ok = tab.File(2)
	require.False(t, ok)
}

func TestFileTableConcurrent(t *testing.T) {
	var tab FileTable
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				f := uintptr(g*1_000_000 + i*16 + 16)
				h := tab.Register(f)
				got, ok := tab.File(h)
				if !ok || got != f { // assert, not require: this is not the test's goroutine
					assert.Fail(t, "File(Register(f)) != f", "%#x: %#x %v", f, got, ok)
					return
				}
				tab.Unregister(f)
			}
		}(g)
	}
	wg.Wait()
	require.LessOrEqual(t, len(tab.files), 9, "handles of closed files are reused")
}
