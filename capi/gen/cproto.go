package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// protoLine matches the one-line prototypes of include/mpix.h and legacy.h:
// "int MPIX_Name(type a, type b);". Profiling twins (PMPI...) are skipped: the shim
// defines them itself.
var protoLine = regexp.MustCompile(`^(int|double|MPI_Aint) (MPIX?_[A-Za-z0-9_]+)\((.*)\);`)

// typeKind infers a parameter kind from its C type so that extensions get the same
// handle resolution and pointer checks as standard procedures.
var typeKind = map[string]string{
	"MPI_Comm": "COMMUNICATOR", "MPI_Info": "INFO", "MPI_Datatype": "DATATYPE",
	"MPI_Win": "WINDOW", "MPI_Group": "GROUP", "MPI_Request": "REQUEST", "MPI_Op": "OPERATION",
	"MPI_Errhandler": "ERRHANDLER", "MPI_Session": "SESSION", "MPI_Status": "STATUS",
}

// featureLine matches the marker that opens a feature's prototypes in include/mpix.h:
// "/* feature MPIX_HAVE_THREADCOMM */". Each prototype belongs to the last marker
// above it; the feature test (features.go) checks those of every defined macro.
var featureLine = regexp.MustCompile(`^/\* feature (MPIX_HAVE_[A-Z0-9_]+) \*/$`)

// loadProtoFile parses the one-line prototypes of a header. A missing file yields none.
func loadProtoFile(path string, ext bool) ([]*Proc, error) {
	fh, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	var procs []*Proc
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	feature := ""
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if m := featureLine.FindStringSubmatch(line); m != nil {
			feature = m[1]
			continue
		}
		m := protoLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		f := &Proc{Name: m[2], Ret: m[1], Ext: ext, Feature: feature}
		if strings.TrimSpace(m[3]) != "void" && strings.TrimSpace(m[3]) != "" {
			for _, ps := range strings.Split(m[3], ",") {
				p, err := parseParam(strings.TrimSpace(ps))
				if err != nil {
					return nil, fmt.Errorf("%s:%d: %s: %w", path, n, f.Name, err)
				}
				f.Params = append(f.Params, p)
			}
		}
		procs = append(procs, f)
	}
	return procs, sc.Err()
}

// parseParam parses "const MPI_Datatype types[]" or "int *flag".
func parseParam(s string) (Param, error) {
	var p Param
	if s == "..." {
		p.Varargs = true
		return p, nil
	}
	if strings.HasPrefix(s, "const ") {
		p.Const = true
		s = strings.TrimSpace(s[len("const "):])
	}
	if strings.HasSuffix(s, "[]") {
		p.Array = true
		s = strings.TrimSpace(strings.TrimSuffix(s, "[]"))
	}
	i := strings.LastIndexAny(s, " *")
	if i < 0 {
		return p, fmt.Errorf("parameter %q has no name", s)
	}
	p.Name = s[i+1:]
	typ := strings.TrimSpace(s[:i+1])
	for strings.HasSuffix(typ, "*") {
		p.Ptr++
		typ = strings.TrimSpace(strings.TrimSuffix(typ, "*"))
	}
	p.Base = typ
	p.Kind = typeKind[typ]
	if p.Kind == "" && typ != "void" && typ != "char" {
		p.Kind = "SCALAR" // int, MPI_Aint...: an output of this type must not be NULL
	}
	p.Dir = "in"
	if (p.Ptr > 0 || p.Array) && !p.Const && p.Base != "void" && p.Base != "char" {
		p.Dir = "out"
	}
	return p, nil
}
