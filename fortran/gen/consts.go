package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// Const is one named constant Fortran sees: an INTEGER, a LOGICAL (Logical) or, for
// the info keys and values of include/mpix.h, a CHARACTER string (Str, IsStr).
type Const struct {
	Name  string
	Int   int64 // C's value as a default INTEGER (MPICH's handles above 2^31 wrap)
	F     int64 // Fortran's value: C's, except where MPICH's Fortran differs (fortranValue)
	Str   string
	IsStr bool
	// Logical is a LOGICAL constant's value, ".TRUE." or ".FALSE." ("" for others).
	Logical string
	// Handle is the C handle type of a handle constant (MPI_Comm for MPI_COMM_WORLD),
	// module mpi_f08's TYPE; "" for the others.
	Handle string
	// Section is the title of the banner of include/mpi.h above the definition.
	Section string
}

// Sections of include/mpi.h whose constants Fortran sees differently.
const stringLimits = "String length limits"

// fortranValue is the value Fortran sees, with MPICH's two differences from C, both
// by rule rather than by table: string length limits count no terminating NUL (C's
// MPI_MAX_OBJECT_NAME is 128, Fortran's 127), and a predefined attribute keyval
// (MPICH's handle encoding: builtin, object kind 9; C's are odd) is one more than C's,
// so that the library knows an attribute query came from Fortran and returns the
// value, not C's pointer to it.
func fortranValue(k Const) int64 {
	v := uint32(k.Int)
	switch {
	case strings.HasPrefix(k.Section, stringLimits):
		return k.Int - 1
	case v>>30 == 1 && (v>>26)&0xf == 9 && v&1 == 1:
		return k.Int + 1
	}
	return k.Int
}

var (
	defineLine = regexp.MustCompile(`^#define\s+([A-Z][A-Za-z0-9_]*)\s+(.+?)\s*(/\*.*)?$`)
	enumLine   = regexp.MustCompile(`^([A-Z][A-Z0-9_]*)\s*=\s*([-0-9A-Fa-fx]+)\s*,?\s*(/\*.*)?$`)
	castPrefix = regexp.MustCompile(`^\((MPI_[A-Za-z]+)\)`)
	typedefInt = regexp.MustCompile(`^typedef\s+(long long|long|int)\s+(MPI_Aint|MPI_Offset|MPI_Count|MPI_Fint);`)
)

// handleTypes are the casts whose value Fortran sees as an INTEGER handle. MPI_File
// is a pointer in C, but its null is 0 and Fortran's file handles are integers.
var handleTypes = map[string]bool{"MPI_Comm": true, "MPI_Group": true, "MPI_Datatype": true,
	"MPI_Op": true, "MPI_Errhandler": true, "MPI_Info": true, "MPI_Request": true,
	"MPI_Message": true, "MPI_Win": true, "MPI_Session": true, "MPI_File": true}

// skipConst says which C names are not Fortran constants: the tools interface (no
// Fortran binding), C-side Fortran interop (MPI_F_*, which give the Fortran names below
// their values), the MPIO request compatibility names, printf formats and feature
// macros (the C preprocessor's).
func skipConst(name string) bool {
	for _, p := range []string{"MPI_T_", "MPI_F_", "MPIO_", "PMPI", "MPI_AINT_FMT", "MPIX_HAVE_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return strings.HasSuffix(name, "_INCLUDED") || name == "MPI_FILE_DEFINED"
}

// Constants is what the Fortran side needs from the C headers: the constants, in the
// headers' order, and the byte sizes of MPI_Aint, MPI_Offset, MPI_Count and MPI_Fint.
type Constants struct {
	List  []Const
	Sizes map[string]int
	byKey map[string]Const
	// interop holds C's MPI_F_* integers, which are not Fortran constants themselves.
	interop map[string]int64
}

// Lookup returns the constant named name.
func (c *Constants) Lookup(name string) (Const, bool) {
	k, ok := c.byKey[name]
	return k, ok
}

// loadConstants parses the #define and enum constants of the headers, in order. A
// value is an integer literal, a cast integer literal, a parenthesized negative, a
// string (mpix.h's info keys) or the name of an earlier constant; anything else
// (pointer sentinels, function pointers, expressions) is not a Fortran constant.
func loadConstants(paths ...string) (*Constants, error) {
	c := &Constants{Sizes: map[string]int{}, byKey: map[string]Const{}, interop: map[string]int64{}}
	size := map[string]int{"int": 4, "long": 8, "long long": 8}
	for _, path := range paths {
		fh, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		inEnum, banner, section := false, false, ""
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			// a banner: "/* ====", " * Title", " * ==== */"
			switch {
			case strings.HasPrefix(line, "/* ===="):
				banner = true
				continue
			case banner:
				section, banner = strings.TrimSpace(strings.TrimPrefix(line, "*")), false
				continue
			}
			if m := typedefInt.FindStringSubmatch(line); m != nil {
				c.Sizes[m[2]] = size[m[1]]
			}
			switch {
			case strings.HasPrefix(line, "enum ") || strings.HasPrefix(line, "typedef enum "):
				inEnum = !strings.Contains(line, "}")
				continue
			case inEnum && strings.HasPrefix(line, "}"):
				inEnum = false
				continue
			}
			var name, val string
			if m := defineLine.FindStringSubmatch(line); m != nil {
				name, val = m[1], m[2]
			} else if m := enumLine.FindStringSubmatch(line); inEnum && m != nil {
				name, val = m[1], m[2]
			} else {
				continue
			}
			if skipConst(name) {
				if strings.HasPrefix(name, "MPI_F_") {
					if n, err := strconv.ParseInt(val, 0, 64); err == nil {
						c.interop[name] = n
					}
				}
				continue
			}
			k, ok := c.eval(name, val)
			if !ok {
				continue
			}
			k.Section = section
			k.F = fortranValue(k)
			if _, dup := c.byKey[name]; dup {
				return nil, fmt.Errorf("%s: %s defined twice", path, name)
			}
			c.byKey[name] = k
			c.List = append(c.List, k)
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	for _, t := range []string{"MPI_Aint", "MPI_Offset", "MPI_Count", "MPI_Fint"} {
		if c.Sizes[t] == 0 {
			return nil, fmt.Errorf("no typedef of %s in %v", t, paths)
		}
	}
	return c, c.checkFolding()
}

// eval turns a #define's value into a constant, or reports that it is none.
func (c *Constants) eval(name, val string) (Const, bool) {
	if strings.HasPrefix(val, `"`) {
		s, err := strconv.Unquote(val)
		if err != nil || strings.ContainsAny(s, "%'") {
			return Const{}, false // printf formats are C's alone
		}
		return Const{Name: name, Str: s, IsStr: true}, true
	}
	handle := ""
	for {
		v := strings.TrimSpace(val)
		if m := castPrefix.FindStringSubmatch(v); m != nil {
			if !handleTypes[m[1]] {
				return Const{}, false
			}
			handle = m[1]
			v = strings.TrimSpace(v[len(m[0]):])
		}
		if strings.HasPrefix(v, "(") && strings.HasSuffix(v, ")") {
			val = v[1 : len(v)-1]
			continue
		}
		val = v
		break
	}
	if ref, ok := c.byKey[val]; ok {
		ref.Name = name
		return ref, true // F is recomputed from the new name's section
	}
	n, err := strconv.ParseInt(val, 0, 64)
	if err != nil {
		return Const{}, false
	}
	return Const{Name: name, Int: int64(int32(uint32(n))), Handle: handle}, true // a C int's bits
}

// checkFolding rejects two constants that only their case tells apart: Fortran names
// are case-insensitive.
func (c *Constants) checkFolding() error {
	seen := map[string]string{}
	for _, k := range c.List {
		u := strings.ToUpper(k.Name)
		if o, ok := seen[u]; ok && o != k.Name {
			return fmt.Errorf("constants %s and %s are one name in Fortran", o, k.Name)
		}
		seen[u] = k.Name
	}
	return nil
}

// fortranOnly are the constants Fortran has and C has not, from C's values: the
// status array's size and 1-based field indices (C's MPI_F_* give them 0-based), and
// the integer kinds (the byte sizes of C's typedefs).
func (c *Constants) fortranOnly() ([]Const, error) {
	var out []Const
	for _, f := range []struct {
		name, from string
		add        int64
	}{{"MPI_STATUS_SIZE", "MPI_F_STATUS_SIZE", 0}, {"MPI_SOURCE", "MPI_F_SOURCE", 1},
		{"MPI_TAG", "MPI_F_TAG", 1}, {"MPI_ERROR", "MPI_F_ERROR", 1}} {
		v, ok := c.interop[f.from]
		if !ok {
			return nil, fmt.Errorf("include/mpi.h defines no %s", f.from)
		}
		out = append(out, Const{Name: f.name, Int: v + f.add, F: v + f.add})
	}
	kinds := [][2]string{{"MPI_ADDRESS_KIND", "MPI_Aint"}, {"MPI_OFFSET_KIND", "MPI_Offset"},
		{"MPI_COUNT_KIND", "MPI_Count"}, {"MPI_INTEGER_KIND", "MPI_Fint"}}
	for _, k := range kinds {
		n := int64(c.Sizes[k[1]])
		out = append(out, Const{Name: k[0], Int: n, F: n})
	}
	// What these bindings promise (MPI-4.1 §19.1.4, §19.1.17): choice buffers are
	// assumed-size, so array sections are copied, not described; nothing makes
	// nonblocking buffers ASYNCHRONOUS.
	out = append(out, Const{Name: "MPI_SUBARRAYS_SUPPORTED", Logical: ".FALSE."},
		Const{Name: "MPI_ASYNC_PROTECTS_NONBLOCKING", Logical: ".FALSE."})
	return out, nil
}
