//go:build cgo

package pmix

import (
	"os"
	"strings"
	"testing"
)

// TestConnectWithoutServer: outside a PMIx launcher Connect fails with
// PMIx_Init's error, it does not crash or hang.
func TestConnectWithoutServer(t *testing.T) {
	if testing.Short() {
		t.Skip("loads libpmix")
	}
	for _, v := range []string{"PMIX_NAMESPACE", "PMIX_RANK", "PMIX_SERVER_URI2", "PMIX_SERVER_URI3",
		"PMIX_SERVER_URI4", "PMIX_SERVER_URI21", "PMIX_SERVER_URI41", "PMIX_SERVER_TMPDIR"} {
		t.Setenv(v, "") // restores it after the test
		os.Unsetenv(v)  // libpmix takes an empty URI for a bad one
	}
	c, err := Connect()
	if err == nil {
		t.Fatalf("Connect without a PMIx server succeeded: rank %d of %d", c.Rank(), c.Size())
	}
	if msg := err.Error(); !strings.Contains(msg, "PMIx_Init") && !strings.Contains(msg, "libpmix.so.2") {
		t.Errorf("error %q names neither PMIx_Init nor libpmix.so.2", msg)
	}
}
