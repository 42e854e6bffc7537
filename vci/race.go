//go:build race

package vci

// raceEnabled is set under the race detector, which sees only memory of the Go heap:
// the VCI lock's word lies outside it (shared.go), so lock and unlock also touch a
// Go word to show the detector the order they create.
const raceEnabled = true
