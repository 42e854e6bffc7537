package vci

import "testing"

func TestLayoutMatchesC(t *testing.T) {
	if err := CheckLayout(); err != nil {
		t.Fatal(err)
	}
}
