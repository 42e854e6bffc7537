package rma

import (
	"strconv"
	"strings"

	"mpix/core"
)

// winInfo is the window's hints, as applied. MPI_Win_get_info reports every key with
// the value in effect (MPI-4.1 §12.2.7).
type winInfo struct {
	noLocks     bool   // no_locks: no passive-target epochs will be used
	ordering    string // accumulate_ordering: "rar,raw,war,waw" (default) or a subset, or "none"
	ops         string // accumulate_ops: "same_op_no_op" (default) or "same_op"
	sameSize    bool   // same_size
	sameDisp    bool   // same_disp_unit
	noncontig   bool   // alloc_shared_noncontig
	granularity int64  // mpi_accumulate_granularity (bytes; 0: the implementation's)

	// The RMA paper's keys, per handle (a duplicate may differ from its parent).
	threadScope bool // mpi_win_scope=thread: flushes complete the calling thread's operations
	ordered     bool // mpi_win_order=true: operations to a target complete there in issue order
	intrinsic   bool // mpi_assert_accumulate_intrinsic (or acc_single_intrinsic)=true
}

const defaultOrdering = "rar,raw,war,waw"

// parseInfo reads the keys a window honours; unknown keys and bad values are ignored,
// as the standard asks of hints.
func parseInfo(in *core.Info, f Flavor) winInfo {
	wi := winInfo{ordering: defaultOrdering, ops: "same_op_no_op"}
	wi.apply(in, true)
	if f != FlavorShared {
		wi.noncontig = false
	}
	return wi
}

func getBool(in *core.Info, key string) (bool, bool) {
	v, ok, _ := in.Get(key)
	if !ok {
		return false, false
	}
	switch strings.TrimSpace(v) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// apply takes the keys of in; at creation every key may be set, afterwards only those
// that can change while the window lives (MPI_Win_set_info, MPIX_Win_dup_with_info):
// the accumulate keys and the RMA paper's, which only change how this process issues
// and completes its own operations.
func (wi *winInfo) apply(in *core.Info, creation bool) {
	if in == nil {
		return
	}
	if v, ok, _ := in.Get("accumulate_ordering"); ok {
		if o, good := normalOrdering(v); good {
			wi.ordering = o
		}
	}
	if v, ok, _ := in.Get("accumulate_ops"); ok {
		if v = strings.TrimSpace(v); v == "same_op" || v == "same_op_no_op" {
			wi.ops = v
		}
	}
	if v, ok, _ := in.Get("mpi_accumulate_granularity"); ok {
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && n >= 0 {
			wi.granularity = n
		}
	}
	if v, ok, _ := in.Get("mpi_win_scope"); ok {
		switch strings.TrimSpace(v) {
		case "thread":
			wi.threadScope = true
		case "process":
			wi.threadScope = false
		}
	}
	if b, ok := getBool(in, "mpi_win_order"); ok {
		wi.ordered = b
	}
	if b, ok := getBool(in, "mpi_assert_accumulate_intrinsic"); ok {
		wi.intrinsic = b
	} else if b, ok := getBool(in, "acc_single_intrinsic"); ok {
		wi.intrinsic = b
	}
	if !creation {
		return
	}
	if b, ok := getBool(in, "no_locks"); ok {
		wi.noLocks = b
	}
	if b, ok := getBool(in, "same_size"); ok {
		wi.sameSize = b
	}
	if b, ok := getBool(in, "same_disp_unit"); ok {
		wi.sameDisp = b
	}
	if b, ok := getBool(in, "alloc_shared_noncontig"); ok {
		wi.noncontig = b
	}
}

// normalOrdering checks an accumulate_ordering value: "none" or a comma-separated
// subset of rar, raw, war, waw.
func normalOrdering(v string) (string, bool) {
	v = strings.TrimSpace(v)
	if v == "none" {
		return v, true
	}
	var seen []string
	for _, p := range strings.Split(v, ",") {
		switch p = strings.TrimSpace(p); p {
		case "rar", "raw", "war", "waw":
			seen = append(seen, p)
		default:
			return "", false
		}
	}
	return strings.Join(seen, ","), len(seen) > 0
}

func boolString(b bool) string { return strconv.FormatBool(b) }

// Info is MPI_Win_get_info: a new info object with every key in effect.
func (w *Win) Info() *core.Info {
	w.mu.Lock()
	wi := w.info
	w.mu.Unlock()
	in := core.NewInfo()
	in.Set("no_locks", boolString(wi.noLocks))
	in.Set("accumulate_ordering", wi.ordering)
	in.Set("accumulate_ops", wi.ops)
	in.Set("same_size", boolString(wi.sameSize))
	in.Set("same_disp_unit", boolString(wi.sameDisp))
	in.Set("alloc_shared_noncontig", boolString(wi.noncontig))
	in.Set("mpi_accumulate_granularity", strconv.FormatInt(wi.granularity, 10))
	sc := "process"
	if wi.threadScope {
		sc = "thread"
	}
	in.Set("mpi_win_scope", sc)
	in.Set("mpi_win_order", boolString(wi.ordered))
	in.Set("mpi_assert_accumulate_intrinsic", boolString(wi.intrinsic))
	if w.notifyIDs > 0 {
		in.Set("mpix_win_notify_ids", strconv.Itoa(w.notifyIDs))
	}
	in.Set("mpix_accumulate_net_atomics", w.netAcc.String())
	return in
}

// SetInfo is MPI_Win_set_info: the keys that may change while the window lives.
func (w *Win) SetInfo(in *core.Info) {
	w.mu.Lock()
	w.info.apply(in, false)
	w.mu.Unlock()
	w.publishView()
}
