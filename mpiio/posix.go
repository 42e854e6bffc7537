package mpiio

import (
	"golang.org/x/sys/unix"
)

// posix is the driver for any file system with POSIX semantics: pread and pwrite,
// fcntl byte-range locks, posix_fallocate.
type posix struct{}

func (posix) Name() string { return "posix" }
func (posix) Caps() Caps   { return Caps{Locks: true, Preallocate: true} }

func (posix) Open(path string, a Access, perm uint32) (Handle, error) {
	flags := unix.O_CLOEXEC
	switch {
	case a.Read && a.Write:
		flags |= unix.O_RDWR
	case a.Write:
		flags |= unix.O_WRONLY
	default:
		flags |= unix.O_RDONLY
	}
	if a.Create {
		flags |= unix.O_CREAT
		if a.Exclusive {
			flags |= unix.O_EXCL
		}
	}
	for {
		fd, err := unix.Open(path, flags, perm)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
			unix.Close(fd)
			return nil, unix.EISDIR
		}
		return &posixFile{fd: fd}, nil
	}
}

func (posix) Delete(path string) error { return unix.Unlink(path) }

type posixFile struct{ fd int }

func (f *posixFile) ReadAt(p []byte, off int64) (int, error) {
	done := 0
	for done < len(p) {
		n, err := unix.Pread(f.fd, p[done:], off+int64(done))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return done, err
		}
		if n == 0 {
			break // end of file
		}
		done += n
	}
	return done, nil
}

func (f *posixFile) WriteAt(p []byte, off int64) (int, error) {
	done := 0
	for done < len(p) {
		n, err := unix.Pwrite(f.fd, p[done:], off+int64(done))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return done, err
		}
		done += n
	}
	return done, nil
}

func (f *posixFile) Size() (int64, error) {
	var st unix.Stat_t
	if err := unix.Fstat(f.fd, &st); err != nil {
		return 0, err
	}
	return st.Size, nil
}

func (f *posixFile) Truncate(size int64) error { return unix.Ftruncate(f.fd, size) }

func (f *posixFile) Preallocate(size int64) error {
	if size == 0 {
		return nil
	}
	// Mode 0 allocates and extends the size when needed, never shrinks it.
	err := unix.Fallocate(f.fd, 0, 0, size)
	if err == unix.EOPNOTSUPP || err == unix.ENOSYS {
		// A file system without fallocate: extend the size (sparse), as ROMIO does
		// when it cannot reserve blocks.
		cur, serr := f.Size()
		if serr != nil {
			return serr
		}
		if cur < size {
			return unix.Ftruncate(f.fd, size)
		}
		return nil
	}
	return err
}

func (f *posixFile) Sync() error { return unix.Fsync(f.fd) }

func (f *posixFile) Lock(off, n int64, exclusive bool) error {
	typ := int16(unix.F_RDLCK)
	if exclusive {
		typ = unix.F_WRLCK
	}
	lk := unix.Flock_t{Type: typ, Whence: 0, Start: off, Len: n}
	for {
		err := unix.FcntlFlock(uintptr(f.fd), unix.F_SETLKW, &lk)
		if err != unix.EINTR {
			return err
		}
	}
}

func (f *posixFile) Unlock(off, n int64) error {
	lk := unix.Flock_t{Type: unix.F_UNLCK, Whence: 0, Start: off, Len: n}
	return unix.FcntlFlock(uintptr(f.fd), unix.F_SETLK, &lk)
}

func (f *posixFile) Close() error { return unix.Close(f.fd) }
