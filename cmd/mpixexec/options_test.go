package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseArgs(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	none := env(nil)
	sec := func(n int, prog string, args ...string) *section {
		if args == nil {
			args = []string{}
		}
		return &section{n: n, nSet: n > 0, prog: prog, args: args}
	}
	with := func(s *section, f func(*section)) *section { f(s); return s }
	tests := []struct {
		args   []string
		getenv func(string) string
		want   options
	}{
		{[]string{"prog"}, none, options{sections: []*section{sec(0, "prog")}}},
		{[]string{"-n", "4", "prog", "-n", "3"}, none, options{sections: []*section{sec(4, "prog", "-n", "3")}}},
		{[]string{"-np=2", "--pmi-port", "--", "-prog", "x"}, none,
			options{pmiPort: true, sections: []*section{sec(2, "-prog", "x")}}},
		{[]string{"-env", "A", "1", "-genv", "B", "", "p"}, none,
			options{genv: [][2]string{{"B", ""}}, sections: []*section{with(sec(0, "p"), func(s *section) { s.env = [][2]string{{"A", "1"}} })}}},
		{[]string{"-timeout", "2", "p"}, none,
			options{timeout: 2 * time.Second, timeoutText: "2", timeoutFlag: "2", sections: []*section{sec(0, "p")}}},
		{[]string{"p"}, env(map[string]string{"MPIEXEC_TIMEOUT": "1.5"}),
			options{timeout: 1500 * time.Millisecond, timeoutText: "1.5", sections: []*section{sec(0, "p")}}},
		{[]string{"-timeout=3", "p"}, env(map[string]string{"MPIEXEC_TIMEOUT": "1"}),
			options{timeout: 3 * time.Second, timeoutText: "3", timeoutFlag: "3", sections: []*section{sec(0, "p")}}},
		// The Hydra options.
		{[]string{"-ppn", "4", "-bind-to", "core", "-l", "--prepend-rank", "-outfile-pattern", "o.%r", "-errfile-pattern=e.%r", "p"}, none,
			options{ppn: 4, bind: "core", prepend: true, outPattern: "o.%r", errPattern: "e.%r", sections: []*section{sec(0, "p")}}},
		{[]string{"-genvnone", "-envlist", "A,B", "p"}, none,
			options{gpol: envPolicy{set: true, mode: envNone},
				sections: []*section{with(sec(0, "p"), func(s *section) { s.pol = envPolicy{true, envList, []string{"A", "B"}} })}}},
		{[]string{"-genvlist", "X", "-envall", "-wdir", "/tmp", "p"}, none,
			options{gpol: envPolicy{true, envList, []string{"X"}},
				sections: []*section{with(sec(0, "p"), func(s *section) { s.pol = envPolicy{set: true}; s.wdir = "/tmp" })}}},
		{[]string{"-hosts", "a:2,b", "p"}, none,
			options{hosts: []string{"a:2", "b"}, hostOpt: "-hosts", sections: []*section{sec(0, "p")}}},
		// MPMD: local options per section, global ones anywhere; the
		// first section's -wdir holds for sections without their own.
		{[]string{"-n", "1", "-wdir", "/w", "a", "x", ":", "-n", "2", "-env", "K", "V", "-l", "b", "y", "z", ":", "-wdir", "/v", "c"}, none,
			options{prepend: true, sections: []*section{
				with(sec(1, "a", "x"), func(s *section) { s.wdir = "/w" }),
				with(sec(2, "b", "y", "z"), func(s *section) { s.env = [][2]string{{"K", "V"}}; s.wdir = "/w" }),
				with(sec(0, "c"), func(s *section) { s.wdir = "/v" }),
			}}},
		{[]string{"--", "a", "-n", "3", ":", "b"}, none,
			options{sections: []*section{sec(0, "a", "-n", "3"), sec(0, "b")}}},
	}
	for _, tt := range tests {
		got, err := parseArgs(tt.args, tt.getenv)
		if err != nil {
			t.Errorf("parseArgs(%q): %v", tt.args, err)
			continue
		}
		if !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("parseArgs(%q) =\n%s\nwant\n%s", tt.args, dumpOptions(got), dumpOptions(&tt.want))
		}
	}
	bad := []struct {
		args []string
		msg  string
	}{
		{[]string{}, "no program to run"},
		{[]string{"--"}, "no program after --"},
		{[]string{"-n", "-1", "p"}, "bad number of processes"},
		{[]string{"-n", "100000", "p"}, "bad number of processes"},
		{[]string{"-env", "A=B", "1", "p"}, "bad environment variable name"},
		{[]string{"-env=A", "1", "p"}, "takes two arguments"},
		{[]string{"-pmi-port=1", "p"}, "takes no value"},
		{[]string{"-timeout", "-1", "p"}, "bad -timeout"},
		{[]string{"-timeout", "NaN", "p"}, "bad -timeout"},
		{[]string{"-x", "p"}, "unknown option -x"},
		{[]string{"-map-by", "core", "p"}, "unknown option -map-by"},
		{[]string{"-ppn", "0", "p"}, "bad -ppn"},
		{[]string{"-bind-to", "cores", "p"}, `bad -bind-to "cores" (want one of none, hwthread, core`},
		{[]string{"-bind-to", ":", "p"}, "needs a value"},
		{[]string{"-outfile-pattern", "out.%x", "p"}, "unknown %x"},
		{[]string{"-errfile-pattern", "out.%", "p"}, "at the end"},
		{[]string{"-envlist", "A,,B", "p"}, "bad environment variable name"},
		{[]string{"-wdir=", "p"}, "needs a directory"},
		{[]string{"-hosts", "a:0", "p"}, "bad process count"},
		{[]string{"-hosts", ",", "p"}, "empty host name"},
		{[]string{"-f", "/nonexistent/hosts", "p"}, "no such file"},
		{[]string{":", "p"}, "':' with no program before it"},
		{[]string{"a", ":"}, "no program after the last ':'"},
		{[]string{"a", ":", "-n", "2"}, "no program after the last ':'"},
		{[]string{"a", ":", ":", "b"}, "':' with no program before it"},
		{[]string{"-l=1", "p"}, "takes no value"},
	}
	for _, tt := range bad {
		o, err := parseArgs(tt.args, none)
		if err == nil {
			t.Errorf("parseArgs(%q) = %s, want error", tt.args, dumpOptions(o))
		} else if !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("parseArgs(%q): %v, want %q", tt.args, err, tt.msg)
		}
	}
	if _, err := parseArgs([]string{"p"}, env(map[string]string{"MPIEXEC_TIMEOUT": "x"})); err == nil {
		t.Error("bad MPIEXEC_TIMEOUT accepted")
	}
}

func dumpOptions(o *options) string {
	var b strings.Builder
	c := *o
	c.sections = nil
	fmt.Fprintf(&b, "%+v", c)
	for _, s := range o.sections {
		fmt.Fprintf(&b, "\n  %+v", *s)
	}
	return b.String()
}

func TestHostfile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "hosts")
	os.WriteFile(f, []byte("# nodes\nnode1:4  ifhn=ib0\n\n  node2 # the other one\n"), 0o644)
	o, err := parseArgs([]string{"-f", f, "p"}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"node1:4", "node2"}; !reflect.DeepEqual(o.hosts, want) || o.hostfile != f || o.hostOpt != "-f" {
		t.Errorf("hosts %q file %q opt %q, want %q", o.hosts, o.hostfile, o.hostOpt, want)
	}
	os.WriteFile(f, []byte("# nothing\n"), 0o644)
	if _, err := parseArgs([]string{"-machinefile", f, "p"}, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "names no host") {
		t.Errorf("empty host file: %v", err)
	}
	os.WriteFile(f, []byte("a\nb:x\n"), 0o644)
	if _, err := parseArgs([]string{"-hostfile", f, "p"}, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), f+":2: bad process count") {
		t.Errorf("bad host file: %v", err)
	}
}

func TestSetCounts(t *testing.T) {
	tests := []struct {
		args  []string
		total int
		ns    []int
		err   string
	}{
		{[]string{"p"}, 1, []int{1}, ""},
		{[]string{"-ppn", "3", "p"}, 3, []int{3}, ""},
		{[]string{"-ppn", "3", "-n", "2", "p"}, 2, []int{2}, ""},
		{[]string{"-ppn", "3", "-n", "3", "p"}, 3, []int{3}, ""},
		{[]string{"-ppn", "2", "-n", "5", "p"}, 0, nil, "-n 5 with -ppn 2 needs 3 nodes"},
		{[]string{"-hosts", "localhost:2,127.0.0.1", "p"}, 3, []int{3}, ""},
		{[]string{"-hosts", "localhost:2", "-n", "1", "p"}, 1, []int{1}, ""},
		{[]string{"a", ":", "-n", "2", "b"}, 3, []int{1, 2}, ""},
		{[]string{"-ppn", "2", "a", ":", "-n", "2", "b"}, 0, nil, "-n 3 with -ppn 2"},
		{[]string{"-n", "4000", "a", ":", "-n", "4000", "b"}, 0, nil, "8000 processes in all"},
	}
	for _, tt := range tests {
		o, err := parseArgs(tt.args, func(string) string { return "" })
		if err != nil {
			t.Fatalf("parseArgs(%q): %v", tt.args, err)
		}
		total, err := o.setCounts()
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: setCounts() = %d, %v; want error %q", tt.args, total, err, tt.err)
			}
			continue
		}
		var ns []int
		for _, s := range o.sections {
			ns = append(ns, s.n)
		}
		if err != nil || total != tt.total || !reflect.DeepEqual(ns, tt.ns) {
			t.Errorf("%q: setCounts() = %d %v, %v; want %d %v", tt.args, total, ns, err, tt.total, tt.ns)
		}
	}
}

func TestRankEnviron(t *testing.T) {
	environ := []string{"A=1", "B=2", "C=3", "PMI_FD=9"}
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"p"}, []string{"A=1", "B=2", "C=3"}},
		{[]string{"-envall", "p"}, []string{"A=1", "B=2", "C=3"}},
		{[]string{"-envnone", "p"}, nil},
		{[]string{"-envlist", "C,A,PMI_FD,NOPE", "p"}, []string{"A=1", "C=3"}},
		{[]string{"-genvlist", "B", "p"}, []string{"B=2"}},
		{[]string{"-genvnone", "-genv", "G", "g", "-env", "L", "l", "p"}, []string{"G=g", "L=l"}},
		// A section's policy beats the global one; -env comes after -genv.
		{[]string{"-genvnone", "-envlist", "A", "-genv", "A", "x", "-env", "A", "y", "p"}, []string{"A=1", "A=x", "A=y"}},
		{[]string{"-genvall", "-envnone", "p"}, nil},
	}
	for _, tt := range tests {
		o, err := parseArgs(tt.args, func(string) string { return "" })
		if err != nil {
			t.Fatalf("parseArgs(%q): %v", tt.args, err)
		}
		got := rankEnviron(o, o.sections[0], environ, 1, 2)
		want := append(tt.want, "MPIX_LOCAL_RANK=1", "MPIX_LOCAL_SIZE=2")
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: environment %q, want %q", tt.args, got, want)
		}
	}
}

func TestExpandPattern(t *testing.T) {
	host, _ := os.Hostname()
	tests := []struct{ pattern, want string }{
		{"out", "out"},
		{"out.%r", "out.7"},
		{"%r-%g-%p-%%r", "7-0-0-%r"},
		{"/tmp/%h.%r.log", "/tmp/" + host + ".7.log"},
	}
	for _, tt := range tests {
		if got, err := expandPattern(tt.pattern, 7); err != nil || got != tt.want {
			t.Errorf("expandPattern(%q) = %q, %v; want %q", tt.pattern, got, err, tt.want)
		}
	}
}
