package part

import (
	"math"
	"strings"
	"testing"
	"time"

	"mpix/core"
)

func TestDivisorAtMost(t *testing.T) {
	for _, tc := range []struct{ n, k, want int }{
		{16, 4, 4}, {16, 5, 4}, {16, 0, 1}, {16, 99, 16}, {12, 5, 4}, {7, 3, 1}, {1, 8, 1},
	} {
		if got := divisorAtMost(tc.n, tc.k); got != tc.want {
			t.Errorf("divisorAtMost(%d, %d) = %d, want %d", tc.n, tc.k, got, tc.want)
		}
	}
}

func TestTableLookup(t *testing.T) {
	tab, err := parseTable(strings.NewReader(`# comment
shm 32 1024 1 1
shm 32 65536 4 1   # trailing comment
shm 32 1048576 16 2
ofi 32 1024 2 1
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tr     string
		parts  int
		total  int64
		groups int
		qps    int
		ok     bool
	}{
		{"shm", 32, 512, 1, 1, true}, // below every size: the smallest
		{"shm", 32, 1024, 1, 1, true},
		{"shm", 32, 65535, 1, 1, true},
		{"shm", 32, 65536, 4, 1, true},
		{"shm", 32, 1 << 30, 16, 2, true},
		{"ofi", 32, 1 << 20, 2, 1, true},
		{"shm", 16, 1024, 0, 0, false}, // no line for 16 partitions
	} {
		e, ok := tab.lookup(tc.tr, tc.parts, tc.total)
		if ok != tc.ok || ok && (e.groups != tc.groups || e.qps != tc.qps) {
			t.Errorf("lookup(%s, %d, %d) = %+v, %v; want groups %d qps %d, %v", tc.tr, tc.parts, tc.total, e, ok, tc.groups, tc.qps, tc.ok)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, bad := range []string{"shm 32 1024 1", "shm x 1024 1 1", "shm 32 1024 0 1"} {
		if _, err := parseTable(strings.NewReader(bad)); err == nil {
			t.Errorf("parseTable(%q) took it", bad)
		}
	}
	for _, bad := range []string{"shm 8 1 1 1 1", "shm 8 1 1 1 1 -2", "shm 8 1 1 1 1 NaN", "shm -8 1 1 1 1 1"} {
		if _, err := parseLogGP(strings.NewReader(bad)); err == nil {
			t.Errorf("parseLogGP(%q) took it", bad)
		}
	}
	for _, name := range []string{"table", "loggp"} {
		var err error
		if name == "table" {
			_, err = parseTable(strings.NewReader(defaultTable))
		} else {
			_, err = parseLogGP(strings.NewReader(defaultLogGP))
		}
		if err != nil {
			t.Errorf("the shipped %s default does not parse: %v", name, err)
		}
	}
}

// A network where each message costs 5 µs and a byte 1 ns: the model must keep small
// messages whole and split large ones, and never beat the late partition's delay.
func TestModelTrends(t *testing.T) {
	params := logGPs{{transport: "ofi", bytes: 1, L: 2, os: 1, or: 1, g: 5, G: 0.001}}
	const delay = 4000
	one, _ := modelTime(params, "ofi", 1, 1<<10, delay)
	if one < delay {
		t.Errorf("a message with a late partition took %v µs, less than the delay", one)
	}
	small := bestOf(params, 32, 1<<10, delay)
	large := bestOf(params, 32, 64<<20, delay)
	if small != 1 {
		t.Errorf("1 KiB in 32 partitions: %d transport partitions, want 1", small)
	}
	if large <= small {
		t.Errorf("64 MiB in 32 partitions: %d transport partitions, not more than 1 KiB's %d", large, small)
	}
	// Two partitions, no delay: [PA] §II-C's o_s + 2G(k-1) + max(g,o_s,o_r) + L + o_r.
	k := int64(1000)
	two, _ := modelTime(params, "ofi", 2, 2*k, 0)
	p := params[0]
	if want := p.os + 2*p.G*float64(k-1) + p.g + p.L + p.or; math.Abs(two-want) > 1e-9 {
		t.Errorf("two partitions: %v µs, the paper's formula gives %v", two, want)
	}
}

func bestOf(t logGPs, parts int, total int64, delay float64) int {
	best, bestT := 1, 1e300
	for n := 1; n <= parts; n *= 2 {
		tm, _ := modelTime(t, "ofi", n, total, delay)
		if tm < bestT*0.99 {
			best, bestT = n, tm
		}
	}
	return best
}

func TestChoosePlan(t *testing.T) {
	info := func(kv ...string) *core.Info {
		in := core.NewInfo()
		for i := 0; i < len(kv); i += 2 {
			in.Set(kv[i], kv[i+1])
		}
		return in
	}
	p, err := choosePlan(info("mpix_part_aggregation", "none"), 16, 1<<20, pathShm)
	if err != nil || p.strategy != aggrNone || p.groups != 16 {
		t.Errorf("none: %+v, %v", p, err)
	}
	p, err = choosePlan(info("mpix_part_aggregation", "none", "mpix_part_transport_partitions", "4"), 16, 1<<20, pathShm)
	if err != nil || p.groups != 4 {
		t.Errorf("forced 4: %+v, %v", p, err)
	}
	p, err = choosePlan(info("mpix_part_transport_partitions", "5"), 16, 1<<20, pathShm)
	if err != nil || p.groups != 4 {
		t.Errorf("forced 5 of 16: %+v, %v (want the divisor 4)", p, err)
	}
	p, err = choosePlan(info("mpix_part_aggregation", "timer_ploggp", "mpix_part_delta_usec", "75"), 16, 1<<20, pathOFI)
	if err != nil || p.strategy != aggrTimer || p.delta != 75*time.Microsecond {
		t.Errorf("timer with delta: %+v, %v", p, err)
	}
	if _, err := choosePlan(info("mpix_part_aggregation", "fastest"), 16, 1, pathShm); err == nil || core.AsError(err).Class != core.ErrInfoValue {
		t.Errorf("an unknown strategy: %v, want MPI_ERR_INFO_VALUE", err)
	}
	if _, err := choosePlan(info("mpix_part_delta_usec", "-3"), 16, 1, pathShm); err == nil {
		t.Error("a negative delta was taken")
	}
	t.Setenv("MPIX_PART_AGGREGATION", "ploggp")
	p, err = choosePlan(nil, 16, 1<<20, pathShm)
	if err != nil || p.strategy != aggrPLogGP {
		t.Errorf("the environment's default: %+v, %v", p, err)
	}
}
