//go:build !race

package vci

const raceEnabled = false
