package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mpix/internal/apispec"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name     string
		p        apispec.Param
		fromJSON bool
		class    argClass
		ftype    string
		dims     string
	}{
		{"choice buffer", apispec.Param{Name: "buf", Base: "void", Ptr: 1, Const: true, Kind: "BUFFER", Dir: "in"}, true, clChoice, "TYPE(*)", "(*)"},
		{"count by value", apispec.Param{Name: "count", Base: "int", Kind: "POLYXFER_NUM_ELEM_NNI", Dir: "in"}, true, clValue, "INTEGER", ""},
		{"handle by value", apispec.Param{Name: "comm", Base: "MPI_Comm", Kind: "COMMUNICATOR", Dir: "in"}, true, clValue, "INTEGER", ""},
		{"handle out", apispec.Param{Name: "newcomm", Base: "MPI_Comm", Ptr: 1, Kind: "COMMUNICATOR", Dir: "out"}, true, clRef, "INTEGER", ""},
		{"address", apispec.Param{Name: "disp", Base: "MPI_Aint", Kind: "DISPLACEMENT", Dir: "in"}, true, clValue, "INTEGER(KIND=MPI_ADDRESS_KIND)", ""},
		{"count kind", apispec.Param{Name: "c", Base: "MPI_Count", Ptr: 1, Kind: "XFER_NUM_ELEM", Dir: "out"}, true, clRef, "INTEGER(KIND=MPI_COUNT_KIND)", ""},
		{"offset kind", apispec.Param{Name: "o", Base: "MPI_Offset", Kind: "OFFSET", Dir: "in"}, true, clValue, "INTEGER(KIND=MPI_OFFSET_KIND)", ""},
		{"int array", apispec.Param{Name: "ranks", Base: "int", Array: true, Const: true, Kind: "RANK", Dir: "in"}, true, clRef, "INTEGER", "(*)"},
		{"ranges", apispec.Param{Name: "ranges", Base: "int", Array: true, Inner: "3", Kind: "RANK", Dir: "in"}, true, clRef, "INTEGER", "(3,*)"},
		{"logical in", apispec.Param{Name: "commute", Base: "int", Kind: "LOGICAL", Dir: "in"}, true, clLogicalIn, "LOGICAL", ""},
		{"logical out", apispec.Param{Name: "flag", Base: "int", Ptr: 1, Kind: "LOGICAL", Dir: "out"}, true, clLogicalOut, "LOGICAL", ""},
		{"logical array", apispec.Param{Name: "periods", Base: "int", Array: true, Kind: "LOGICAL", Dir: "in"}, true, clRef, "LOGICAL", "(*)"},
		{"flag of a C header", apispec.Param{Name: "flag", Base: "int", Ptr: 1, Kind: "SCALAR", Dir: "out"}, false, clLogicalOut, "LOGICAL", ""},
		{"string in", apispec.Param{Name: "name", Base: "char", Ptr: 1, Const: true, Kind: "STRING", Dir: "in"}, true, clStringIn, "CHARACTER(LEN=*)", ""},
		{"string out", apispec.Param{Name: "name", Base: "char", Array: true, Kind: "STRING", Dir: "out"}, true, clStringOut, "CHARACTER(LEN=*)", ""},
		{"status", apispec.Param{Name: "status", Base: "MPI_Status", Ptr: 1, Kind: "STATUS", Dir: "out"}, true, clStatus, "INTEGER", "(MPI_STATUS_SIZE)"},
		{"statuses", apispec.Param{Name: "s", Base: "MPI_Status", Array: true, Kind: "STATUS", Dir: "out"}, true, clStatus, "INTEGER", "(MPI_STATUS_SIZE,*)"},
		{"weights", apispec.Param{Name: "w", Base: "int", Array: true, Kind: "WEIGHT", Dir: "in"}, true, clWeights, "INTEGER", "(*)"},
		{"alloc_mem baseptr", apispec.Param{Name: "baseptr", Base: "void", Ptr: 1, Kind: "C_BUFFER", Dir: "out"}, true, clAddrOut, "INTEGER(KIND=MPI_ADDRESS_KIND)", ""},
		{"detached buffer", apispec.Param{Name: "buffer_addr", Base: "void", Ptr: 1, Kind: "C_BUFFER2", Dir: "out"}, true, clDetach, "TYPE(*)", "(*)"},
		{"user function", apispec.Param{Name: "user_fn", Base: "MPI_User_function", Ptr: 1, Kind: "POLYFUNCTION", Dir: "in"}, true, clFunc, "EXTERNAL", ""},
		{"attribute value", apispec.Param{Name: "v", Base: "void", Ptr: 1, Kind: "ATTRIBUTE_VAL", Dir: "in"}, true, clHand, "INTEGER(KIND=MPI_ADDRESS_KIND)", ""},
		{"MPI-1 attribute value", apispec.Param{Name: "v", Base: "void", Ptr: 1, Kind: "ATTRIBUTE_VAL_10", Dir: "in"}, true, clHand, "INTEGER", ""},
		{"argc suppressed", apispec.Param{Name: "argc", Base: "int", Ptr: 1, Kind: "ARGUMENT_COUNT", Suppress: "lis_parameter f08_parameter f90_parameter"}, true, clSuppressed, "", ""},
		{"file", apispec.Param{Name: "fh", Base: "MPI_File", Kind: "FILE", Dir: "in"}, true, clFile, "INTEGER", ""},
	}
	f := &apispec.Proc{Name: "MPI_X"}
	for _, tc := range tests {
		a, err := classify(f, tc.p, tc.fromJSON)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if a.Class != tc.class || a.FType != tc.ftype || a.Dims != tc.dims {
			t.Errorf("%s: got class %d %q %q, want %d %q %q", tc.name, a.Class, a.FType, a.Dims, tc.class, tc.ftype, tc.dims)
		}
	}
	for _, p := range []apispec.Param{
		{Name: "argv", Base: "char", Ptr: 2, Kind: "STRING_ARRAY"},
		{Name: "f", Base: "MPI_F08_status", Ptr: 1, Kind: "F08_STATUS"},
		{Name: "x", Base: "double", Ptr: 2},
	} {
		if _, err := classify(f, p, true); err == nil {
			t.Errorf("%s (%s): classified, want an error", p.Name, p.Kind)
		}
	}
}

func TestSymbol(t *testing.T) {
	for in, want := range map[string]string{"MPI_Send": "mpi_send_", "MPIX_Threadcomm_init": "mpix_threadcomm_init_", "MPI_Wtime": "mpi_wtime_"} {
		if got := Symbol(in); got != want {
			t.Errorf("Symbol(%s) = %s, want %s", in, got, want)
		}
	}
}

// wrapperOf generates the model of the repository and returns one wrapper's text.
func wrapperOf(t *testing.T, m *Model, name string) string {
	t.Helper()
	for _, f := range m.Procs {
		if f.C.Name == name {
			w, err := cWrapper(f)
			if err != nil {
				t.Fatal(err)
			}
			return w
		}
	}
	t.Fatalf("%s is not bound", name)
	return ""
}

func TestWrappers(t *testing.T) {
	m, err := load(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]string{
		// every argument by reference, IERROR last, the profiling name strong
		"MPI_Send": {"void pmpi_send_(const void *buf, const int *count, const MPI_Datatype *datatype, const int *dest, const int *tag, const MPI_Comm *comm, MPI_Fint *ierror)",
			"*ierror = PMPI_Send(mpixf_buf(buf), *count, *datatype, *dest, *tag, *comm);", "#pragma weak mpi_send_ = pmpi_send_"},
		// hidden lengths after IERROR; strings out through a temporary
		"MPI_Comm_get_name":        {"MPI_Fint *ierror, size_t flen_comm_name)", "mpixf_obuf(flen_comm_name, MPI_MAX_OBJECT_NAME)", "mpixf_fstr_if(1, t_comm_name, comm_name, flen_comm_name);"},
		"MPI_Comm_set_name":        {"mpixf_cstr(comm_name, flen_comm_name)", "free(t_comm_name);"},
		"MPI_Info_set":             {"mpixf_cstr_info(key, flen_key)"},
		"MPI_Test":                 {"int t_flag = 0;", "*flag = t_flag ? MPIXF_TRUE : MPIXF_FALSE;", "mpixf_status(status)"},
		"MPI_Op_create":            {"(*commute != MPIXF_FALSE)", "MPI_User_function *user_fn"},
		"MPI_Get_count":            {"PMPI_Get_count((const MPI_Status *)status, *datatype, count)"},
		"MPI_Status_set_cancelled": {"PMPI_Status_set_cancelled((MPI_Status *)status, (*flag != MPIXF_FALSE))"},
		"MPI_Init":                 {"void pmpi_init_(MPI_Fint *ierror)", "PMPI_Init(NULL, NULL)"},
		"MPI_Wtime":                {"double pmpi_wtime_(void)", "return PMPI_Wtime();"},
		"MPI_Buffer_detach":        {"void *t_buffer_addr = NULL;", "PMPI_Buffer_detach(&t_buffer_addr, size)"},
		"MPIX_Threadcomm_init": {"void pmpix_threadcomm_init_(const MPI_Comm *comm, const int *num_threads, MPI_Comm *newthreadcomm, MPI_Fint *ierror)",
			"#pragma weak mpix_threadcomm_init_ = pmpix_threadcomm_init_"},
		"MPI_Dist_graph_create_adjacent": {"mpixf_weights(sourceweights)", "mpixf_weights(destweights)"},
	} {
		w := wrapperOf(t, m, name)
		for _, s := range want {
			if !strings.Contains(w, s) {
				t.Errorf("%s's wrapper lacks %q:\n%s", name, s, w)
			}
		}
	}
	// Graph_get's index is a graph's, not a request's: it keeps C's numbering.
	if w := wrapperOf(t, m, "MPI_Graph_get"); strings.Contains(w, "mpixf_indices_c2f") {
		t.Errorf("MPI_Graph_get's index array is shifted:\n%s", w)
	}
	for _, f := range m.Procs {
		if f.C.Large || strings.HasSuffix(f.C.Name, "_c") {
			t.Errorf("%s: the large-count forms are mpi_f08's only", f.C.Name)
		}
	}
}

func TestConstants(t *testing.T) {
	c, err := loadConstants(filepath.Join("..", "..", "include", "mpi.h"), filepath.Join("..", "..", "include", "mpix.h"))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int64{
		"MPI_COMM_WORLD": 0x44000000, "MPI_ANY_SOURCE": -2, "MPI_SUCCESS": 0,
		"MPI_FLOAT_INT": int64(int32(-1946157056)), // 0x8c000000 as a C int
		"MPI_LONG_LONG": 0x4c000809, "MPI_CART": 2, "MPI_COMBINER_RESIZED": 18,
		"MPI_ERR_UNSUPPORTED_OPERATION": 44, "MPI_MAX_OBJECT_NAME": 128, "MPI_FILE_NULL": 0,
	} {
		k, ok := c.Lookup(name)
		if !ok || k.IsStr || k.Int != want {
			t.Errorf("%s = %+v (found %v), want %d", name, k, ok, want)
		}
	}
	// Fortran's values: MPICH's, which differ from C's for string limits and
	// predefined keyvals only.
	for name, want := range map[string]int64{
		"MPI_MAX_OBJECT_NAME": 127, "MPI_MAX_INFO_VAL": 1023, "MPI_MAX_LIBRARY_VERSION_STRING": 8191,
		"MPI_TAG_UB": 0x64400002, "MPI_WIN_SIZE": 0x66000004, "MPI_KEYVAL_INVALID": 0x24000000,
		"MPI_COMM_WORLD": 0x44000000, "MPIX_MAX_MEMHANDLE_SIZE": 256,
	} {
		if k, _ := c.Lookup(name); k.F != want {
			t.Errorf("Fortran's %s = %d, want %d", name, k.F, want)
		}
	}
	if k, ok := c.Lookup("MPIX_INFO_VCI"); !ok || !k.IsStr || k.Str != "vci" {
		t.Errorf("MPIX_INFO_VCI = %+v, want the string vci", k)
	}
	for _, n := range []string{"MPI_BOTTOM", "MPI_STATUS_IGNORE", "MPI_COMM_NULL_COPY_FN", "MPI_T_ENUM_NULL", "MPI_F_SOURCE", "MPI_AINT_FMT_DEC_SPEC"} {
		if _, ok := c.Lookup(n); ok {
			t.Errorf("%s is a Fortran constant; it should not be", n)
		}
	}
	f, err := c.fortranOnly()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, k := range f {
		got[k.Name] = k.Int
	}
	for name, want := range map[string]int64{"MPI_STATUS_SIZE": 5, "MPI_SOURCE": 3, "MPI_TAG": 4, "MPI_ERROR": 5,
		"MPI_ADDRESS_KIND": 8, "MPI_OFFSET_KIND": 8, "MPI_COUNT_KIND": 8, "MPI_INTEGER_KIND": 4} {
		if got[name] != want {
			t.Errorf("%s = %d, want %d", name, got[name], want)
		}
	}
}

// TestFixedForm: mpif.h's statements fit fixed form's 72 columns.
func TestFixedForm(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "include", "mpif.h"))
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "!") || l == "" {
			continue
		}
		if len(l) > 73 || (len(l) == 73 && !strings.HasSuffix(l, "&")) {
			t.Errorf("mpif.h:%d is %d columns: %s", i+1, len(l), l)
		}
		if !strings.HasPrefix(l, "      ") && !strings.HasPrefix(l, "     &") {
			t.Errorf("mpif.h:%d does not start in column 7: %s", i+1, l)
		}
	}
}

// TestGenerated: the committed outputs are what the generator writes.
func TestGenerated(t *testing.T) {
	root := filepath.Join("..", "..")
	m, err := load(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range emitters {
		files, err := e(m)
		if err != nil {
			t.Fatal(err)
		}
		for name, want := range files {
			got, err := os.ReadFile(filepath.Join(root, name))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("%s is not what fortran/gen writes: run make generate", name)
			}
		}
	}
}
