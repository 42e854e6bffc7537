package shm

import "testing"

// shm's own mirrors of fastabi.h match; core's are checked where both are linked
// (capi's tests).
func TestFastLayoutMatchesC(t *testing.T) {
	if err := checkLayout(nil, false); err != nil {
		t.Fatal(err)
	}
}
