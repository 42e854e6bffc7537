// Command gen writes mpix's Fortran bindings from the description the C bindings are
// generated from (internal/apispec: capi/gen/apis.json, capi/gen/mpi41.h,
// include/mpix.h) and the constants of include/mpi.h and include/mpix.h:
//
//	include/mpif.h     constants, special addresses, predefined callbacks (Fortran 77)
//	fortran/zmpi.f90   module mpi: the same declarations and explicit interfaces
//	fortran/zbind.c    the wrappers libmpixfort.so exports (mpi_x_ / pmpi_x_)
//	fortran/zmpi_f08.f90  module mpi_f08 (f08.go)
//	fortran/zbind_f08.c   the C side of its BIND(C) specifics (MPI_X_f08 / PMPI_X_f08, f08c.go)
//
// Each output comes from an emitter over one Model (below): module mpi_f08's reads
// Model.F08, the procedures apispec's F08 flag marks (the _c forms included) bound
// with f08's suppressions.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"mpix/internal/apispec"
)

// Model is what every emitter reads.
type Model struct {
	Procs   []*fproc   // the bound procedures, by name
	Skipped []string   // procedures with no binding and why
	Consts  *Constants // the C headers' constants
	FOnly   []Const    // Fortran's own: MPI_STATUS_SIZE, MPI_ADDRESS_KIND...
	Predef  []string   // predefined callbacks with a Fortran binding (MPI_COMM_DUP_FN...)
	// F08 are the procedures of module mpi_f08 (f08_expressible, the _c forms
	// included, and the C headers' that module mpi binds), F08Skipped those left out.
	F08        []*fproc
	F08Skipped []string
}

// An emitter returns files (relative to the repository root) and their contents.
type emitter func(m *Model) (map[string][]byte, error)

var emitters = []emitter{emitMpifH, emitModuleMPI, emitCWrappers, emitModuleF08}

func main() {
	root := flag.String("root", ".", "repository root")
	verbose := flag.Bool("v", false, "list the procedures left without a binding")
	flag.Parse()
	m, err := load(*root)
	if err == nil {
		err = write(*root, m)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fortran/gen:", err)
		os.Exit(1)
	}
	if *verbose {
		fmt.Println(strings.Join(m.Skipped, "\n"))
	}
}

// load reads the inputs into a Model.
func load(root string) (*Model, error) {
	apis := filepath.Join(root, "capi", "gen", "apis.json")
	m := &Model{}
	var err error
	if m.Consts, err = loadConstants(filepath.Join(root, "include", "mpi.h"), filepath.Join(root, "include", "mpix.h")); err != nil {
		return nil, err
	}
	if m.FOnly, err = m.Consts.fortranOnly(); err != nil {
		return nil, err
	}
	std, err := apispec.LoadAPIs(apis)
	if err != nil {
		return nil, err
	}
	entries, err := apispec.LoadEntries(apis)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Attributes.F90 && e.Attributes.Predefined != nil {
			m.Predef = append(m.Predef, e.Name)
		}
	}
	sort.Strings(m.Predef)
	mpi41, err := apispec.LoadProtoFile(filepath.Join(root, "capi", "gen", "mpi41.h"), false)
	if err != nil {
		return nil, err
	}
	ext, err := apispec.LoadProtoFile(filepath.Join(root, "include", "mpix.h"), true)
	if err != nil {
		return nil, err
	}
	add := func(f *apispec.Proc, fromJSON bool) {
		fp, err := bind(f, fromJSON)
		if err != nil {
			m.Skipped = append(m.Skipped, err.Error())
			return
		}
		m.Procs = append(m.Procs, fp)
	}
	addF08 := func(f *apispec.Proc, fromJSON bool) {
		fp, err := bindF08(f, fromJSON)
		if err != nil {
			m.F08Skipped = append(m.F08Skipped, err.Error())
			return
		}
		m.F08 = append(m.F08, fp)
	}
	for _, f := range std {
		if f.F08 {
			addF08(f, true)
		}
	}
	for _, f := range append(mpi41, ext...) {
		if !strings.HasSuffix(f.Name, "_c") {
			addF08(f, false)
		}
	}
	sort.SliceStable(m.F08, func(i, j int) bool { return m.F08[i].C.Name < m.F08[j].C.Name })
	sort.Strings(m.F08Skipped)
	for _, f := range std {
		// The _c large-count forms are mpi_f08's alone; f90_expressible false means
		// the standard gives no Fortran binding (the MPI_T interface, conversions).
		if !f.Large && f.F90 {
			add(f, true)
		}
	}
	for _, f := range append(mpi41, ext...) {
		if !strings.HasSuffix(f.Name, "_c") {
			add(f, false)
		}
	}
	sort.SliceStable(m.Procs, func(i, j int) bool { return m.Procs[i].C.Name < m.Procs[j].C.Name })
	sort.Strings(m.Skipped)
	return m, m.check()
}

// check rejects names that Fortran's case folding would merge: a procedure and a
// constant, or two procedures.
func (m *Model) check() error {
	seen := map[string]string{}
	for _, k := range append(append([]Const{}, m.FOnly...), m.Consts.List...) {
		seen[strings.ToUpper(k.Name)] = k.Name
	}
	for _, n := range m.Predef {
		seen[strings.ToUpper(n)] = n
	}
	for _, f := range m.Procs {
		u := strings.ToUpper(f.C.Name)
		if o, ok := seen[u]; ok {
			return fmt.Errorf("%s and %s are one name in Fortran", o, f.C.Name)
		}
		seen[u] = f.C.Name
	}
	return nil
}

// write runs the emitters and writes what changed.
func write(root string, m *Model) error {
	for _, e := range emitters {
		files, err := e(m)
		if err != nil {
			return err
		}
		for name, data := range files {
			path := filepath.Join(root, name)
			if old, err := os.ReadFile(path); err == nil && string(old) == string(data) {
				continue
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// paramNamed is a bare parameter for the few interfaces written without a C procedure.
func paramNamed(name string) apispec.Param { return apispec.Param{Name: name} }
