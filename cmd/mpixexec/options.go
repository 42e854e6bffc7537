package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// maxRanks bounds -n: each rank costs a process and a socket.
const maxRanks = 4096

// envMode says which of mpixexec's own environment variables reach ranks.
type envMode int

const (
	envAll  envMode = iota // all (the default)
	envNone                // none
	envList                // the named ones
)

// envPolicy is one -envall/-envnone/-envlist (or -genv...) choice.
type envPolicy struct {
	set  bool // given on the command line (a section's overrides the global one)
	mode envMode
	list []string
}

// section is one program of the job: the whole command line, or one part of
// a multi-program (MPMD) command line between ':' separators.
type section struct {
	n    int // ranks; 0 until given or defaulted
	nSet bool
	env  [][2]string // -env K V
	pol  envPolicy   // -envall/-envnone/-envlist
	wdir string      // -wdir; "" for mpixexec's own working directory
	prog string
	args []string
	path string // prog resolved to an absolute file name, by run
}

// options is a parsed command line.
type options struct {
	sections    []*section
	genv        [][2]string   // -genv K V
	gpol        envPolicy     // -genvall/-genvnone/-genvlist
	timeout     time.Duration // 0: none
	timeoutText string        // as the user wrote it, for the message
	timeoutFlag string        // the -timeout value, for the Hydra hand-off
	pmiPort     bool
	ppn         int      // -ppn; 0: not given
	bind        string   // -bind-to level; "" or "none": no binding
	prepend     bool     // -l, -prepend-rank
	outPattern  string   // -outfile-pattern
	errPattern  string   // -errfile-pattern
	hosts       []string // -hosts/-host entries, "name" or "name:count"
	hostfile    string   // -f/-hostfile/-machinefile
	hostOpt     string   // the option that named the hosts, for messages
}

// errHelp: the user asked for the usage text.
var errHelp = errors.New("help requested")

// bindLevels are the -bind-to values (Hydra's), each a unit of the topology a
// rank is bound to.
var bindLevels = []string{"none", "hwthread", "core", "l1cache", "l2cache", "l3cache", "socket", "numa", "board"}

// parseArgs parses the command line (without the command name). getenv
// reads MPIEXEC_TIMEOUT. It reads the host file of -f, but decides nothing
// about the hosts: see localRun.
func parseArgs(args []string, getenv func(string) string) (*options, error) {
	o := &options{}
	cur := &section{}
	afterColon := false // cur follows a ':'
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == ":" {
			return nil, errors.New("':' with no program before it")
		}
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			if a == "--" {
				if i++; i >= len(args) || args[i] == ":" {
					return nil, errors.New("no program after --")
				}
			}
			// The program, then its arguments up to the next ':'.
			j := i + 1
			for j < len(args) && args[j] != ":" {
				j++
			}
			cur.prog, cur.args = args[i], args[i+1:j]
			o.sections = append(o.sections, cur)
			cur, afterColon = &section{}, j < len(args)
			i = j
			continue
		}
		name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		name, inline, hasInline := strings.Cut(name, "=")
		// value returns the option's argument: "-n=4" or "-n 4".
		value := func() (string, error) {
			if hasInline {
				return inline, nil
			}
			if i+1 >= len(args) || args[i+1] == ":" {
				return "", fmt.Errorf("option %s needs a value", a)
			}
			i++
			return args[i], nil
		}
		// flag refuses a value for an option that takes none.
		flag := func() error {
			if hasInline {
				return fmt.Errorf("option -%s takes no value", name)
			}
			return nil
		}
		// pair returns the two arguments of -env/-genv.
		pair := func() ([2]string, error) {
			if hasInline {
				return [2]string{}, fmt.Errorf("option -%s takes two arguments: -%s NAME VALUE", name, name)
			}
			if i+2 >= len(args) {
				return [2]string{}, fmt.Errorf("option %s needs a name and a value", a)
			}
			k, v := args[i+1], args[i+2]
			i += 2
			if err := checkEnvName(k); err != nil {
				return [2]string{}, err
			}
			return [2]string{k, v}, nil
		}
		// list returns the names of -envlist/-genvlist.
		list := func() ([]string, error) {
			v, err := value()
			if err != nil {
				return nil, err
			}
			names := strings.Split(v, ",")
			for _, k := range names {
				if err := checkEnvName(k); err != nil {
					return nil, fmt.Errorf("option -%s: %w", name, err)
				}
			}
			return names, nil
		}
		var err error
		switch name {
		case "h", "help":
			return nil, errHelp
		case "n", "np":
			var v string
			if v, err = value(); err == nil {
				n, aerr := strconv.Atoi(v)
				if aerr != nil || n < 1 || n > maxRanks {
					return nil, fmt.Errorf("bad number of processes %q (want 1 to %d)", v, maxRanks)
				}
				cur.n, cur.nSet = n, true
			}
		case "env":
			var kv [2]string
			if kv, err = pair(); err == nil {
				cur.env = append(cur.env, kv)
			}
		case "genv":
			var kv [2]string
			if kv, err = pair(); err == nil {
				o.genv = append(o.genv, kv)
			}
		case "envall", "envnone", "genvall", "genvnone":
			if err = flag(); err == nil {
				p := envPolicy{set: true, mode: envAll}
				if strings.HasSuffix(name, "none") {
					p.mode = envNone
				}
				if name[0] == 'g' {
					o.gpol = p
				} else {
					cur.pol = p
				}
			}
		case "envlist", "genvlist":
			var names []string
			if names, err = list(); err == nil {
				p := envPolicy{set: true, mode: envList, list: names}
				if name[0] == 'g' {
					o.gpol = p
				} else {
					cur.pol = p
				}
			}
		case "wdir":
			if cur.wdir, err = value(); err == nil && cur.wdir == "" {
				err = errors.New("option -wdir needs a directory")
			}
		case "timeout":
			o.timeoutFlag, err = value()
		case "pmi-port":
			if err = flag(); err == nil {
				o.pmiPort = true
			}
		case "ppn":
			var v string
			if v, err = value(); err == nil {
				n, aerr := strconv.Atoi(v)
				if aerr != nil || n < 1 || n > maxRanks {
					return nil, fmt.Errorf("bad -ppn %q (want 1 to %d processes per node)", v, maxRanks)
				}
				o.ppn = n
			}
		case "bind-to":
			var v string
			if v, err = value(); err == nil {
				if !contains(bindLevels, v) {
					return nil, fmt.Errorf("bad -bind-to %q (want one of %s)", v, strings.Join(bindLevels, ", "))
				}
				o.bind = v
			}
		case "l", "prepend-rank":
			if err = flag(); err == nil {
				o.prepend = true
			}
		case "outfile-pattern", "errfile-pattern":
			var v string
			if v, err = value(); err == nil {
				if _, perr := expandPattern(v, 0); perr != nil {
					return nil, fmt.Errorf("bad -%s %q: %v", name, v, perr)
				}
				if name[0] == 'o' {
					o.outPattern = v
				} else {
					o.errPattern = v
				}
			}
		case "hosts", "host":
			var v string
			if v, err = value(); err == nil {
				o.hosts, o.hostfile, o.hostOpt = nil, "", "-"+name
				for _, h := range strings.Split(v, ",") {
					if _, _, herr := splitHost(h); herr != nil {
						return nil, fmt.Errorf("bad -%s %q: %v", name, v, herr)
					}
					o.hosts = append(o.hosts, h)
				}
			}
		case "f", "hostfile", "machinefile":
			var v string
			if v, err = value(); err == nil {
				hosts, ferr := readHostfile(v)
				if ferr != nil {
					return nil, fmt.Errorf("option -%s: %v", name, ferr)
				}
				o.hosts, o.hostfile, o.hostOpt = hosts, v, "-"+name
			}
		default:
			return nil, fmt.Errorf("unknown option %s", a)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(o.sections) == 0 {
		return nil, errors.New("no program to run")
	}
	if afterColon || cur.nSet || cur.env != nil || cur.pol.set || cur.wdir != "" {
		return nil, errors.New("no program after the last ':'")
	}
	// -wdir before the first program holds for every section (Hydra's
	// -wdir is global); a section's own -wdir holds for that section.
	for _, s := range o.sections[1:] {
		if s.wdir == "" {
			s.wdir = o.sections[0].wdir
		}
	}
	src, text := "-timeout", o.timeoutFlag
	if text == "" {
		src, text = "MPIEXEC_TIMEOUT", getenv("MPIEXEC_TIMEOUT")
	}
	if text != "" {
		s, err := strconv.ParseFloat(text, 64)
		if err != nil || s < 0 || s > 1e9 || s != s {
			return nil, fmt.Errorf("bad %s %q (want seconds)", src, text)
		}
		o.timeout = time.Duration(s * float64(time.Second))
		o.timeoutText = text
	}
	return o, nil
}

// setCounts gives the sections without -n their number of ranks, as Hydra
// does on one node: -ppn's count, else the hosts' slots, else 1; it checks
// that -ppn fits the job on this one node. It returns the job size.
func (o *options) setCounts() (int, error) {
	total := 0
	for _, s := range o.sections {
		if !s.nSet {
			s.n = 1
			if len(o.sections) == 1 {
				if o.ppn > 0 {
					s.n = o.ppn
				} else if len(o.hosts) > 0 {
					s.n = 0
					for _, h := range o.hosts {
						_, c, _ := splitHost(h)
						s.n += c
					}
				}
			}
		}
		total += s.n
	}
	if total > maxRanks {
		return 0, fmt.Errorf("%d processes in all (want at most %d)", total, maxRanks)
	}
	if o.ppn > 0 && total > o.ppn {
		return 0, fmt.Errorf("-n %d with -ppn %d needs %d nodes, and mpixexec runs jobs on this node only "+
			"(use mpiexec.hydra -hosts ... for several nodes)", total, o.ppn, (total+o.ppn-1)/o.ppn)
	}
	return total, nil
}

// checkEnvName refuses names that cannot be environment variables.
func checkEnvName(k string) error {
	if k == "" || strings.ContainsAny(k, "=\x00") {
		return fmt.Errorf("bad environment variable name %q", k)
	}
	return nil
}

// splitHost splits Hydra's "name[:count]" (count 1 when absent). An IPv6
// address is written bare ("::1", no count) or in brackets ("[::1]:2").
func splitHost(h string) (string, int, error) {
	name, count, hasCount := h, "", false
	if strings.HasPrefix(h, "[") {
		end := strings.Index(h, "]")
		if end < 0 {
			return "", 0, fmt.Errorf("bad host %q", h)
		}
		name, count = h[1:end], h[end+1:]
		if count != "" {
			if count, hasCount = strings.CutPrefix(count, ":"); !hasCount {
				return "", 0, fmt.Errorf("bad host %q", h)
			}
		}
	} else if strings.Count(h, ":") == 1 {
		name, count, hasCount = strings.Cut(h, ":")
	}
	if name == "" {
		return "", 0, errors.New("empty host name")
	}
	if !hasCount {
		return name, 1, nil
	}
	c, err := strconv.Atoi(count)
	if err != nil || c < 1 || c > maxRanks {
		return "", 0, fmt.Errorf("bad process count %q for host %s", count, name)
	}
	return name, c, nil
}

// readHostfile reads a Hydra host file: one "name[:count]" a line, before
// any other words (Hydra's per-host settings); '#' starts a comment.
func readHostfile(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var hosts []string
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		if _, _, err := splitHost(fields[0]); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		hosts = append(hosts, fields[0])
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(hosts) == 0 {
		return nil, fmt.Errorf("%s names no host", path)
	}
	return hosts, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
