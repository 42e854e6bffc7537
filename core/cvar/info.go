package cvar

import (
	"math"
	"sync"
)

// Info is where NewInfo's variables sit: what the library found on this machine.
var Info = NewCategory("mpix_info", "what this mpix found on this machine (read-only; mpixinfo prints them)", Root)

// infoValue is an information variable's value, computed once on first read.
type infoValue struct {
	once  sync.Once
	value func() string
	text  string
}

func (i *infoValue) get() string {
	i.once.Do(func() {
		t := i.value()
		if len(t) > MaxString { // what MPI_T can return
			t = t[:MaxString-3] + "..."
		}
		i.text = t
	})
	return i.text
}

// NewInfo registers a read-only string variable that reports what the library found
// (the transports, libfabric's providers, the RDMA devices) rather than a setting.
// No environment variable sets it, so its name is lower case (mpix_...) and it has no
// row in README.md's table; MPI_T shows it with scope MPI_T_SCOPE_CONSTANT and never
// lets it be written. value runs on the first read (not at MPI_Init, which loads only
// the settings), and the text is kept.
func NewInfo(name, desc string, value func() string) String {
	v := &Var{
		spec: Spec{Name: name, Desc: desc, Verbosity: UserDetail, Scope: ScopeConstant,
			Category: Info, Mutability: Fixed, Min: math.MinInt32, Max: math.MaxInt32},
		kind: KindString,
		info: &infoValue{value: value},
	}
	v.loaded.Store(true)
	empty := ""
	v.str.Store(&empty)
	return String{registerVar(v)}
}
