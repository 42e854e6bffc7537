package pvar

import (
	"runtime/metrics"

	"mpix/core/cvar"
)

// GoRuntime holds variables about the Go runtime under the library: its garbage
// collector can pause communication, so tools want to see it next to MPI's own.
var GoRuntime = cvar.NewCategory("mpix_go_runtime", "the Go runtime inside the library: garbage collection and heap", cvar.Root)

// readMetric returns a Read function for one runtime/metrics sample (a few hundred
// nanoseconds, no stop-the-world).
func readMetric(name string) func(dst []uint64) {
	return func(dst []uint64) {
		s := []metrics.Sample{{Name: name}}
		metrics.Read(s)
		var v uint64
		if s[0].Value.Kind() == metrics.KindUint64 {
			v = s[0].Value.Uint64()
		}
		for i := range dst {
			dst[i] = v
		}
	}
}

// The library's own variables.
var (
	GCCycles = Register(Spec{
		Name:      "mpix_gc_cycles",
		Desc:      "garbage collections the Go runtime completed in this process",
		Class:     Counter,
		Verbosity: cvar.TunerBasic,
		Category:  GoRuntime,
		Read:      readMetric("/gc/cycles/total:gc-cycles"),
	})
	HeapBytes = Register(Spec{
		Name:       "mpix_heap_bytes",
		Desc:       "bytes of Go heap objects in this process, live or not yet swept",
		Class:      Size,
		Verbosity:  cvar.TunerDetail,
		Category:   GoRuntime,
		Continuous: true,
		Readonly:   true,
		Read:       readMetric("/memory/classes/heap/objects:bytes"),
	})
)
