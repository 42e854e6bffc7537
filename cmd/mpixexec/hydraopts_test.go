package main

// Job runs with the Hydra options: output prefixing and files, working
// directory, environment policies, MPMD sections, binding, signal
// forwarding and the hosts hand-off.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sortedLines returns s's lines, sorted.
func sortedLines(s string) []string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	sort.Strings(lines)
	return lines
}

func TestPrependRank(t *testing.T) {
	for _, flag := range []string{"-l", "-prepend-rank"} {
		res := launch(t, "", nil, "-n", "3", flag, rankProg, "lines")
		if res.code != 0 {
			t.Fatalf("%s: exit %d:\n%s", flag, res.code, res.stderr)
		}
		var want, wantErr []string
		for r := range 3 {
			p := fmt.Sprintf("[%d] ", r)
			want = append(want, p+"partial", p+"second line", p+"no newline")
			wantErr = append(wantErr, p+"err line")
		}
		sort.Strings(want)
		sort.Strings(wantErr)
		if got := sortedLines(res.stdout); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: stdout lines %q, want %q", flag, got, want)
		}
		if got := sortedLines(res.stderr); !reflect.DeepEqual(got, wantErr) {
			t.Errorf("%s: stderr lines %q, want %q", flag, got, wantErr)
		}
	}
}

func TestOutfilePattern(t *testing.T) {
	dir := t.TempDir()
	res := launch(t, "", nil, "-n", "2", "-outfile-pattern", filepath.Join(dir, "out.%r"),
		"-errfile-pattern", filepath.Join(dir, "err.%r.%g"), rankProg, "lines")
	if res.code != 0 || res.stdout != "" || res.stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	for r := range 2 {
		out, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("out.%d", r)))
		errb, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("err.%d.0", r)))
		if string(out) != "partial\nsecond line\nno newline" || string(errb) != "err line\n" {
			t.Errorf("rank %d: out %q err %q", r, out, errb)
		}
	}
	// With -l, into one file for all ranks.
	all := filepath.Join(dir, "all")
	res = launch(t, "", nil, "-n", "2", "-l", "-outfile-pattern", all, rankProg, "lines")
	b, _ := os.ReadFile(all)
	want := []string{"[0] no newline", "[0] partial", "[0] second line", "[1] no newline", "[1] partial", "[1] second line"}
	if got := sortedLines(string(b)); res.code != 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("exit %d, file lines %q, want %q", res.code, got, want)
	}
	// A file that cannot be created: one line, no rank started.
	res = launch(t, "", nil, "-n", "2", "-outfile-pattern", filepath.Join(dir, "no", "such", "%r"), rankProg, "lines")
	if lines := launcherLines(res.stderr); res.code == 0 || len(lines) != 1 || !strings.Contains(lines[0], "mpixexec: -outfile-pattern: open "+filepath.Join(dir, "no", "such", "0")+": no such file or directory") {
		t.Errorf("exit %d, stderr %q", res.code, res.stderr)
	}
}

func TestWdir(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	other, _ := filepath.EvalSymlinks(t.TempDir())
	res := launch(t, "", nil, "-n", "2", "-wdir", dir, rankProg, "pwd", ":", "-wdir", other, rankProg, "pwd")
	for _, want := range []string{"rank 0 pwd " + dir, "rank 1 pwd " + dir, "rank 2 pwd " + other} {
		if !strings.Contains(res.stdout, want+"\n") {
			t.Errorf("stdout lacks %q:\n%s", want, res.stdout)
		}
	}
	// A relative program name is found in the working directory, as the
	// rank sees it.
	os.WriteFile(filepath.Join(dir, "script"), []byte("#!/bin/sh\necho script in $(pwd)\n"), 0o755)
	res = launch(t, "", nil, "-wdir", dir, "./script")
	if want := "script in " + dir + "\n"; res.code != 0 || res.stdout != want {
		t.Errorf("exit %d, stdout %q, want %q; stderr %s", res.code, res.stdout, want, res.stderr)
	}
	res = launch(t, "", nil, "-wdir", filepath.Join(dir, "missing"), rankProg, "pwd")
	if res.code != 2 || !strings.Contains(res.stderr, "mpixexec: bad -wdir "+filepath.Join(dir, "missing")+": no such file or directory") {
		t.Errorf("missing -wdir: exit %d, stderr %q", res.code, res.stderr)
	}
}

// rankGenv makes the test binary a rank even when the environment is not
// passed on.
var rankGenv = []string{"-genv", rankEnv, "1", "-genv", "GORACE", "atexit_sleep_ms=0"}

func TestEnvPolicies(t *testing.T) {
	env := []string{"MPIXEXEC_T_A=a", "MPIXEXEC_T_B=b"}
	tests := []struct {
		flags []string
		want  string // what ranks see of A and B
	}{
		{nil, "A=a B=b"},
		{[]string{"-envall"}, "A=a B=b"},
		{[]string{"-envnone"}, "A= B="},
		{[]string{"-genvnone"}, "A= B="},
		{[]string{"-envlist", "MPIXEXEC_T_B"}, "A= B=b"},
		{[]string{"-genvlist", "MPIXEXEC_T_A,PATH"}, "A=a B="},
		{[]string{"-genvnone", "-envall"}, "A=a B=b"},
		{[]string{"-envnone", "-env", "MPIXEXEC_T_A", "x"}, "A=x B="},
	}
	for _, tt := range tests {
		args := append(append(append([]string{"-n", "2"}, rankGenv...), tt.flags...),
			"sh", "-c", `echo "rank $MPIX_LOCAL_RANK/$MPIX_LOCAL_SIZE pmi $PMI_RANK A=$MPIXEXEC_T_A B=$MPIXEXEC_T_B"`)
		res := launch(t, "", env, args...)
		for r := range 2 {
			if want := fmt.Sprintf("rank %d/2 pmi %d %s\n", r, r, tt.want); !strings.Contains(res.stdout, want) {
				t.Errorf("%q: stdout lacks %q:\n%s%s", tt.flags, want, res.stdout, res.stderr)
			}
		}
	}
}

func TestMPMD(t *testing.T) {
	// Two programs; per-section -n and -env; ranks numbered in order.
	res := launch(t, "", nil, "-n", "2", "-env", "ROLE", "one", rankProg, "env", "ROLE", ":",
		"-n", "2", "-env", "ROLE", "two", "sh", "-c", `echo "sh rank $PMI_RANK of $PMI_SIZE ROLE=$ROLE"`)
	want := []string{"rank 0 ROLE=one", "rank 1 ROLE=one", "sh rank 2 of 4 ROLE=two", "sh rank 3 of 4 ROLE=two"}
	if got := sortedLines(res.stdout); res.code != 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("exit %d, lines %q, want %q; stderr %s", res.code, got, want, res.stderr)
	}
	// PMI across sections: one job of 3.
	for _, mode := range modes {
		args := append(append([]string{}, mode.flags...), rankProg, "ok", ":", "-n", "2", rankProg, "ok")
		res = launch(t, "", nil, args...)
		for r := range 3 {
			if want := fmt.Sprintf("rank %d of 3 ok local %d/3", r, r); !strings.Contains(res.stdout, want) {
				t.Errorf("%s: stdout lacks %q:\n%s%s", mode.name, want, res.stdout, res.stderr)
			}
		}
	}
	// Standard input goes to rank 0, in the first section.
	res = launch(t, "in\n", nil, "-n", "1", rankProg, "stdin", ":", "-n", "1", rankProg, "stdin")
	for _, want := range []string{`rank 0 stdin "in\n"`, `rank 1 stdin ""`} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("stdout lacks %s:\n%s", want, res.stdout)
		}
	}
	// A section whose program cannot be found fails the launch.
	res = launch(t, "", nil, rankProg, "ok", ":", "no-such-program-anywhere")
	if res.code != 127 || !strings.Contains(res.stderr, "cannot run no-such-program-anywhere: command not found") {
		t.Errorf("exit %d, stderr %q", res.code, res.stderr)
	}
}

// affinityLine matches a rank's report of its threads' CPUs.
var affinityLine = regexp.MustCompile(`(?m)^rank (\d+) threads (\d+) cpus (.*)$`)

// rankAffinity runs n affinity ranks with flags and returns each rank's
// CPU lists (one per distinct thread setting).
func rankAffinity(t *testing.T, n int, flags ...string) map[int]string {
	t.Helper()
	res := launch(t, "", nil, append(append([]string{"-n", strconv.Itoa(n)}, flags...), rankProg, "affinity")...)
	if res.code != 0 {
		t.Fatalf("exit %d:\n%s", res.code, res.stderr)
	}
	got := map[int]string{}
	for _, m := range affinityLine.FindAllStringSubmatch(res.stdout, -1) {
		r, _ := strconv.Atoi(m[1])
		if threads, _ := strconv.Atoi(m[2]); threads < 2 {
			t.Errorf("rank %d: %d threads; the check wants the Go runtime's", r, threads)
		}
		got[r] = m[3]
	}
	if len(got) != n {
		t.Fatalf("stdout:\n%s", res.stdout)
	}
	return got
}

// cpuList writes cpus as Linux's Cpus_allowed_list does (ranges).
func cpuList(cpus []int) string {
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(cpus[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", cpus[i], cpus[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

func TestBindTo(t *testing.T) {
	cpus, err := allowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	all := cpuList(cpus)
	for r, got := range rankAffinity(t, 2, "-bind-to", "none") {
		if got != all {
			t.Errorf("-bind-to none: rank %d on %s, want mpixexec's %s", r, got, all)
		}
	}
	for _, level := range []string{"core", "hwthread", "socket", "numa", "l3cache", "board"} {
		units := bindUnits(level, cpus, sysCPU)
		got := rankAffinity(t, 3, "-bind-to", level)
		for r := range 3 {
			// Every thread of the rank, not only the first, is bound.
			if want := cpuList(units[r%len(units)]); got[r] != want {
				t.Errorf("-bind-to %s: rank %d on %q, want %q", level, r, got[r], want)
			}
		}
	}
	if len(cpus) >= 2 {
		// Two ranks on two CPUs: one CPU each, not the same one.
		got := rankAffinity(t, 2, "-bind-to", "hwthread")
		if strings.ContainsAny(got[0]+got[1], ",-") || got[0] == got[1] {
			t.Errorf("-bind-to hwthread: ranks on %q and %q, want one distinct CPU each", got[0], got[1])
		}
	}
}

// TestBindUnits groups the CPUs of a made-up machine: two sockets, each one
// NUMA node with two cores of two hardware threads; an L2 per core, an L3
// per socket.
func TestBindUnits(t *testing.T) {
	root := t.TempDir()
	write := func(cpu int, rel, v string) {
		p := filepath.Join(root, "cpu"+strconv.Itoa(cpu), rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(v+"\n"), 0o644)
	}
	for cpu := range 8 {
		// Linux numbers the second hardware thread of each core after
		// all the first ones: core c has CPUs c and c+4.
		core := cpu % 4
		sock := core / 2
		write(cpu, "topology/physical_package_id", strconv.Itoa(sock))
		write(cpu, "topology/core_id", strconv.Itoa(core%2))
		os.MkdirAll(filepath.Join(root, "cpu"+strconv.Itoa(cpu), "node"+strconv.Itoa(sock)), 0o755)
		write(cpu, "cache/index0/level", "1")
		write(cpu, "cache/index0/type", "Data")
		write(cpu, "cache/index0/shared_cpu_list", fmt.Sprintf("%d,%d", core, core+4))
		write(cpu, "cache/index1/level", "1")
		write(cpu, "cache/index1/type", "Instruction")
		write(cpu, "cache/index1/shared_cpu_list", "x")
		write(cpu, "cache/index2/level", "2")
		write(cpu, "cache/index2/type", "Unified")
		write(cpu, "cache/index2/shared_cpu_list", fmt.Sprintf("%d,%d", core, core+4))
		write(cpu, "cache/index3/level", "3")
		write(cpu, "cache/index3/type", "Unified")
		write(cpu, "cache/index3/shared_cpu_list", fmt.Sprintf("%d-%d,%d-%d", sock*2, sock*2+1, sock*2+4, sock*2+5))
	}
	all := []int{0, 1, 2, 3, 4, 5, 6, 7}
	tests := []struct {
		level string
		cpus  []int
		want  [][]int
	}{
		{"hwthread", all, [][]int{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}}},
		{"core", all, [][]int{{0, 4}, {1, 5}, {2, 6}, {3, 7}}},
		{"l1cache", all, [][]int{{0, 4}, {1, 5}, {2, 6}, {3, 7}}},
		{"l2cache", all, [][]int{{0, 4}, {1, 5}, {2, 6}, {3, 7}}},
		{"l3cache", all, [][]int{{0, 1, 4, 5}, {2, 3, 6, 7}}},
		{"socket", all, [][]int{{0, 1, 4, 5}, {2, 3, 6, 7}}},
		{"numa", all, [][]int{{0, 1, 4, 5}, {2, 3, 6, 7}}},
		{"board", all, [][]int{all}},
		// Only the CPUs mpixexec may use count.
		{"core", []int{1, 2, 5}, [][]int{{1, 5}, {2}}},
		{"socket", []int{3, 6}, [][]int{{3, 6}}},
		// A CPU sysfs knows nothing about is a unit of its own.
		{"core", []int{0, 9}, [][]int{{0}, {9}}},
	}
	for _, tt := range tests {
		if got := bindUnits(tt.level, tt.cpus, root); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("bindUnits(%s, %v) = %v, want %v", tt.level, tt.cpus, got, tt.want)
		}
	}
}

// startRanks starts mpixexec running n ranks of mode, and returns it with
// the ranks' pids once each has written its pid file.
func startRanks(t *testing.T, n int, mode string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer, []int) {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(launcher, "-n", strconv.Itoa(n), rankProg, mode)
	cmd.Env = append(append(os.Environ(), rankEnvVars...), "MPIXEXEC_TEST_PIDDIR="+dir)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	pids := make([]int, n)
	for r := 0; r < n; {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("rank-%d.pid", r)))
		if err == nil && len(b) > 0 {
			if pids[r], err = strconv.Atoi(string(b)); err == nil {
				r++
				continue
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("ranks did not start; stderr:\n%s", errb.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return cmd, &out, &errb, pids
}

func TestForwardUserSignals(t *testing.T) {
	cmd, out, errb, _ := startRanks(t, 3, "usr")
	cmd.Process.Signal(syscall.SIGUSR1)
	time.Sleep(50 * time.Millisecond) // the order of the two, as sent
	cmd.Process.Signal(syscall.SIGUSR2)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("mpixexec: %v; stderr:\n%s", err, errb.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("ranks did not end; stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	}
	for r := range 3 {
		for _, sig := range []string{"user defined signal 1", "user defined signal 2"} {
			if want := fmt.Sprintf("rank %d got %s\n", r, sig); !strings.Contains(out.String(), want) {
				t.Errorf("stdout lacks %q:\n%s", want, out.String())
			}
		}
	}
}

func TestLocalHosts(t *testing.T) {
	host, _ := os.Hostname()
	for _, hosts := range []string{"localhost:2", "127.0.0.1,localhost", host + ":2"} {
		res := launch(t, "", nil, "-hosts", hosts, rankProg, "ok")
		for r := range 2 {
			if want := fmt.Sprintf("rank %d of 2 ok", r); res.code != 0 || !strings.Contains(res.stdout, want) {
				t.Errorf("-hosts %s: exit %d, stdout lacks %q:\n%s%s", hosts, res.code, want, res.stdout, res.stderr)
			}
		}
	}
}

// TestHydraHandOff puts a stand-in mpiexec.hydra first on PATH that prints
// its command line: mpixexec must exec it for a job on other hosts.
func TestHydraHandOff(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "mpiexec.hydra"), []byte("#!/bin/sh\n"+
		`for a in "$@"; do printf '<%s>' "$a"; done; echo; echo "MPIEXEC_TIMEOUT=$MPIEXEC_TIMEOUT"; exit 3`+"\n"), 0o755)
	path := "PATH=" + dir + ":" + os.Getenv("PATH")
	res := launch(t, "", []string{path}, "--hosts=node1:2,localhost", "-n", "4", "-l", "-timeout", "9",
		"-genv", "A", "1", "prog", "x y", ":", "-n", "1", "-envnone", "other")
	want := "<-hosts><node1:2,localhost><-prepend-rank><-genv><A><1><-n><4><prog><x y><:><-n><1><-envnone><other>\nMPIEXEC_TIMEOUT=9\n"
	if res.code != 3 || res.stdout != want || res.stderr != "" {
		t.Errorf("exit %d, stdout %q, want %q; stderr %q", res.code, res.stdout, want, res.stderr)
	}
	f := filepath.Join(dir, "hosts")
	os.WriteFile(f, []byte("localhost\nnode7\n"), 0o644)
	res = launch(t, "", []string{path}, "-f", f, "prog")
	if want := "<-f><" + f + "><prog>\nMPIEXEC_TIMEOUT=\n"; res.code != 3 || res.stdout != want {
		t.Errorf("-f: exit %d, stdout %q, want %q", res.code, res.stdout, want)
	}
}

func TestHydraArgs(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"-hosts", "a,b:2", "p"}, []string{"-hosts", "a,b:2", "p"}},
		{[]string{"--host=a", "-np", "4", "--", "p", "-n", "2"}, []string{"-hosts", "a", "-n", "4", "p", "-n", "2"}},
		{[]string{"-hosts", "a", "-ppn", "2", "-bind-to", "core", "-outfile-pattern", "o.%r", "-errfile-pattern", "e.%r",
			"-pmi-port", "-genvlist", "A,B", "-genv", "K", "V", "-wdir", "/w", "-envall", "-env", "L", "W", "p", ":", "-envlist", "C", "q"},
			[]string{"-hosts", "a", "-ppn", "2", "-bind-to", "core", "-outfile-pattern", "o.%r", "-errfile-pattern", "e.%r",
				"-pmi-port", "-genvlist", "A,B", "-genv", "K", "V", "-wdir", "/w", "-envall", "-env", "L", "W", "p", ":", "-envlist", "C", "q"}},
		{[]string{"-hosts", "a", "-genvnone", "p", ":", "-wdir", "/v", "q"},
			[]string{"-hosts", "a", "-genvnone", "p", ":", "-wdir", "/v", "q"}},
	}
	for _, tt := range tests {
		o, err := parseArgs(tt.args, func(string) string { return "" })
		if err != nil {
			t.Fatalf("parseArgs(%q): %v", tt.args, err)
		}
		if got := hydraArgs(o); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("hydraArgs(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
	o, _ := parseArgs([]string{"-timeout", "5", "-hosts", "a", "p"}, func(string) string { return "" })
	env := hydraEnv(o, []string{"A=1", "MPIEXEC_TIMEOUT=99"})
	if want := []string{"A=1", "MPIEXEC_TIMEOUT=5"}; !reflect.DeepEqual(env, want) {
		t.Errorf("hydraEnv = %q, want %q", env, want)
	}
}

func TestRemoteHosts(t *testing.T) {
	local := map[string]bool{"localhost": true, "vm": true, "10.0.0.5": true}
	tests := []struct {
		hosts []string
		want  []string
	}{
		{[]string{"localhost", "LocalHost:3", "vm:2", "127.0.0.1", "127.1.2.3", "::1", "[::1]", "10.0.0.5"}, nil},
		{[]string{"localhost", "node1:4", "10.0.0.6"}, []string{"node1", "10.0.0.6"}},
		{[]string{"vm.example.org"}, []string{"vm.example.org"}},
	}
	for _, tt := range tests {
		if got := remoteHosts(tt.hosts, local); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("remoteHosts(%q) = %q, want %q", tt.hosts, got, tt.want)
		}
	}
	names := localNames()
	host, _ := os.Hostname()
	if !names["localhost"] || !names[strings.ToLower(host)] {
		t.Errorf("localNames() = %v lacks localhost or %s", names, host)
	}
}

func TestFindHydra(t *testing.T) {
	dir := t.TempDir()
	missing := func(string) (string, error) { return "", exec.ErrNotFound }
	if p := findHydra(missing, []string{dir}); p != "" {
		t.Errorf("findHydra with none = %q", p)
	}
	// Not executable: not a launcher.
	os.WriteFile(filepath.Join(dir, "mpiexec.hydra"), nil, 0o644)
	if p := findHydra(missing, []string{dir}); p != "" {
		t.Errorf("findHydra found a plain file: %q", p)
	}
	os.Chmod(filepath.Join(dir, "mpiexec.hydra"), 0o755)
	if p := findHydra(missing, []string{"/nonexistent", dir}); p != filepath.Join(dir, "mpiexec.hydra") {
		t.Errorf("findHydra fallback = %q", p)
	}
	onPath := func(string) (string, error) { return "/opt/mpich/bin/mpiexec.hydra", nil }
	if p := findHydra(onPath, []string{dir}); p != "/opt/mpich/bin/mpiexec.hydra" {
		t.Errorf("findHydra on PATH = %q", p)
	}
	o, _ := parseArgs([]string{"-host", "n1", "p"}, func(string) string { return "" })
	line := noHydraLine(o, []string{"n1"})
	for _, want := range []string{"mpixexec: -host names other hosts (n1)", "this node only", "mpiexec.hydra", "srun under Slurm"} {
		if !strings.Contains(line, want) || strings.Contains(line, "\n") {
			t.Errorf("line %q lacks %q", line, want)
		}
	}
}

// TestHandOffWithoutHydra runs the hand-off where no mpiexec.hydra is
// found: one line, exit 2.
func TestHandOffWithoutHydra(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	saved := hydraFallbackDirs
	hydraFallbackDirs = []string{t.TempDir()}
	defer func() { hydraFallbackDirs = saved }()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := os.Stderr
	os.Stderr = w
	o, _ := parseArgs([]string{"-hosts", "localhost,node3:2", "-n", "4", "p"}, func(string) string { return "" })
	code := handOff(o, remoteHosts(o.hosts, localNames()))
	os.Stderr = stderr
	w.Close()
	var out bytes.Buffer
	out.ReadFrom(r)
	want := "mpixexec: -hosts names other hosts (node3), and mpixexec runs jobs on this node only: " +
		"use MPICH's mpiexec.hydra (Debian package mpich), or srun under Slurm\n"
	if code != 2 || out.String() != want {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, out.String(), want)
	}
}
