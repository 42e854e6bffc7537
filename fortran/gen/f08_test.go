package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func f08Of(t *testing.T, m *Model, name string) *f08Proc {
	t.Helper()
	procs, _ := f08Procs(m)
	for _, p := range procs {
		if p.C.Name == name {
			return p
		}
	}
	t.Fatalf("%s has no mpi_f08 binding", name)
	return nil
}

// TestF08Wrappers: the C side of module mpi_f08's BIND(C) specifics.
func TestF08Wrappers(t *testing.T) {
	m, err := load(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]string{
		// buffers as descriptors, copied when blocking; ierror may be absent
		"MPI_Send": {"void PMPI_Send_f08(CFI_cdesc_t *buf, const int *count, const MPI_Datatype *datatype, const int *dest, const int *tag, const MPI_Comm *comm, MPI_Fint *ierror)",
			`mpixf08_buf_get(&b_buf, buf, 0, MPIXF08_COPY, "MPI_Send", "buf")`, "rc = mpixf08_raise_comm(*comm, rc);",
			"if (ierror)\n        *ierror = rc;", "#pragma weak MPI_Send_f08 = PMPI_Send_f08"},
		"MPI_Recv":   {`mpixf08_buf_get(&b_buf, buf, 1, MPIXF08_COPY`, "mpixf08_status(status)", "mpixf08_buf_put(&b_buf, rc);"},
		"MPI_Send_c": {"void PMPI_Send_c_f08(CFI_cdesc_t *buf, const MPI_Count *count", "PMPI_Send_c("},
		// a nonblocking call's buffer must stay where it is
		"MPI_Isend":       {"MPIXF08_RETAINED"},
		"MPI_Put":         {"MPIXF08_RETAINED", "rc = mpixf08_raise_win(*win, rc);"},
		"MPI_Get_address": {"MPIXF08_ADDRESS"},
		// strings as descriptors
		"MPI_Comm_set_name":    {"CFI_cdesc_t *d_comm_name", "mpixf_cstr((const char *)d_comm_name->base_addr, d_comm_name->elem_len)"},
		"MPI_Comm_get_name":    {"mpixf_obuf(d_comm_name->elem_len, MPI_MAX_OBJECT_NAME)", "mpixf_fstr_if(1, t_comm_name, (char *)d_comm_name->base_addr, d_comm_name->elem_len);"},
		"MPI_Waitall":          {"MPI_Status *array_of_statuses", "mpixf08_status(array_of_statuses)"},
		"MPI_Test":             {"*flag = t_flag ? MPIXF_TRUE : MPIXF_FALSE;"},
		"MPI_Wtime":            {"double PMPI_Wtime_f08(void)", "return PMPI_Wtime();"},
		"MPI_Init":             {"PMPI_Init(NULL, NULL)"},
		"MPI_File_close":       {"MPI_File t_fh = mpixf_file_f2c(*fh);", "*fh = mpixf_file_c2f(t_fh);"},
		"MPI_Alloc_mem":        {"void *baseptr", "PMPI_Alloc_mem(*size, *info, baseptr)"},
		"MPIX_Threadcomm_init": {"void PMPIX_Threadcomm_init_f08(const MPI_Comm *comm, const int *num_threads, MPI_Comm *newthreadcomm, MPI_Fint *ierror)"},
	} {
		p := f08Of(t, m, name)
		if p.ViaF90 {
			t.Fatalf("%s is a module procedure, not a C wrapper", name)
		}
		w, err := f08CWrapper(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range want {
			if !strings.Contains(w, s) {
				t.Errorf("%s's f08 wrapper lacks %q:\n%s", name, s, w)
			}
		}
	}
}

// TestF08Module: module mpi_f08's declarations and interfaces.
func TestF08Module(t *testing.T) {
	m, err := load(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	files, err := emitModuleF08(m)
	if err != nil {
		t.Fatal(err)
	}
	mod := string(files["fortran/zmpi_f08.f90"])
	for _, s := range []string{
		"TYPE, BIND(C) :: MPI_Comm\n  INTEGER :: MPI_VAL\nEND TYPE MPI_Comm",
		"TYPE, BIND(C) :: MPI_Status\n  INTEGER :: count_lo\n  INTEGER :: count_hi_and_cancelled\n  INTEGER :: MPI_SOURCE\n",
		"TYPE(MPI_Comm), PARAMETER :: MPI_COMM_WORLD = MPI_Comm(1140850688)",
		"TYPE(MPI_Datatype), PARAMETER :: MPI_INTEGER = MPI_Datatype(",
		"TYPE(MPI_File), PARAMETER :: MPI_FILE_NULL = MPI_File(0)",
		"INTEGER, PARAMETER :: MPI_ANY_SOURCE = (-2)",
		"INTEGER, PARAMETER :: MPI_MAX_OBJECT_NAME = 127",
		`TYPE(MPI_Status), BIND(C, name="MPIR_F08_MPI_STATUS_IGNORE_OBJ"), TARGET :: MPI_STATUS_IGNORE`,
		`INTEGER(C_INT), BIND(C, name="MPIR_F08_MPI_IN_PLACE"), TARGET :: MPI_IN_PLACE`,
		"LOGICAL, PARAMETER :: MPI_SUBARRAYS_SUPPORTED = .FALSE.",
		"MODULE PROCEDURE mpix_eq_comm",
		// one generic, two specifics: the large-count form overloads it
		"INTERFACE MPI_Send\n  SUBROUTINE MPI_Send_f08(buf, count, datatype, dest, tag, comm, ierror) &\n      & BIND(C, name=\"MPI_Send_f08\")",
		"  SUBROUTINE MPI_Send_c_f08(",
		"    TYPE(*), DIMENSION(..), INTENT(IN) :: buf\n",
		"    INTEGER(KIND=MPI_COUNT_KIND), INTENT(IN) :: count\n",
		"    TYPE(MPI_Comm), INTENT(IN) :: comm\n",
		"    INTEGER, OPTIONAL, INTENT(OUT) :: ierror\n",
		"    TYPE(*), DIMENSION(..), ASYNCHRONOUS :: buf\n", // MPI_Irecv
		"    TYPE(MPI_Status) :: array_of_statuses(*)\n",
		"    CHARACTER(LEN=*) :: comm_name\n",
		// where MPI_Aint and MPI_Count are one kind, the _c form has its own name
		"INTERFACE MPI_Type_get_extent_c\n",
		// callbacks: module procedures over module mpi's wrappers
		"INTERFACE MPI_Op_create\n  MODULE PROCEDURE MPI_Op_create_f08\n",
		"    CALL PMPI_Op_create(user_fn, commute, op, ierr0)\n    IF (PRESENT(ierror)) ierror = ierr0\n",
		"INTERFACE MPI_Comm_create_keyval\n  MODULE PROCEDURE MPI_Comm_create_keyval_f08\n",
		"INTERFACE MPIX_Threadcomm_init\n",
		"INTERFACE MPI_Status_f2f08\n",
		// the profiling names
		"INTERFACE PMPI_Send\n  SUBROUTINE PMPI_Send_f08(buf, count, datatype, dest, tag, comm, ierror) &\n      & BIND(C, name=\"PMPI_Send_f08\")",
		"INTERFACE PMPI_Op_create\n  MODULE PROCEDURE MPI_Op_create_f08\n",
	} {
		if !strings.Contains(mod, s) {
			t.Errorf("module mpi_f08 lacks %q", s)
		}
	}
	if strings.Contains(mod, "INTERFACE MPI_Send_c\n") {
		t.Error("MPI_Send_c has its own generic; it should overload MPI_Send")
	}
	for i, l := range strings.Split(mod, "\n") {
		if len(l) > 132 {
			t.Errorf("zmpi_f08.f90:%d is longer than free form's 132 columns", i+1)
		}
	}
	// running the emitter again gives the same files (it does not change the model)
	again, err := emitModuleF08(m)
	if err != nil {
		t.Fatal(err)
	}
	for k := range files {
		if string(files[k]) != string(again[k]) {
			t.Errorf("%s differs on a second run", k)
		}
	}
}
