package apispec

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

// LoadProtoFile parses the one-line prototypes of a header. A missing file yields none.
func LoadProtoFile(path string, ext bool) ([]*Proc, error) {
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
				p, err := ParseParam(strings.TrimSpace(ps))
				if err != nil {
					return nil, fmt.Errorf("%s:%d: %s: %w", path, n, f.Name, err)
				}
				f.Params = append(f.Params, p)
			}
		}
		if err := markLengths(f); err != nil {
			return nil, fmt.Errorf("%s:%d: %s: %w", path, n, f.Name, err)
		}
		procs = append(procs, f)
	}
	return procs, sc.Err()
}

// The array lengths and kinds that apis.json gives and a C prototype cannot, written
// in capi/gen/mpi41.h (never compiled: include/mpi.h gets the standard's "name[]"):
// "MPI_Request array_of_requests[count]" says that count counts the array (Length;
// count becomes an ARRAY_LENGTH_NNI, as in apis.json), a trailing "/* INDEX */" names
// the parameter's apis.json kind. The generated NULL-array checks (nullargs.go) read
// both, so MPI_Request_get_status_all gets MPI_Testall's.
var (
	arrayLength = regexp.MustCompile(`^(.*)\[([A-Za-z_][A-Za-z0-9_]*)\]$`)
	kindComment = regexp.MustCompile(`^(.*?)\s*/\*\s*([A-Z_]+)\s*\*/$`)
)

// ParseParam parses "const MPI_Datatype types[]", "int *flag", or with mpi41.h's
// annotations "int array_of_indices[incount] /* INDEX */".
func ParseParam(s string) (Param, error) {
	var p Param
	if s == "..." {
		p.Varargs = true
		return p, nil
	}
	kind := ""
	if m := kindComment.FindStringSubmatch(s); m != nil {
		s, kind = m[1], m[2]
	}
	if strings.HasPrefix(s, "const ") {
		p.Const = true
		s = strings.TrimSpace(s[len("const "):])
	}
	if strings.HasSuffix(s, "[]") {
		p.Array = true
		s = strings.TrimSpace(strings.TrimSuffix(s, "[]"))
	} else if m := arrayLength.FindStringSubmatch(s); m != nil {
		p.Array, p.Length = true, m[2]
		s = strings.TrimSpace(m[1])
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
	if kind != "" {
		p.Kind = kind
	}
	p.Dir = "in"
	if (p.Ptr > 0 || p.Array) && !p.Const && p.Base != "void" && p.Base != "char" {
		p.Dir = "out"
	}
	return p, nil
}

// markLengths makes each integer parameter that an array names as its length an
// ARRAY_LENGTH_NNI, the kind apis.json gives the count of a completion call's arrays.
// A length that is no integer parameter is a mistake in the header.
func markLengths(f *Proc) error {
	for _, a := range f.Params {
		if a.Length == "" {
			continue
		}
		found := false
		for i, p := range f.Params {
			if p.Name == a.Length && p.Levels() == 0 && (p.Kind == "SCALAR" || p.Kind == "ARRAY_LENGTH_NNI") {
				f.Params[i].Kind, found = "ARRAY_LENGTH_NNI", true
			}
		}
		if !found {
			return fmt.Errorf("the length of %s, %s, is not an integer parameter", a.Name, a.Length)
		}
	}
	return nil
}
