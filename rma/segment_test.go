package rma

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestRoundPage(t *testing.T) {
	for _, tc := range []struct{ n, want int64 }{
		{0, 0}, {1, 4096}, {4095, 4096}, {4096, 4096}, {4097, 8192}, {stateSize, stateSize},
	} {
		if got := roundPage(tc.n); got != tc.want {
			t.Errorf("roundPage(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
}

func TestSegmentPath(t *testing.T) {
	p := segmentPath("p123", 0x48, 3)
	if p != "/dev/shm/mpix-p123-win48-3" {
		t.Errorf("segmentPath = %q", p)
	}
	if segmentPath("p123", 0x48, 3) == segmentPath("p123", 0x48, 4) || segmentPath("p1", 8, 0) == segmentPath("p1", 16, 0) {
		t.Error("distinct ranks or windows share a file")
	}
}

func TestSegmentSizes(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		n, want int64
	}{
		{0, 4096}, {1, 4096}, {4096, 4096}, {stateSize + 1, stateSize + 4096},
	} {
		for _, path := range []string{"", filepath.Join(dir, fmt.Sprintf("size%d", tc.n))} {
			s, err := createSegment(path, tc.n)
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(s.mem)) != tc.want {
				t.Errorf("createSegment(%q, %d): %d bytes mapped, want %d", path, tc.n, len(s.mem), tc.want)
			}
			if path != "" {
				fi, err := os.Stat(path)
				if err != nil || fi.Size() != tc.want {
					t.Errorf("file %s: %v, size %d, want %d", path, err, fi.Size(), tc.want)
				}
			}
			for i, b := range s.mem {
				if b != 0 {
					t.Fatalf("byte %d of a new segment is %d", i, b)
				}
			}
			s.close()
			if path != "" {
				if _, err := os.Stat(path); !os.IsNotExist(err) {
					t.Errorf("close left %s: %v", path, err)
				}
			}
		}
	}
}

func TestSegmentShared(t *testing.T) {
	path := filepath.Join(t.TempDir(), "win")
	const n = 3*4096 + 10
	a, err := createSegment(path, n)
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	if a.path != path {
		t.Errorf("segment path %q, want %q", a.path, path)
	}
	if _, err := createSegment(path, n); err == nil {
		t.Fatal("a second createSegment of the same file succeeded")
	}
	b, err := openSegment(path, n)
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	if b.path != "" {
		t.Errorf("an opened segment owns its file (%q)", b.path)
	}
	// Both mappings see each other's stores, at every page.
	for off := int64(0); off < n; off += 4093 {
		a.mem[off] = byte(off%251 + 1)
		if got := *(*byte)(b.at(off)); got != byte(off%251+1) {
			t.Fatalf("byte %d: the peer mapping reads %d", off, got)
		}
		b.mem[off] ^= 0xff
		if a.mem[off] != ^byte(off%251+1) {
			t.Fatalf("byte %d: the creator does not see the peer's store", off)
		}
	}
	// Unlinking keeps both mappings.
	a.unlink()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("unlink left %s", path)
	}
	if a.path != "" {
		t.Error("unlink kept the path")
	}
	a.mem[1] = 42
	if b.mem[1] != 42 {
		t.Error("the mappings separated after unlink")
	}
	// The peer's close does not remove a file it does not own.
	c, err := createSegment(path, 10)
	if err != nil {
		t.Fatal(err)
	}
	d, err := openSegment(path, 10)
	if err != nil {
		t.Fatal(err)
	}
	d.close()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("a peer's close removed the creator's file: %v", err)
	}
	c.close()
	c.close() // twice is harmless
	if c.mem != nil {
		t.Error("close kept the mapping")
	}
	var nilSeg *segment
	nilSeg.close()
}

func TestOpenSegmentFails(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, make([]byte, 4096), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
		n    int64
		ok   bool
	}{
		{"missing file", filepath.Join(dir, "none"), 10, false},
		{"smaller than announced", small, 4097, false},
		{"much smaller", small, 1 << 30, false},
		{"exactly its size", small, 4096, true},
		{"a size that rounds to it", small, 100, true},
		{"a directory", dir, 10, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := openSegment(tc.path, tc.n)
			if (err == nil) != tc.ok {
				t.Fatalf("openSegment(%d): %v, want ok %v", tc.n, err, tc.ok)
			}
			if s != nil {
				s.close()
				if _, err := os.Stat(tc.path); err != nil {
					t.Errorf("closing an opened segment removed the file: %v", err)
				}
			}
		})
	}
	// createSegment fails where it cannot make the file.
	if s, err := createSegment(filepath.Join(dir, "no", "such", "dir"), 10); err == nil {
		s.close()
		t.Error("createSegment in a missing directory succeeded")
	}
}
