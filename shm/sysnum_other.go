//go:build !(linux && (amd64 || arm64))

package shm

// sysProcessVMReadv is unknown here: ReadFrom falls back to ErrNoSingleCopy (the
// invalid number makes the kernel answer ENOSYS).
const sysProcessVMReadv = ^uintptr(0)

const sysProcessVMWritev = ^uintptr(0)
