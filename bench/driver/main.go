// Command driver is `make bench`: it builds every C benchmark in bench/ three times
// (build/bin/mpixcc, mpicc.mpich, mpicc.openmpi), runs each figure of figures.go with
// every implementation, alternately, several times, measures this machine's limits
// in the same run, and writes bench/results/summary.md (a table per figure: medians,
// mpix's ratios to MPICH and Open MPI, the machine limit), PNG plots and raw.tsv (every
// value of every run). It installs nothing: `make bench` runs `make deps` first.
//
// Run from the repository root after `make`:
//
//	go run ./bench/driver
//
// Environment:
//
//	BENCH_RUNS     alternating runs per figure and implementation (default 5)
//	BENCH_TIMEOUT  seconds one launch may take before it is killed (default 60)
//	BENCH_ONLY     comma-separated figure names to run (default all)
//	BENCH_OUT      output directory (default bench/results)
//	BENCH_THREADS  comma-separated thread counts for the threaded RMA figures
//	               (rmaext_scope, rmaext_order; default 1, 2, 4, ... up to the CPUs)
//
// A program may print lines "note TEXT" on its standard output: they go under the
// figure's table, prefixed with the implementation (a row it skipped, and why).
//
// A launch that fails or times out makes that implementation "n/a" for the figure,
// with the reason in the table's notes, and is not run again; the other
// implementations and figures go on.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

type config struct {
	runs    int
	timeout time.Duration
	only    map[string]bool
	out     string
	threads string // BENCH_THREADS: passed as -threads to figures with ThreadsArg
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func loadConfig() (config, error) {
	c := config{runs: 5, timeout: 60 * time.Second, out: "bench/results"}
	if v := os.Getenv("BENCH_RUNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return c, fmt.Errorf("BENCH_RUNS=%q: want a positive number", v)
		}
		c.runs = n
	}
	if v := os.Getenv("BENCH_TIMEOUT"); v != "" {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil || n <= 0 {
			return c, fmt.Errorf("BENCH_TIMEOUT=%q: want seconds", v)
		}
		c.timeout = time.Duration(n * float64(time.Second))
	}
	if v := os.Getenv("BENCH_ONLY"); v != "" {
		c.only = map[string]bool{}
		for _, name := range strings.Split(v, ",") {
			c.only[strings.TrimSpace(name)] = true
		}
	}
	if v := os.Getenv("BENCH_OUT"); v != "" {
		c.out = v
	}
	if v := os.Getenv("BENCH_THREADS"); v != "" {
		for _, n := range strings.Split(v, ",") {
			if k, err := strconv.Atoi(strings.TrimSpace(n)); err != nil || k < 1 {
				return c, fmt.Errorf("BENCH_THREADS=%q: want thread counts like 1,2,4", v)
			}
		}
		c.threads = strings.ReplaceAll(v, " ", "")
	}
	return c, nil
}

func run() error {
	start := time.Now()
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	mach := describeMachine() // first: the load average before we add to it
	if _, err := os.Stat("build/bin/mpixexec"); err != nil {
		return fmt.Errorf("build/bin/mpixexec missing: run from the repository root after make")
	}
	var figs []Figure
	for _, f := range figures {
		if cfg.only == nil || cfg.only[f.Name] {
			if f.ThreadsArg && cfg.threads != "" {
				f.Args = append(append([]string{}, f.Args...), "-threads", cfg.threads)
			}
			figs = append(figs, f)
		}
	}
	if len(figs) == 0 {
		return fmt.Errorf("BENCH_ONLY matches no figure")
	}
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return err
	}
	logPath := filepath.Join(binDir, "build.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logf.Close()

	fmt.Printf("bench: building bench/*.c with mpixcc, mpicc.mpich, mpicc.openmpi (log: %s)\n", logPath)
	buildFailed, programs, err := buildAll(logf)
	if err != nil {
		return err
	}
	for _, k := range sortedKeys(buildFailed) {
		fmt.Printf("bench: %s: %s\n", k, buildFailed[k])
	}
	limitsBin := filepath.Join(binDir, "limits")
	limitsErr := compile(logf, "cc", []string{"-O2", "-pthread", "-o", limitsBin, "bench/limits/limits.c"})
	fmt.Printf("bench: built %d programs in %.0f s; %d runs, timeout %s per launch\n",
		len(programs), time.Since(start).Seconds(), cfg.runs, cfg.timeout)

	res := map[string]map[string]*Series{}
	for _, f := range figs {
		res[f.Name] = map[string]*Series{}
		for _, im := range implsOf(f) {
			res[f.Name][im.Name] = newSeries()
		}
	}
	limSeries := newSeries()
	if limitsErr != "" {
		limSeries.Fail(limitsErr)
	}
	raw := &strings.Builder{}
	raw.WriteString("figure\timpl\trun\trow\tvalue\n")

	for r := 0; r < cfg.runs; r++ {
		if !limSeries.Dead {
			o := launch([]string{limitsBin}, nil, cfg.timeout)
			samples, perr := parseOutput(Parse{Key: "limit"}, o.Stdout)
			switch {
			case o.Err != "":
				limSeries.Fail(o.Err)
			case perr != nil:
				limSeries.Fail(perr.Error())
			default:
				limSeries.Add(samples)
				recordRaw(raw, "limits", "machine", r, samples)
			}
		}
		for _, f := range figs {
			impls := implsOf(f)
			line := fmt.Sprintf("run %d/%d %-14s", r+1, cfg.runs, f.Name)
			for i := range impls {
				im := impls[(i+r)%len(impls)] // alternate which goes first
				s := res[f.Name][im.Name]
				if s.Dead {
					continue
				}
				if reason, bad := buildFailed[f.Program+"_"+im.Build]; bad {
					s.Fail(reason)
					line += fmt.Sprintf("  %s n/a", im.Name)
					continue
				}
				samples, notes, wall, reason := runFigure(f, im, cfg.timeout)
				if reason != "" {
					s.Fail(reason)
					line += fmt.Sprintf("  %s n/a", im.Name)
					continue
				}
				s.Add(samples)
				s.AddNotes(notes)
				recordRaw(raw, f.Name, im.Name, r, samples)
				line += fmt.Sprintf("  %s %.1fs", im.Name, wall.Seconds())
			}
			fmt.Println(line)
		}
	}

	var lim *Limits
	if limSeries.OK > 0 {
		var medians []Sample
		for _, row := range limSeries.Order {
			v, _ := limSeries.Median(row)
			medians = append(medians, Sample{row, v})
		}
		l := limitsFrom(medians)
		lim = &l
	}
	var body strings.Builder
	for _, f := range figs {
		body.WriteString("\n" + buildTable(f, res[f.Name], lim).Markdown())
		png := filepath.Join(cfg.out, f.Name+".png")
		os.Remove(png)
		ok, err := drawPlot(f, res[f.Name], lim, png)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
		} else if ok {
			body.WriteString("\n![" + f.Name + "](" + f.Name + ".png)\n")
		}
	}
	summary := header(mach, cfg, time.Since(start), lim, limSeries) + body.String()
	sumPath := filepath.Join(cfg.out, "summary.md")
	if err := os.WriteFile(sumPath, []byte(summary), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(cfg.out, "raw.tsv"), []byte(raw.String()), 0o644); err != nil {
		return err
	}
	fmt.Print("\n" + summary)
	fmt.Printf("\nbench: summary in %s, plots and raw.tsv beside it (%.0f s)\n", sumPath, time.Since(start).Seconds())
	return nil
}

// runFigure launches one figure once with one implementation (once per point for a
// sweep). It returns the samples, the programs' notes, the launches' wall-clock time,
// or why it failed.
func runFigure(f Figure, im Impl, timeout time.Duration) ([]Sample, []string, time.Duration, string) {
	return runFigureWith(f, im, timeout, binary)
}

// runFigureWith is runFigure with the program's path given by bin(program, build).
func runFigureWith(f Figure, im Impl, timeout time.Duration, bin func(string, string) string) ([]Sample, []string, time.Duration, string) {
	points := f.Points
	if len(points) == 0 {
		points = []Point{{}}
	}
	var all []Sample
	var notes []string
	var wall time.Duration
	for _, pt := range points {
		np, args := f.NP, f.Args
		if pt.NP != 0 {
			np = pt.NP
		}
		if pt.Args != nil {
			args = pt.Args
		}
		env := mergeEnv(f.Env, im.Env, pt.Env)
		argv := launchCommand(im, np, env, bin(f.Program, im.Build), args)
		o := launch(argv, launcherEnv[im.Build], timeout)
		wall += o.Wall
		if o.Err != "" {
			return nil, nil, wall, o.Err
		}
		samples, err := parseOutput(f.Parse, o.Stdout)
		if err != nil {
			// A program that printed no row but said why (a note) fails with its reason.
			if n := parseNotes(o.Stdout); len(n) > 0 {
				return nil, nil, wall, err.Error() + ": " + n[0]
			}
			return nil, nil, wall, err.Error()
		}
		notes = append(notes, parseNotes(o.Stdout)...)
		if pt.Row != "" {
			samples = relabel(samples, pt.Row)
		}
		if f.Parse.WallRow != "" {
			samples = append(samples, Sample{f.Parse.WallRow, float64(o.Wall.Microseconds()) / 1e3})
		}
		all = append(all, samples...)
	}
	return all, notes, wall, ""
}

// relabel puts all samples into one row, keeping the largest value.
func relabel(samples []Sample, row string) []Sample {
	out := Sample{Row: row, Value: samples[0].Value}
	for _, s := range samples[1:] {
		if s.Value > out.Value {
			out.Value = s.Value
		}
	}
	return []Sample{out}
}

func recordRaw(b *strings.Builder, fig, impl string, run int, samples []Sample) {
	for _, s := range samples {
		fmt.Fprintf(b, "%s\t%s\t%d\t%s\t%g\n", fig, impl, run+1, s.Row, s.Value)
	}
}

// header is the summary's opening: when, where, how, and the machine's limits.
func header(m Machine, cfg config, took time.Duration, lim *Limits, limSeries *Series) string {
	var b strings.Builder
	b.WriteString("# mpix benchmarks\n\n")
	fmt.Fprintf(&b, "- date: %s\n", time.Now().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "- machine: %s, %d CPUs, Linux %s, load average at start %s\n", m.CPU, m.CPUs, m.Kernel, m.Load)
	if len(m.Versions) > 0 {
		fmt.Fprintf(&b, "- implementations: %s\n", strings.Join(m.Versions, "; "))
	}
	fmt.Fprintf(&b, "- method: %d runs per figure, implementations alternating, medians shown; %s timeout per launch; %.0f s in all\n",
		cfg.runs, cfg.timeout, took.Seconds())
	b.WriteString("- launchers: mpix `build/bin/mpixexec` (mpix-ofi: `-env MPIX_SHM 0`, libfabric instead of shared memory), " +
		"MPICH `mpiexec.hydra -launcher fork`, Open MPI `mpirun.openmpi --allow-run-as-root --oversubscribe`\n")
	b.WriteString("\n### Machine limits (bench/limits/limits.c)\n\n")
	if lim == nil {
		reason := "not measured"
		if len(limSeries.Failures) > 0 {
			reason = limSeries.Failures[0]
		}
		b.WriteString("n/a: " + reason + "\n")
		return b.String()
	}
	b.WriteString("| limit | value |\n|---|---:|\n")
	fmt.Fprintf(&b, "| cache-line ping-pong between two cores, one way, best of 21 | %s ns |\n", formatValue(lim.CacheLineNs))
	if lim.CacheLineMedianNs > 0 {
		fmt.Fprintf(&b, "| the same, median of 21 | %s ns |\n", formatValue(lim.CacheLineMedianNs))
	}
	fmt.Fprintf(&b, "| memcpy bandwidth, 1 MiB | %s MB/s |\n", formatValue(lim.Memcpy1MiB))
	fmt.Fprintf(&b, "| memcpy bandwidth, 64 MiB | %s MB/s |\n", formatValue(lim.Memcpy64MiB))
	b.WriteString("\nEach limit is the median over the runs of the best repetition within a run " +
		"(a busy machine only makes a repetition slower); the limit columns below derive from them. " +
		"On a virtual machine the two CPUs can at times be hyperthreads of one core, which shows as a " +
		"best cache-line latency far below the median.\n")
	return b.String()
}
