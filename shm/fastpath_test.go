package shm

import (
	"strings"
	"testing"

	"mpix/vci"
)

// shm's and vci's mirrors of fastabi.h match; core's are checked where both are
// linked (capi's tests).
func TestFastLayoutMatchesC(t *testing.T) {
	if err := checkLayout(vci.Layout(), false); err != nil {
		t.Fatal(err)
	}
}

// A Go layout that disagrees with C, or a C fact with no Go value, is an error that
// names the fact: the library then runs without the fast path and says why.
func TestFastLayoutMismatchNamed(t *testing.T) {
	err := checkLayout(Layout{"mpix_lreq.buf": 1}, false)
	if err == nil || !strings.Contains(err.Error(), "mpix_lreq.buf") {
		t.Errorf("a wrong offset gave %v", err)
	}
	err = CheckLayout(nil)
	if err == nil || !strings.Contains(err.Error(), "no Go counterpart") {
		t.Errorf("missing Go values gave %v", err)
	}
}
