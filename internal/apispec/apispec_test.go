package apispec

import (
	"path/filepath"
	"testing"
)

// TestLoadAPIs: what the Fortran generator reads besides the C model.
func TestLoadAPIs(t *testing.T) {
	procs, err := LoadAPIs(filepath.Join("..", "..", "capi", "gen", "apis.json"))
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]*Proc{}
	for _, f := range procs {
		by[f.Name] = f
	}
	send, sendC := by["MPI_Send"], by["MPI_Send_c"]
	if send == nil || sendC == nil || !send.F90 || !send.F08 || !send.Ierror || send.Large || !sendC.Large {
		t.Fatalf("MPI_Send: %+v, MPI_Send_c: %+v", send, sendC)
	}
	if f := by["MPI_Pcontrol"]; f == nil || f.Ierror {
		t.Errorf("MPI_Pcontrol has no IERROR in Fortran: %+v", f)
	}
	if f := by["MPI_T_init_thread"]; f == nil || f.F90 {
		t.Errorf("the tools interface has no Fortran binding: %+v", f)
	}
	name := by["MPI_Comm_get_name"].Params[1]
	if name.LengthConst != "MPI_MAX_OBJECT_NAME" || name.Length != "" {
		t.Errorf("MPI_Comm_get_name's name: length %q, constant %q", name.Length, name.LengthConst)
	}
	argc := by["MPI_Init"].Params[0]
	if !argc.Suppressed("f90") || argc.Suppressed("c") {
		t.Errorf("MPI_Init's argc: suppress %q", argc.Suppress)
	}
	if by["MPI_Info_get"].Params[3].Length != "valuelen" {
		t.Errorf("MPI_Info_get's value: length %q", by["MPI_Info_get"].Params[3].Length)
	}
}
