package shmfile

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func TestSize(t *testing.T) {
	for _, tc := range []struct{ n, want int64 }{{0, 4096}, {1, 4096}, {4096, 4096}, {4097, 8192}} {
		if got := Size(tc.n); got != tc.want {
			t.Errorf("Size(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
}

func TestCreateOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seg")
	a, err := Create(path, 100, "test memory")
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(a)
	if _, err := Create(path, 100, "test memory"); err == nil {
		t.Error("Create made a file that exists")
	}
	b, err := Open(path, 100, "test memory")
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(b)
	a[99] = 42
	if b[99] != 42 {
		t.Error("the two mappings do not share memory")
	}
	if _, err := Open(path, 5000, "test memory"); err == nil {
		t.Error("Open took a file smaller than announced")
	}
	os.Remove(path)
	if _, err := Open(path, 100, "test memory"); err == nil {
		t.Error("Open took a removed file")
	}
}
