package shm

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"mpix/transport"
)

// fakeReadv replaces process_vm_readv for the duration of a test.
func fakeReadv(t *testing.T, f func(pid int, local []byte, remote uintptr) (int, syscall.Errno)) *int {
	t.Helper()
	calls := new(int)
	old := processVMReadv
	processVMReadv = func(pid int, local *syscall.Iovec, remote *remoteIovec) (int, syscall.Errno) {
		*calls++
		if uint64(local.Len) != remote.len {
			t.Errorf("local iovec %d bytes, remote %d", local.Len, remote.len)
		}
		return f(pid, unsafe.Slice(local.Base, local.Len), remote.base)
	}
	t.Cleanup(func() { processVMReadv = old })
	return calls
}

// TestReadFromRefusedInjected: EPERM and ENOSYS become ErrNoSingleCopy, and the
// refusal is remembered per peer, so later reads make no system call.
func TestReadFromRefusedInjected(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.EPERM, syscall.ENOSYS} {
		t.Run(errno.Error(), func(t *testing.T) {
			calls := fakeReadv(t, func(int, []byte, uintptr) (int, syscall.Errno) { return 0, errno })
			e := heapNode(t, 3, 64, 2)[0]
			dst := make([]byte, 100)
			for i := 0; i < 3; i++ {
				if err := e.ReadFrom(1, 0x1000, dst); !errors.Is(err, transport.ErrNoSingleCopy) {
					t.Fatalf("read %d: %v, want ErrNoSingleCopy", i, err)
				}
			}
			if *calls != 1 {
				t.Fatalf("%d system calls, want 1 (refusal not remembered)", *calls)
			}
			// Another peer is tried separately.
			e.ReadFrom(2, 0x1000, dst)
			if *calls != 2 {
				t.Fatalf("%d system calls after reading another peer, want 2", *calls)
			}
		})
	}
}

func TestReadFromNotLocal(t *testing.T) {
	calls := fakeReadv(t, func(int, []byte, uintptr) (int, syscall.Errno) { return 0, 0 })
	e := heapNode(t, 2, 64, 2)[0]
	if err := e.ReadFrom(5, 0x1000, make([]byte, 8)); !errors.Is(err, transport.ErrNoSingleCopy) {
		t.Fatalf("ReadFrom another node = %v, want ErrNoSingleCopy", err)
	}
	if *calls != 0 {
		t.Fatal("system call for a rank on another node")
	}
}

// TestReadFromPartial: short reads continue where they stopped, large reads are cut
// into chunks, EINTR retries, and other errors are errors (not ErrNoSingleCopy).
func TestReadFromPartial(t *testing.T) {
	src := make([]byte, 1<<20+77)
	fill(src, 1, 2, 3)
	const base = 0x7f0000001000
	for _, tc := range []struct {
		name      string
		chunk     int
		maxPer    int // most bytes the fake moves per call
		intr      bool
		fault     int // remote offset at which the fake faults; 0: none
		wantCalls int
		wantErr   string
	}{
		{"whole", 1 << 30, 1 << 30, false, 0, 1, ""},
		{"short reads", 1 << 30, 4000, false, 0, (len(src) + 3999) / 4000, ""},
		{"chunks", 1 << 16, 1 << 30, false, 0, (len(src) + 1<<16 - 1) >> 16, ""},
		{"eintr", 1 << 18, 1 << 30, true, 0, 2 * ((len(src) + 1<<18 - 1) >> 18), ""},
		{"fault", 1 << 30, 1 << 30, false, 5000, 2, "bad address"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := readChunk
			readChunk = tc.chunk
			defer func() { readChunk = old }()
			interrupted := false
			calls := fakeReadv(t, func(pid int, local []byte, remote uintptr) (int, syscall.Errno) {
				if tc.intr && !interrupted {
					interrupted = true
					return 0, syscall.EINTR
				}
				interrupted = false
				off := int(remote - base)
				n := min(len(local), tc.maxPer)
				if tc.fault > 0 {
					if off >= tc.fault {
						return 0, syscall.EFAULT
					}
					n = min(n, tc.fault-off)
				}
				return copy(local[:n], src[off:]), 0
			})
			e := heapNode(t, 2, 64, 2)[0]
			dst := make([]byte, len(src))
			err := e.ReadFrom(1, base, dst)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(dst, src) {
					t.Fatal("data differs")
				}
			} else {
				if err == nil || errors.Is(err, transport.ErrNoSingleCopy) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ReadFrom = %v, want an error containing %q", err, tc.wantErr)
				}
				if !bytes.Equal(dst[:tc.fault], src[:tc.fault]) {
					t.Fatal("data before the fault differs")
				}
			}
			if *calls != tc.wantCalls {
				t.Errorf("%d system calls, want %d", *calls, tc.wantCalls)
			}
		})
	}
}

// TestReadFromSelf reads this process's own memory through the real system call.
func TestReadFromSelf(t *testing.T) {
	e := heapNode(t, 2, 64, 2)[0] // both ranks have this process's pid
	src := make([]byte, 3<<20+5)
	fill(src, 0, 0, 1)
	dst := make([]byte, len(src)-10)
	err := e.ReadFrom(1, uintptr(unsafe.Pointer(&src[10])), dst)
	runtime.KeepAlive(src)
	if errors.Is(err, transport.ErrNoSingleCopy) {
		t.Skip("process_vm_readv refused here (ptrace restrictions or no kernel support)")
	}
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dst, src[10:]) {
		t.Fatal("data differs")
	}
	if err := e.ReadFrom(1, 8, make([]byte, 16)); err == nil || errors.Is(err, transport.ErrNoSingleCopy) {
		t.Fatalf("read of an unmapped address = %v, want EFAULT", err)
	}
	if err := e.ReadFrom(0, 0, nil); err != nil {
		t.Fatalf("empty read = %v", err)
	}
}

// TestWriteToSelf writes into this process's own memory through process_vm_writev.
func TestWriteToSelf(t *testing.T) {
	e := heapNode(t, 2, 64, 2)[0] // both ranks have this process's pid
	src := make([]byte, 1<<20+3)
	fill(src, 0, 0, 3)
	dst := make([]byte, len(src)+10)
	err := e.WriteTo(1, uintptr(unsafe.Pointer(&dst[10])), src)
	runtime.KeepAlive(dst)
	if errors.Is(err, transport.ErrNoSingleCopy) {
		t.Skip("process_vm_writev refused here (ptrace restrictions or no kernel support)")
	}
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dst[10:], src) || !bytes.Equal(dst[:10], make([]byte, 10)) {
		t.Fatal("data differs")
	}
	if err := e.WriteTo(1, 8, make([]byte, 16)); err == nil || errors.Is(err, transport.ErrNoSingleCopy) {
		t.Fatalf("write to an unmapped address = %v, want EFAULT", err)
	}
}
