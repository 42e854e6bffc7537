package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIsCXX(t *testing.T) {
	for name, want := range map[string]bool{
		"mpixcc": false, "mpicc": false, "mpixcxx": true, "mpicxx": true,
		"mpic++": true, "mpiCC": true, "x86_64-mpicc": false,
	} {
		if got := isCXX(name); got != want {
			t.Errorf("isCXX(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestIsFortran(t *testing.T) {
	for name, want := range map[string]bool{
		"mpixfort": true, "mpifort": true, "mpif77": true, "mpif90": true, "mpixf77": true,
		"mpixf90": true, "mpicc": false, "mpicxx": false, "mpiCC": false,
	} {
		if got := isFortran(name); got != want {
			t.Errorf("isFortran(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestPlan(t *testing.T) {
	inc, link := "-I/p/include", []string{"-L/p/lib", "-Wl,-rpath,/p/lib", "-lmpix"}
	withLink := func(s ...string) []string { return append(s, link...) }
	tests := []struct {
		name   string
		cxx    bool
		fort   bool
		fflags bool // the compiler wants -fallow-argument-mismatch
		env    map[string]string
		args   []string
		want   []string // the command run; nil when the wrapper prints
		out    string   // what it prints
	}{
		{name: "compile and link", args: []string{"a.c", "-o", "a"},
			want: withLink("cc", inc, "a.c", "-o", "a")},
		{name: "compile only", args: []string{"-c", "a.c"}, want: []string{"cc", inc, "-c", "a.c"}},
		{name: "preprocess only", args: []string{"-E", "a.c"}, want: []string{"cc", inc, "-E", "a.c"}},
		{name: "openmp passes through", args: []string{"-fopenmp", "a.c"},
			want: withLink("cc", inc, "-fopenmp", "a.c")},
		{name: "c++ by name", cxx: true, args: []string{"a.cc"}, want: withLink("c++", inc, "a.cc")},
		{name: "-cc= wins over the environment", env: map[string]string{"MPIX_CC": "clang"},
			args: []string{"-cc=gcc-12", "a.c"}, want: withLink("gcc-12", inc, "a.c")},
		{name: "-cxx=", cxx: true, args: []string{"-cxx=clang++", "a.cc"}, want: withLink("clang++", inc, "a.cc")},
		{name: "MPIX_CC before MPICH_CC", env: map[string]string{"MPIX_CC": "clang", "MPICH_CC": "gcc"},
			args: []string{"a.c"}, want: withLink("clang", inc, "a.c")},
		{name: "MPICH_CC", env: map[string]string{"MPICH_CC": "gcc -m64"},
			args: []string{"a.c"}, want: withLink("gcc", "-m64", inc, "a.c")},
		{name: "OMPI_CXX", cxx: true, env: map[string]string{"OMPI_CXX": "g++"},
			args: []string{"a.cc"}, want: withLink("g++", inc, "a.cc")},
		{name: "C ignores the C++ variables", env: map[string]string{"MPICH_CXX": "g++"},
			args: []string{"a.c"}, want: withLink("cc", inc, "a.c")},
		{name: "-show", args: []string{"-show", "a.c"},
			out: "cc -I/p/include a.c -L/p/lib -Wl,-rpath,/p/lib -lmpix\n"},
		{name: "-show alone", args: []string{"-show"},
			out: "cc -I/p/include -L/p/lib -Wl,-rpath,/p/lib -lmpix\n"},
		{name: "-showme", args: []string{"-showme"},
			out: "cc -I/p/include -L/p/lib -Wl,-rpath,/p/lib -lmpix\n"},
		{name: "-show quotes", args: []string{"-show", "-DX=a b", "a.c"},
			out: "cc -I/p/include '-DX=a b' a.c -L/p/lib -Wl,-rpath,/p/lib -lmpix\n"},
		{name: "-compile_info", args: []string{"-compile_info"}, out: "cc -I/p/include\n"},
		{name: "-compile-info", args: []string{"-compile-info"}, out: "cc -I/p/include\n"},
		{name: "-link_info", args: []string{"-link_info"},
			out: "cc -I/p/include -L/p/lib -Wl,-rpath,/p/lib -lmpix\n"},
		{name: "-showme:compile", args: []string{"-showme:compile"}, out: "-I/p/include\n"},
		{name: "--showme:compile", args: []string{"--showme:compile"}, out: "-I/p/include\n"},
		{name: "-showme:link", args: []string{"-showme:link"}, out: "-L/p/lib -Wl,-rpath,/p/lib -lmpix\n"},
		{name: "-showme:command", cxx: true, args: []string{"-showme:command"}, out: "c++\n"},
		{name: "-showme:incdirs", args: []string{"-showme:incdirs"}, out: "/p/include\n"},
		{name: "-showme:libdirs", args: []string{"-showme:libdirs"}, out: "/p/lib\n"},
		{name: "-showme:libs", args: []string{"-showme:libs"}, out: "mpix\n"},
		{name: "-showme:version", cxx: true, args: []string{"-showme:version"},
			out: "mpicc: mpix unknown (Language: C++)\n"},
		// Fortran: gfortran by default, libmpixfort before libmpix, its own variables.
		{name: "fortran by name", fort: true, args: []string{"a.f90", "-o", "a"},
			want: []string{"gfortran", inc, "a.f90", "-o", "a", "-L/p/lib", "-Wl,-rpath,/p/lib", "-lmpixfort", "-lmpix"}},
		{name: "fortran compile only", fort: true, args: []string{"-c", "a.f"}, want: []string{"gfortran", inc, "-c", "a.f"}},
		{name: "-fc=", fort: true, env: map[string]string{"MPIX_FC": "flang"}, args: []string{"-fc=gfortran-12", "-c", "a.f"},
			want: []string{"gfortran-12", inc, "-c", "a.f"}},
		{name: "MPIX_FC before MPICH_FC", fort: true, env: map[string]string{"MPIX_FC": "flang", "MPICH_FC": "ifx"},
			args: []string{"-c", "a.f"}, want: []string{"flang", inc, "-c", "a.f"}},
		{name: "MPICH_F90", fort: true, env: map[string]string{"MPICH_F90": "gfortran-12", "OMPI_FC": "ifx"},
			args: []string{"-c", "a.f"}, want: []string{"gfortran-12", inc, "-c", "a.f"}},
		{name: "OMPI_FC", fort: true, env: map[string]string{"OMPI_FC": "ifx"},
			args: []string{"-c", "a.f"}, want: []string{"ifx", inc, "-c", "a.f"}},
		{name: "Fortran ignores the C variables", fort: true, env: map[string]string{"MPIX_CC": "clang"},
			args: []string{"-c", "a.f"}, want: []string{"gfortran", inc, "-c", "a.f"}},
		{name: "fortran -showme:link", fort: true, args: []string{"-showme:link"},
			out: "-L/p/lib -Wl,-rpath,/p/lib -lmpixfort -lmpix\n"},
		{name: "fortran -showme:libs", fort: true, args: []string{"-showme:libs"}, out: "mpixfort mpix\n"},
		{name: "fortran -showme:command", fort: true, args: []string{"-showme:command"}, out: "gfortran\n"},
		{name: "fortran flags of the compiler", fort: true, fflags: true, args: []string{"-c", "a.f"},
			want: []string{"gfortran", inc, "-fallow-argument-mismatch", "-c", "a.f"}},
		{name: "fortran -showme:compile", fort: true, fflags: true, args: []string{"-showme:compile"},
			out: "-I/p/include -fallow-argument-mismatch\n"},
		{name: "fortran -showme:version", fort: true, args: []string{"-showme:version"},
			out: "mpicc: mpix unknown (Language: Fortran)\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := wrapper{name: "mpicc", prefix: "/p", cxx: tc.cxx, fort: tc.fort, env: func(k string) string { return tc.env[k] }}
			if tc.fflags {
				w.fflags = func(string) []string { return []string{"-fallow-argument-mismatch"} }
			}
			out, got, err := w.plan(tc.args)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("command mismatch (-want +got):\n%s", diff)
			}
			if out != tc.out {
				t.Errorf("printed %q, want %q", out, tc.out)
			}
		})
	}
}

func TestPlanErrors(t *testing.T) {
	w := wrapper{name: "mpicc", prefix: "/p", env: func(string) string { return "" }}
	for _, args := range [][]string{{"-showme:nonsense"}, {"-cc=", "a.c"}} {
		if _, _, err := w.plan(args); err == nil {
			t.Errorf("plan(%q) succeeded, want an error", args)
		}
	}
	out, _, err := w.plan([]string{"-showme:help"})
	if err != nil || !strings.Contains(out, "-showme:compile") {
		t.Errorf("-showme:help = %q, %v", out, err)
	}
}

// TestRelocatable builds the wrapper, puts it in two trees under different names and
// checks that each answers with its own tree's paths.
func TestRelocatable(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the wrapper")
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "a", "bin", "mpixcc")
	build := exec.Command("go", "build", "-o", exe, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if err := os.Symlink("mpixcc", filepath.Join(dir, "a", "bin", "mpicxx")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "a"), filepath.Join(dir, "moved")); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"mpixcc": "cc -I" + dir + "/moved/include\n",
		"mpicxx": "c++ -I" + dir + "/moved/include\n",
	} {
		cmd := exec.Command(filepath.Join(dir, "moved", "bin", name), "-compile_info")
		cmd.Env = append(os.Environ(), "MPIX_CC=", "MPICH_CC=", "OMPI_CC=", "MPIX_CXX=", "MPICH_CXX=", "OMPI_CXX=")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s -compile_info: %v", name, err)
		}
		if string(out) != want {
			t.Errorf("%s -compile_info = %q, want %q", name, out, want)
		}
	}
}
