//go:build !cgo || mpix_noofi

package ofi

import (
	"errors"
	"testing"
)

func TestStubOpenFails(t *testing.T) {
	if _, err := Open(Config{Rank: 0, Size: 1}); !errors.Is(err, ErrNoProvider) {
		t.Fatalf("Open = %v, want ErrNoProvider", err)
	}
}
