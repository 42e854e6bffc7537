package ofi

import (
	"os"
	"testing"
)

// skipDep skips a test whose dependency (MPICH, libfabric) is missing on this machine,
// or fails it where MPIX_NO_SKIP=1: CI, where `make test` installed every dependency
// (scripts/install-deps.sh), so a skip there would hide a broken setup.
func skipDep(tb testing.TB, format string, args ...any) {
	tb.Helper()
	if os.Getenv("MPIX_NO_SKIP") == "1" {
		tb.Fatalf("MPIX_NO_SKIP=1 forbids skipping: "+format, args...)
	}
	tb.Skipf(format, args...)
}
