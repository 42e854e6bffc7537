package transport

import (
	"slices"
	"testing"
)

type testFabric struct {
	name  string
	local bool
}

func (f testFabric) Name() string                       { return f.name }
func (f testFabric) Local() bool                        { return f.local }
func (f testFabric) Open(*Setup, int) (Endpoint, error) { return nil, nil }

// Node-local fabrics come first: they serve the peers they reach before a global one.
func TestFabricsLocalFirst(t *testing.T) {
	for _, f := range []testFabric{{"b-global", false}, {"z-local", true}, {"a-global", false}} {
		Register(f)
	}
	var names []string
	for _, f := range Fabrics() {
		names = append(names, f.Name())
	}
	if want := []string{"z-local", "a-global", "b-global"}; !slices.Equal(names, want) {
		t.Errorf("Fabrics() = %v, want %v", names, want)
	}
}
