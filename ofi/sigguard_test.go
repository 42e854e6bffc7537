//go:build cgo && !mpix_noofi

package ofi

import (
	"syscall"
	"testing"
)

// The guard puts back a handler that provider code (any shared object but libmpix
// and the program) installed between save and restore, and keeps one that the
// program installed meanwhile (another thread's, Go's).
func TestSigGuard(t *testing.T) {
	const sig = int(syscall.SIGUSR2)
	orig := getSigaction(sig)
	t.Cleanup(func() { setSigaction(sig, &orig) })

	var during uintptr
	var err error
	guardSignals(func() {
		err = installForeignHandler(sig)
		a := getSigaction(sig)
		during = a.handler()
	})
	if err != nil {
		t.Skip(err)
	}
	if during == orig.handler() {
		t.Fatalf("the foreign handler was not installed (handler %#x)", during)
	}
	if after := getSigaction(sig); after.handler() != orig.handler() || after.sa_flags != orig.sa_flags {
		t.Fatalf("after the guard the handler is %#x (flags %#x), want %#x (flags %#x) back",
			after.handler(), after.sa_flags, orig.handler(), orig.sa_flags)
	}

	guardSignals(func() {
		if err := installOwnHandler(sig); err != nil {
			t.Error(err)
		}
		a := getSigaction(sig)
		during = a.handler()
	})
	if after := getSigaction(sig); after.handler() != during || during == orig.handler() {
		t.Fatalf("the program's handler %#x did not stay (now %#x)", during, after.handler())
	}

	// The guard's lock is released: a second region after the first does not block.
	guardSignals(func() {})
}
