// Package shmfile maps the files under /dev/shm through which a process shares memory
// with its node peers: one process creates a file, the others open and map it. Window
// memory (package rma) and partitioned communication's landing pages (package part)
// use it; what each file is for, and who removes it when, is theirs.
package shmfile

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// PageSize is the granularity of the mappings.
const PageSize = 4096

// Size is n rounded up to whole pages, at least one.
func Size(n int64) int64 { return max((n+PageSize-1)&^(PageSize-1), PageSize) }

// Create makes the file at path (it must not exist) with Size(n) zeroed bytes and maps
// it; what names the memory in errors.
func Create(path string, n int64, what string) ([]byte, error) {
	n = Size(n)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("creating %s %s: %v", what, path, err)
	}
	defer f.Close()
	if err := unix.Fallocate(int(f.Fd()), 0, 0, n); err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("allocating %d bytes of %s in %s: %v", n, what, path, err)
	}
	mem, err := unix.Mmap(int(f.Fd()), 0, int(n), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("mapping %s %s: %v", what, path, err)
	}
	return mem, nil
}

// Open maps a peer's file at path, which must hold at least n bytes.
func Open(path string, n int64, what string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("opening a peer's %s %s: %v", what, path, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Size() < n {
		return nil, fmt.Errorf("a peer's %s %s is smaller than announced (%d bytes)", what, path, n)
	}
	mem, err := unix.Mmap(int(f.Fd()), 0, int(Size(n)), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mapping a peer's %s %s: %v", what, path, err)
	}
	return mem, nil
}
