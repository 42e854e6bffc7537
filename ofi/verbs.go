//go:build cgo && !mpix_noofi

package ofi

/*
int mpix_verbs_devices(char *out, int n);
*/
import "C"

import (
	"errors"
	"strings"
	"unsafe"
)

// VerbsDevices lists the RDMA devices libibverbs finds on this machine (none is an
// empty list), or says why it cannot look: libibverbs is not installed.
func VerbsDevices() ([]string, error) {
	var buf [1024]C.char
	n := C.mpix_verbs_devices(&buf[0], C.int(len(buf)))
	text := C.GoString((*C.char)(unsafe.Pointer(&buf[0])))
	if n < 0 {
		return nil, errors.New(text)
	}
	return strings.Fields(text), nil
}
