//go:build cgo && !mpix_noofi

package ofi

import (
	"os"
	"strings"
	"testing"
)

// VerbsDevices answers with a list (empty on a machine without RDMA hardware) where
// libibverbs is installed, and otherwise says that it is not.
func TestVerbsDevices(t *testing.T) {
	devs, err := VerbsDevices()
	if err != nil {
		if !strings.Contains(err.Error(), "libibverbs") {
			t.Fatalf("VerbsDevices: %v: the error does not name libibverbs", err)
		}
		skipDep(t, "libibverbs is not installed: %v", err)
	}
	for _, d := range devs {
		if d == "" || strings.ContainsAny(d, " \t") {
			t.Errorf("device name %q", d)
		}
		// Each device libibverbs lists is one the kernel shows.
		if _, err := os.Stat("/sys/class/infiniband/" + d); err != nil {
			t.Errorf("device %s is not in /sys/class/infiniband: %v", d, err)
		}
	}
	t.Logf("verbs devices: %q", devs)
}
