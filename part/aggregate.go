package part

import (
	"bufio"
	_ "embed"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"mpix/core"
)

// aggregation is a strategy for mapping user partitions to transport partitions.
type aggregation uint8

const (
	aggrNone   aggregation = iota // one transport partition per user partition
	aggrTable                     // the tuning table ([PA] §IV-B)
	aggrPLogGP                    // the PLogGP model ([PA] §IV-C)
	aggrTimer                     // PLogGP groups, plus the δ timer ([PA] §IV-D)
)

var aggrNames = [...]string{"none", "table", "ploggp", "timer_ploggp"}

func (a aggregation) String() string {
	if int(a) < len(aggrNames) {
		return aggrNames[a]
	}
	return "?"
}

func parseAggregation(s string) (aggregation, bool) {
	for i, n := range aggrNames {
		if s == n {
			return aggregation(i), true
		}
	}
	return 0, false
}

// plan is how a send request groups its partitions.
type plan struct {
	strategy aggregation
	groups   int // transport partitions; divides the user partitions
	qps      int // network contexts the transport partitions are spread over
	delta    time.Duration
}

// The settings a request reads from its info, else from the environment (the
// MPIX_INFO_PART_* keys of mpix.h, upper-cased), else these defaults.
const (
	defaultStrategy = aggrTimer
	defaultDelta    = 50 * time.Microsecond // above the ~35 µs [PA] §V-C3 found for 32 partitions
	defaultDelay    = 4000 * time.Microsecond
)

// setting returns key's value from info, else from the environment variable of the
// same name in upper case.
func setting(info *core.Info, key string) (string, bool) {
	if info != nil {
		if v, ok, _ := info.Get(key); ok {
			return v, true
		}
	}
	v, ok := os.LookupEnv(strings.ToUpper(key))
	return v, ok
}

func intSetting(info *core.Info, key string) (int, bool, error) {
	v, ok := setting(info, key)
	if !ok {
		return 0, false, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return 0, false, core.Errorf(core.ErrInfoValue, "%s must be an integer >= 0, not %q", key, v)
	}
	return n, true, nil
}

// choosePlan picks the aggregation of a send of parts partitions and total bytes.
func choosePlan(info *core.Info, parts int, total int64, pa path) (plan, error) {
	p := plan{strategy: defaultStrategy, qps: 1, delta: defaultDelta}
	if v, ok := setting(info, "mpix_part_aggregation"); ok {
		a, ok := parseAggregation(strings.TrimSpace(v))
		if !ok {
			return p, core.Errorf(core.ErrInfoValue, "mpix_part_aggregation must be none, table, ploggp or timer_ploggp, not %q", v)
		}
		p.strategy = a
	}
	forced, isForced, err := intSetting(info, "mpix_part_transport_partitions")
	if err != nil {
		return p, err
	}
	qps, isQPs, err := intSetting(info, "mpix_part_num_qps")
	if err != nil {
		return p, err
	}
	if d, ok, err := intSetting(info, "mpix_part_delta_usec"); err != nil {
		return p, err
	} else if ok {
		p.delta = time.Duration(d) * time.Microsecond
	}
	tr := transportName(pa)
	switch p.strategy {
	case aggrNone:
		p.groups = parts
	case aggrTable:
		if e, ok := tableOnce().lookup(tr, parts, total); ok {
			p.groups, p.qps = e.groups, e.qps
		} else {
			p.groups = modelGroups(tr, parts, total) // a count the table does not cover
		}
	default:
		p.groups = modelGroups(tr, parts, total)
	}
	if isForced && forced > 0 {
		p.groups = forced
	}
	if isQPs && qps > 0 {
		p.qps = qps
	}
	p.groups = divisorAtMost(parts, p.groups)
	// A network context is a VCI's endpoint; the model knows none ([PA] §V-B1), so
	// without a table line or a key a request uses its communicator's alone.
	p.qps = min(max(p.qps, 1), maxStreams, p.groups)
	return p, nil
}

// divisorAtMost is the largest divisor of n not above k (at least 1), so that groups
// are contiguous and aligned on n/groups boundaries.
func divisorAtMost(n, k int) int {
	k = min(max(k, 1), n)
	for n%k != 0 {
		k--
	}
	return k
}

func transportName(pa path) string {
	if pa == pathShm {
		return "shm"
	}
	return "ofi"
}

// ---- tuning table ([PA] §IV-B) ----

//go:embed table.txt
var defaultTable string

// tableEntry is one line of a tuning table: transport user_partitions bytes
// transport_partitions num_qps.
type tableEntry struct {
	transport string
	parts     int
	bytes     int64
	groups    int
	qps       int
}

type table []tableEntry

// lookup finds the line with the same transport and user partitions and the largest
// bytes not above total (the smallest when total is below them all).
func (t table) lookup(tr string, parts int, total int64) (tableEntry, bool) {
	var best tableEntry
	found := false
	for _, e := range t {
		if e.transport != tr || e.parts != parts {
			continue
		}
		switch {
		case !found:
			best, found = e, true
		case e.bytes <= total && (best.bytes > total || e.bytes > best.bytes):
			best = e
		case best.bytes > total && e.bytes < best.bytes:
			best = e
		}
	}
	return best, found
}

func parseTable(r io.Reader) (table, error) {
	var t table
	sc := bufio.NewScanner(r)
	for ln := 1; sc.Scan(); ln++ {
		f := fields(sc.Text())
		if f == nil {
			continue
		}
		if len(f) != 5 {
			return nil, fmt.Errorf("line %d: want: transport user_partitions bytes transport_partitions num_qps", ln)
		}
		var n [4]int64
		for i := range n {
			v, err := strconv.ParseInt(f[i+1], 10, 64)
			if err != nil || v < 0 || (v == 0 && i != 1) {
				return nil, fmt.Errorf("line %d: %q is not a positive integer", ln, f[i+1])
			}
			n[i] = v
		}
		t = append(t, tableEntry{transport: f[0], parts: int(n[0]), bytes: n[1], groups: int(n[2]), qps: int(n[3])})
	}
	return t, sc.Err()
}

// fields splits a line of a parameter file, without its # comment; nil for none.
func fields(line string) []string {
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	f := strings.Fields(line)
	if len(f) == 0 {
		return nil
	}
	return f
}

var tableOnce = sync.OnceValue(func() table {
	return loadFile("MPIX_PART_TABLE", defaultTable, parseTable)
})

// loadFile parses the file the environment variable names, else the shipped default.
// A file that cannot be read or parsed is reported once and the default used.
func loadFile[T any](env, fallback string, parse func(io.Reader) (T, error)) T {
	def, err := parse(strings.NewReader(fallback))
	if err != nil {
		panic(fmt.Sprintf("part: the shipped %s default does not parse: %v", env, err))
	}
	name := os.Getenv(env)
	if name == "" {
		return def
	}
	f, err := os.Open(name)
	if err == nil {
		defer f.Close()
		var v T
		if v, err = parse(f); err == nil {
			return v
		}
	}
	fmt.Fprintf(os.Stderr, "mpix: %s=%s: %v; using the built-in default\n", env, name, err)
	return def
}

// ---- the PLogGP model ([PA] §II-C, §IV-C) ----

//go:embed loggp.txt
var defaultLogGP string

// logGP is one measured line: transport bytes L o_s o_r g (µs) G (µs per byte).
type logGP struct {
	transport       string
	bytes           int64
	L, os, or, g, G float64
}

type logGPs []logGP

func parseLogGP(r io.Reader) (logGPs, error) {
	var t logGPs
	sc := bufio.NewScanner(r)
	for ln := 1; sc.Scan(); ln++ {
		f := fields(sc.Text())
		if f == nil {
			continue
		}
		if len(f) != 7 {
			return nil, fmt.Errorf("line %d: want: transport bytes L_us os_us or_us g_us G_us_per_byte", ln)
		}
		b, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil || b < 0 {
			return nil, fmt.Errorf("line %d: bad byte count %q", ln, f[1])
		}
		var v [5]float64
		for i := range v {
			if v[i], err = strconv.ParseFloat(f[i+2], 64); err != nil || v[i] < 0 || math.IsNaN(v[i]) || math.IsInf(v[i], 0) {
				return nil, fmt.Errorf("line %d: bad parameter %q", ln, f[i+2])
			}
		}
		t = append(t, logGP{f[0], b, v[0], v[1], v[2], v[3], v[4]})
	}
	sort.Slice(t, func(i, j int) bool { return t[i].bytes < t[j].bytes })
	return t, sc.Err()
}

var logGPOnce = sync.OnceValue(func() logGPs {
	return loadFile("MPIX_PART_LOGGP", defaultLogGP, parseLogGP)
})

// at returns the parameters measured for the largest size not above k (the smallest
// measured size when k is below them all).
func (t logGPs) at(tr string, k int64) (logGP, bool) {
	var best logGP
	found := false
	for _, p := range t {
		if p.transport != tr {
			continue
		}
		if !found || p.bytes <= k {
			best, found = p, true
		}
	}
	return best, found
}

// modelTime is the PLogGP time to deliver total bytes as n transport partitions when
// all but one user partition are ready at once and one is delay late (the
// many-before-one pattern): the n-1 early partitions leave back to back, each gap
// max(g, o_s, o_r) apart and each G(k-1) on the wire, the late one when it is ready
// and the wire is free. Without delay, two partitions take [PA] §II-C's
// o_s + 2G(k-1) + max(g,o_s,o_r) + L + o_r.
func modelTime(t logGPs, tr string, n int, total int64, delay float64) (float64, bool) {
	k := total / int64(n)
	p, ok := t.at(tr, k)
	if !ok {
		return 0, false
	}
	gap := math.Max(p.g, math.Max(p.os, p.or))
	wire := p.G * float64(max(k-1, 0))
	late := math.Max(delay, float64(n-1)*(gap+wire)) + p.os + wire + p.L + p.or
	if n == 1 {
		return late, true
	}
	early := p.os + float64(n-1)*wire + float64(n-2)*gap + p.L + p.or
	return math.Max(early, late), true
}

// modelGroups iterates the model over the power-of-two transport partition counts
// that divide parts and returns the fastest; a count within 1% of a smaller one's
// time is not worth its extra writes.
func modelGroups(tr string, parts int, total int64) int {
	delay := float64(defaultDelay.Microseconds())
	if v := os.Getenv("MPIX_PART_PLOGGP_DELAY_USEC"); v != "" {
		if d, err := strconv.ParseFloat(v, 64); err == nil && d >= 0 {
			delay = d
		}
	}
	if total == 0 {
		return 1
	}
	t := logGPOnce()
	best, bestT := 1, math.Inf(1)
	for n := 1; n <= parts; n *= 2 {
		if parts%n != 0 {
			break
		}
		tm, ok := modelTime(t, tr, n, total, delay)
		if !ok {
			return 1 // nothing measured for this transport: no aggregation guess
		}
		if tm < bestT*0.99 {
			best, bestT = n, tm
		}
	}
	return best
}
