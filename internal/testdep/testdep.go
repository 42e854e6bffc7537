// Package testdep is for tests that need something outside the repository (MPICH,
// libfabric): where it is missing they skip, except in CI.
package testdep

import (
	"os"
	"testing"
)

// Skip skips a test whose dependency is missing on this machine, or fails it where
// MPIX_NO_SKIP=1: CI, where `make test` installed every dependency
// (scripts/install-deps.sh), so a skip there would hide a broken setup.
func Skip(tb testing.TB, format string, args ...any) {
	tb.Helper()
	if os.Getenv("MPIX_NO_SKIP") == "1" {
		tb.Fatalf("MPIX_NO_SKIP=1 forbids skipping: "+format, args...)
	}
	tb.Skipf(format, args...)
}
