//go:build race

package op

// The race detector makes sync.Pool drop items at random, so pooled paths allocate.
const raceEnabled = true
