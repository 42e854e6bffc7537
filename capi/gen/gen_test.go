package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const root = "../.."

func apisPath(t *testing.T) string {
	return filepath.Join(root, "capi", "gen", "apis.json")
}

func loadAll(t *testing.T) map[string]*Proc {
	procs, err := loadAPIs(apisPath(t))
	require.NoError(t, err)
	legacy, err := loadProtoFile(filepath.Join(root, "capi", "gen", "legacy.h"), false)
	require.NoError(t, err)
	mpi41, err := loadProtoFile(filepath.Join(root, "capi", "gen", "mpi41.h"), false)
	require.NoError(t, err)
	ext, err := loadProtoFile(filepath.Join(root, "include", "mpix.h"), true)
	require.NoError(t, err)
	m := map[string]*Proc{}
	for _, f := range append(append(append(procs, legacy...), mpi41...), ext...) {
		m[f.Name] = f
	}
	return m
}

// The C bindings the standard prints, for procedures that exercise every rule of the
// kind mapping (arrays, out pointers, const, large counts, callbacks, varargs, 2-D
// arrays, argv forms).
func TestPrototypes(t *testing.T) {
	all := loadAll(t)
	tests := []struct{ name, want string }{
		{"MPI_Send", "int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)"},
		{"MPI_Send_c", "int MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)"},
		{"MPI_Recv", "int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)"},
		// Status arrays deliberately as pointers (Param.Decl: gcc's -Wstringop-overflow).
		{"MPI_Waitall", "int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status *array_of_statuses)"},
		{"MPI_Init", "int MPI_Init(int *argc, char ***argv)"},
		{"MPI_Info_create_env", "int MPI_Info_create_env(int argc, char *argv[], MPI_Info *info)"},
		{"MPI_Group_range_incl", "int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)"},
		{"MPI_Op_create_c", "int MPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)"},
		{"MPI_Allgatherv_c", "int MPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm)"},
		{"MPI_Pcontrol", "int MPI_Pcontrol(const int level, ...)"},
		{"MPI_Wtime", "double MPI_Wtime(void)"},
		{"MPI_Comm_c2f", "MPI_Fint MPI_Comm_c2f(MPI_Comm comm)"},
		{"MPI_Error_string", "int MPI_Error_string(int errorcode, char string[], int *resultlen)"},
		{"MPI_Type_create_f90_real", "int MPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)"},
		{"MPI_Type_get_contents_c", "int MPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses, MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[])"},
		{"MPI_Type_struct", "int MPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[], MPI_Datatype array_of_types[], MPI_Datatype *newtype)"},
		{"MPIX_Threadcomm_init", "int MPIX_Threadcomm_init(MPI_Comm comm, int num_threads, MPI_Comm *newthreadcomm)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, ok := all[tc.name]
			require.True(t, ok, "procedure %s not found", tc.name)
			require.Equal(t, tc.want, f.Prototype(f.Name))
		})
	}
}

func TestParseParam(t *testing.T) {
	tests := []struct {
		in   string
		want Param
	}{
		{"int *flag", Param{Name: "flag", Base: "int", Ptr: 1, Dir: "out", Kind: "SCALAR"}},
		{"MPI_Comm comm", Param{Name: "comm", Base: "MPI_Comm", Kind: "COMMUNICATOR", Dir: "in"}},
		{"const void *buf", Param{Name: "buf", Base: "void", Ptr: 1, Const: true, Dir: "in"}},
		{"MPI_Comm out_comm_handles[]", Param{Name: "out_comm_handles", Base: "MPI_Comm", Array: true, Kind: "COMMUNICATOR", Dir: "out"}},
		{"const char *ops", Param{Name: "ops", Base: "char", Ptr: 1, Const: true, Dir: "in"}},
		{"...", Param{Varargs: true}},
		// mpi41.h's annotations: an array's length, a parameter's apis.json kind.
		{"const MPI_Request array_of_requests[count]", Param{Name: "array_of_requests", Base: "MPI_Request", Const: true, Array: true,
			Length: "count", Kind: "REQUEST", Dir: "in"}},
		{"int array_of_indices[incount] /* INDEX */", Param{Name: "array_of_indices", Base: "int", Array: true,
			Length: "incount", Kind: "INDEX", Dir: "out"}},
	}
	for _, tc := range tests {
		got, err := parseParam(tc.in)
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
	_, err := parseParam("int")
	require.Error(t, err)
}

// The MPI-4.1 completion calls declared in mpi41.h know their arrays' lengths as
// apis.json's MPI_Test* do: the same NULL-array checks (MPI_ERR_ARG with a positive
// count), in the shim and in Go; mpi.h still declares the arrays as "name[]".
func TestMPI41CompletionArrays(t *testing.T) {
	all := loadAll(t)
	for name, like := range map[string]string{
		"MPI_Request_get_status_all":  "MPI_Testall",
		"MPI_Request_get_status_any":  "MPI_Testany",
		"MPI_Request_get_status_some": "MPI_Testsome",
	} {
		f, g := all[name], all[like]
		require.NotNil(t, f, name)
		require.NotNil(t, g, like)
		require.NotEmpty(t, shimGuard(f), name)
		require.Equal(t, shimGuard(g), shimGuard(f), "%s checks its arrays unlike %s", name, like)
		require.Equal(t, f.Params[0].Name, f.Params[1].Length, "%s: the length of array_of_requests", name)
		require.Equal(t, "ARRAY_LENGTH_NNI", f.Params[0].Kind, name)
		require.NotContains(t, f.Prototype(f.Name), "[count]", name)
		require.NotContains(t, f.Prototype(f.Name), "INDEX", name)
	}

	// A length that names no integer parameter is an error in the header.
	path := filepath.Join(t.TempDir(), "bad.h")
	require.NoError(t, os.WriteFile(path, []byte("int MPI_X(int n, const MPI_Request r[count]);\n"), 0o644))
	_, err := loadProtoFile(path, false)
	require.ErrorContains(t, err, "count")
}

// Every generated prototype must be compatible with MPICH's own declaration of the same
// procedure: the C compiler rejects conflicting redeclarations.
func TestPrototypesMatchMPICH(t *testing.T) {
	const mpich = "/usr/include/x86_64-linux-gnu/mpich"
	if _, err := os.Stat(filepath.Join(mpich, "mpi.h")); err != nil {
		skipDep(t, "MPICH's header is not installed (libmpich-dev)")
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found")
	}
	all := loadAll(t)
	var b strings.Builder
	b.WriteString("#include <mpi.h>\n")
	skipped := map[string]bool{
		"MPI_Pready_list": true, // MPICH 4.0.2 lacks the standard's const
	}
	mpi41, err := loadProtoFile(filepath.Join(root, "capi", "gen", "mpi41.h"), false)
	require.NoError(t, err)
	for _, f := range mpi41 {
		skipped[f.Name] = true // MPICH 4.0.2 predates MPI-4.1
	}
	for name, f := range all {
		// MPICH defines the handle conversions as macros; extensions are ours alone.
		if f.Ext || strings.HasSuffix(name, "_c2f") || strings.HasSuffix(name, "_f2c") || skipped[name] {
			continue
		}
		b.WriteString(f.Prototype(f.Name) + ";\n")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "protos.c")
	require.NoError(t, os.WriteFile(src, []byte(b.String()), 0o644))
	out, err := exec.Command("gcc", "-fsyntax-only", "-I", mpich, src).CombinedOutput()
	require.NoError(t, err, "generated prototypes conflict with MPICH's:\n%s", out)
}

// The committed generated files must be what the generator writes now.
func TestGeneratedFilesUpToDate(t *testing.T) {
	apis := apisPath(t)
	tmp := t.TempDir()
	for _, rel := range []string{"include/mpi.h", "include/mpix.h", "capi/gen/legacy.h", "capi/gen/mpi41.h", "capi/gen/fastpaths.txt"} {
		data, err := os.ReadFile(filepath.Join(root, rel))
		if os.IsNotExist(err) {
			continue
		}
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Join(tmp, filepath.Dir(rel)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(tmp, rel), data, 0o644))
	}
	goFiles, err := filepath.Glob(filepath.Join(root, "capi", "*.go"))
	require.NoError(t, err)
	for _, g := range goFiles {
		data, err := os.ReadFile(g)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(tmp, "capi", filepath.Base(g)), data, 0o644))
	}
	require.NoError(t, run(tmp, apis, false, ""))
	for _, rel := range []string{"include/mpi.h", "capi/zshim.c", "capi/zfast.h", "capi/zexports.go",
		"ctests/generated/unimplemented.c", "ctests/generated/features.c"} {
		want, err := os.ReadFile(filepath.Join(tmp, rel))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(root, rel))
		require.NoError(t, err)
		require.True(t, string(want) == string(got), "%s is stale: run `make generate`", rel)
	}
}

// Every procedure with an implementation is exercised by at least one C test.
func TestImplementedProceduresHaveCTests(t *testing.T) {
	var sources []string
	err := filepath.WalkDir(filepath.Join(root, "ctests"), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "generated" {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, ".c") {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			sources = append(sources, string(data))
		}
		return nil
	})
	require.NoError(t, err)
	all := strings.Join(sources, "\n")
	// Exports derived from a twin's implementation (deriveFromLarge) count too.
	have, generic, err := scanImpls(filepath.Join(root, "capi"))
	require.NoError(t, err)
	var procs []*Proc
	for _, f := range loadAll(t) {
		procs = append(procs, f)
	}
	sortProcs(procs)
	for name := range deriveFromLarge(procs, have, generic) {
		have[name] = true
	}
	for name := range have {
		re := regexp.MustCompile(`\b` + name + `\(`)
		require.True(t, re.MatchString(all), "%s is implemented but no C test in ctests/ calls it", name)
	}
}

// Every feature-test macro mpix.h defines covers only implemented procedures (the
// generated ctest features.c checks the same against the built library).
func TestDefinedFeaturesAreImplemented(t *testing.T) {
	all := loadAll(t)
	defined, err := definedFeatures(filepath.Join(root, "include", "mpix.h"))
	require.NoError(t, err)
	require.NotEmpty(t, defined)
	have, generic, err := scanImpls(filepath.Join(root, "capi"))
	require.NoError(t, err)
	var procs []*Proc
	for _, f := range all {
		procs = append(procs, f)
	}
	sortProcs(procs)
	via := deriveFromLarge(procs, have, generic)
	for _, f := range procs {
		if f.Ext && defined[f.Feature] {
			require.True(t, have[f.Name] || via[f.Name] != "", "mpix.h defines %s but %s is not implemented", f.Feature, f.Name)
		}
	}
}

// The fast paths the shim calls (capi/zfast.h, from fastpaths.txt) are the ones the C
// data plane defines: every header in the repository that declares an mpix_fast_MPI_*
// function must name only listed procedures and compile together with zfast.h (the
// compiler rejects conflicting declarations), wherever that header lives.
func TestFastPathsAgreeWithC(t *testing.T) {
	all := loadAll(t)
	var procs []*Proc
	for _, f := range all {
		procs = append(procs, f)
	}
	sortProcs(procs)
	fast, err := loadFastPaths(filepath.Join(root, "capi", "gen", "fastpaths.txt"), procs)
	require.NoError(t, err)
	require.NotEmpty(t, fast)
	decl := regexp.MustCompile(`(?m)^int mpix_fast_(MPIX?_\w+)\(`)
	var headers []string
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "build" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(path, ".h") || filepath.Base(path) == "zfast.h" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllStringSubmatch(string(data), -1) {
			require.True(t, fast[m[1]], "%s declares mpix_fast_%s, which capi/gen/fastpaths.txt does not list", path, m[1])
			if len(headers) == 0 || headers[len(headers)-1] != path {
				headers = append(headers, path)
			}
		}
		return nil
	})
	require.NoError(t, err)
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found")
	}
	var b strings.Builder
	// The C files that include these headers include the C library's first.
	b.WriteString("#include <stddef.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include \"zfast.h\"\n")
	args := []string{"-fsyntax-only", "-I", filepath.Join(root, "include"), "-I", filepath.Join(root, "capi")}
	for _, h := range headers {
		abs, err := filepath.Abs(h)
		require.NoError(t, err)
		fmt.Fprintf(&b, "#include \"%s\"\n", abs)
		args = append(args, "-I", filepath.Dir(abs))
	}
	src := filepath.Join(t.TempDir(), "fast.c")
	require.NoError(t, os.WriteFile(src, []byte(b.String()), 0o644))
	out, err := exec.Command("gcc", append(args, src)...).CombinedOutput()
	require.NoError(t, err, "capi/zfast.h disagrees with %v:\n%s", headers, out)
}

// A _c twin whose count arrays differ from its int form's calls the int form's
// implementation when that is generic, and the reverse; a non-generic one is not used
// for array counts, and scalar-only twins still widen into impl_X_c.
func TestDeriveFromLarge(t *testing.T) {
	parse := func(name, params string) *Proc {
		f := &Proc{Name: name, Ret: "int"}
		for _, ps := range strings.Split(params, ", ") {
			p, err := parseParam(ps)
			require.NoError(t, err)
			f.Params = append(f.Params, p)
		}
		return f
	}
	gv := parse("MPI_Gatherv", "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm")
	gvc := parse("MPI_Gatherv_c", "const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root, MPI_Comm comm")
	bc := parse("MPI_Bcast", "void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm")
	bcc := parse("MPI_Bcast_c", "void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm")
	gc := parse("MPI_Get_count", "const MPI_Status *status, MPI_Datatype datatype, int *count")
	gcc := parse("MPI_Get_count_c", "const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count")
	procs := []*Proc{bc, bcc, gc, gcc, gv, gvc}
	tests := []struct {
		name          string
		have, generic []string
		want          map[string]string
	}{
		{"generic int form", []string{"MPI_Gatherv"}, []string{"MPI_Gatherv"}, map[string]string{"MPI_Gatherv_c": "MPI_Gatherv"}},
		{"generic _c form", []string{"MPI_Gatherv_c"}, []string{"MPI_Gatherv_c"}, map[string]string{"MPI_Gatherv": "MPI_Gatherv_c"}},
		{"array counts need a generic impl", []string{"MPI_Gatherv"}, nil, map[string]string{}},
		{"scalar widening", []string{"MPI_Bcast_c"}, nil, map[string]string{"MPI_Bcast": "MPI_Bcast_c"}},
		{"output counts are not widened", []string{"MPI_Get_count_c"}, []string{"MPI_Get_count_c"}, map[string]string{}},
		{"both implemented", []string{"MPI_Gatherv", "MPI_Gatherv_c"}, []string{"MPI_Gatherv"}, map[string]string{}},
	}
	set := func(names []string) map[string]bool {
		m := map[string]bool{}
		for _, n := range names {
			m[n] = true
		}
		return m
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, deriveFromLarge(procs, set(tc.have), set(tc.generic)))
		})
	}
}

// TestLateCounts: a count beside a datatype that MPI_IN_PLACE or not being the root
// makes insignificant is not refused by the generated export (core checks it where it
// matters); every other count still is.
func TestLateCounts(t *testing.T) {
	for _, c := range []struct {
		param string
		late  bool
	}{
		{"MPI_Igather.sendcount", true}, {"MPI_Gather_init_c.recvcount", true},
		{"MPI_Scatter.recvcount", true}, {"MPI_Scatterv.recvcount", true},
		{"MPI_Allgather.sendcount", true}, {"MPI_Ialltoall.sendcount", true},
		{"MPI_Allgather.recvcount", false}, {"MPI_Alltoall.recvcount", false},
		{"MPI_Bcast.count", false}, {"MPI_Reduce.count", false}, {"MPI_Send.count", false},
	} {
		if lateCount[c.param] != c.late {
			t.Errorf("lateCount[%s] = %v, want %v", c.param, lateCount[c.param], c.late)
		}
	}
}

// Each C fast path runs between a store of its call's name into mpix_fast_call and a
// store of NULL (capi/fault.c names the call of a memory fault by it); a procedure
// without a fast path touches no marker.
func TestShimMarksFastPaths(t *testing.T) {
	all := loadAll(t)
	for _, c := range []struct {
		name  string
		fast  bool
		guard bool // an address check (__builtin_expect) before the call
	}{
		{"MPI_Send", true, true},
		{"MPI_Barrier", true, false},
		{"MPI_Reduce", false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := all[c.name]
			require.NotNil(t, f)
			out := string(emitShim([]*Proc{f}, map[string]bool{c.name: c.fast}))
			if !c.fast {
				require.NotContains(t, out, "mpix_fast_call")
				return
			}
			set := strings.Index(out, fmt.Sprintf("mpix_fast_call = %q;", c.name))
			call := strings.Index(out, "mpix_fast_"+c.name+"(")
			clear := strings.Index(out, "mpix_fast_call = NULL;")
			miss := strings.Index(out, "if (rc != MPIX_FAST_MISS)")
			require.True(t, set >= 0 && set < call && call < clear && clear < miss,
				"marker stores around the fast call, before the miss test:\n%s", out)
			require.Equal(t, c.guard, strings.Contains(out[set:clear], "__builtin_expect"), out)
		})
	}
}
