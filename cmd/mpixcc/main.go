// Command mpixcc compiles and links C, C++ and Fortran programs against mpix: it runs
// the system compiler with mpix's include directory and, when linking, with libmpix
// (and for Fortran libmpixfort) and an rpath to it, so programs run without
// LD_LIBRARY_PATH.
//
//	mpixcc [query flag] [-cc=COMPILER] [compiler flags] files...
//
// One executable serves every name: invoked as mpixcxx, mpicxx, mpic++ or mpiCC it
// compiles C++, as mpixfort, mpixf77, mpixf90, mpifort, mpif77 or mpif90 Fortran (the
// include directory holds mpif.h and module mpi's mpi.mod), as anything else (mpixcc,
// mpicc) C. Build systems look for MPICH's
// and Open MPI's names and ask the wrapper what it adds, so it answers both
// families' query flags (query below):
//
//	-show, -showme          the whole command line, not run
//	-compile_info           MPICH: the compile line (no link flags)
//	-link_info              MPICH: the link line
//	-showme:compile         Open MPI: the compile flags alone
//	-showme:link            Open MPI: the link flags alone
//	-showme:command         the compiler
//	-showme:incdirs|libdirs|libs|libs_static|version|help
//
// The compiler is, first to last: -cc= or -cxx= (-fc=, -f77=, -f90= for Fortran), then
// $MPIX_CC, $MPICH_CC, $OMPI_CC (for C++ $MPIX_CXX, $MPICH_CXX, $OMPI_CXX; for
// Fortran $MPIX_FC, $MPICH_FC, $MPICH_F90, $OMPI_FC), then cc (c++, gfortran).
//
// The prefix is found from the location of this executable (<prefix>/bin), so an
// installed tree works wherever it is moved: the include path and the rpath follow it.
package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// version is set by the Makefile from include/mpi.h's MPIX_VERSION.
var version = "unknown"

func main() {
	if err := run(os.Args, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", filepath.Base(os.Args[0]), err)
		os.Exit(1)
	}
}

func run(argv []string, stdout io.Writer) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	w := wrapper{
		name:   filepath.Base(argv[0]),
		prefix: filepath.Dir(filepath.Dir(exe)),
		cxx:    isCXX(filepath.Base(argv[0])),
		fort:   isFortran(filepath.Base(argv[0])),
		env:    os.Getenv,
		fflags: gfortranFlags,
	}
	out, cmdline, err := w.plan(argv[1:])
	if err != nil {
		return err
	}
	if cmdline == nil {
		_, err := io.WriteString(stdout, out)
		return err
	}
	path, err := exec.LookPath(cmdline[0])
	if err != nil {
		return fmt.Errorf("compiler %q not found (name another with -cc= or %s)", cmdline[0], w.envNames()[0])
	}
	return syscall.Exec(path, cmdline, os.Environ())
}

// isCXX reports whether the wrapper was invoked under a C++ name.
func isCXX(name string) bool {
	return strings.Contains(name, "cxx") || strings.Contains(name, "c++") ||
		strings.HasSuffix(name, "CC")
}

// isFortran reports whether the wrapper was invoked under a Fortran name.
func isFortran(name string) bool {
	return strings.Contains(name, "fort") || strings.Contains(name, "f77") || strings.Contains(name, "f90")
}

// wrapper holds what a run depends on besides its arguments.
type wrapper struct {
	name   string // the name it was invoked as, for messages and -showme:version
	prefix string // the installation: <prefix>/include, <prefix>/lib
	cxx    bool
	fort   bool
	env    func(string) string
	// fflags gives the flags a Fortran compiler needs besides the include directory
	// (nil: none).
	fflags func(compiler string) []string
}

// gfortranFlags: gfortran 10 and later reject calls that pass different types to the
// same choice argument of a procedure without an interface, which is what every
// program using mpif.h does (MPI_Send of an INTEGER, then of a REAL);
// -fallow-argument-mismatch makes that a warning again, as MPICH's mpifort does.
func gfortranFlags(compiler string) []string {
	words := strings.Fields(compiler)
	if len(words) == 0 || !strings.Contains(filepath.Base(words[0]), "gfortran") {
		return nil
	}
	out, err := exec.Command(words[0], "-dumpversion").Output()
	if err != nil {
		return nil
	}
	major := strings.SplitN(strings.TrimSpace(string(out)), ".", 2)[0]
	if n, err := strconv.Atoi(major); err == nil && n >= 10 {
		return []string{"-fallow-argument-mismatch"}
	}
	return nil
}

func (w wrapper) envNames() []string {
	if w.fort {
		return []string{"MPIX_FC", "MPICH_FC", "MPICH_F90", "OMPI_FC"}
	}
	if w.cxx {
		return []string{"MPIX_CXX", "MPICH_CXX", "OMPI_CXX"}
	}
	return []string{"MPIX_CC", "MPICH_CC", "OMPI_CC"}
}

func (w wrapper) incdir() string { return filepath.Join(w.prefix, "include") }
func (w wrapper) libdir() string { return filepath.Join(w.prefix, "lib") }

func (w wrapper) compileFlags() []string { return []string{"-I" + w.incdir()} }

// langFlags are the compile flags the compiler in use needs for the language.
func (w wrapper) langFlags(compiler string) []string {
	if w.fort && w.fflags != nil {
		return w.fflags(compiler)
	}
	return nil
}

func (w wrapper) linkFlags() []string {
	return append([]string{"-L" + w.libdir(), "-Wl,-rpath," + w.libdir()}, w.libFlags()...)
}

// libs are the libraries a program links: Fortran's wrappers come before the C library
// they call.
func (w wrapper) libs() []string {
	if w.fort {
		return []string{"mpixfort", "mpix"}
	}
	return []string{"mpix"}
}

func (w wrapper) libFlags() []string {
	var f []string
	for _, l := range w.libs() {
		f = append(f, "-l"+l)
	}
	return f
}

// defaultCompiler is the compiler when neither a flag nor the environment names one.
func (w wrapper) defaultCompiler() string {
	switch {
	case w.fort:
		return "gfortran"
	case w.cxx:
		return "c++"
	}
	return "cc"
}

// plan reads the arguments. It returns either text to print (a query's answer,
// cmdline nil) or the compiler command line to run.
func (w wrapper) plan(args []string) (out string, cmdline []string, err error) {
	compiler := ""
	for _, k := range w.envNames() {
		if v := w.env(k); v != "" {
			compiler = v
			break
		}
	}
	if compiler == "" {
		compiler = w.defaultCompiler()
	}
	query := ""
	link := true
	var user []string
	for _, a := range args {
		switch {
		case a == "-show" || a == "--show" || a == "-showme" || a == "--showme":
			query = "show"
			continue
		case a == "-compile_info" || a == "-compile-info":
			query, link = "show", false
			continue
		case a == "-link_info" || a == "-link-info":
			query = "show"
			continue
		case strings.HasPrefix(a, "-showme:") || strings.HasPrefix(a, "--showme:"):
			query = a[strings.IndexByte(a, ':')+1:]
			continue
		case strings.HasPrefix(a, "-cc=") || strings.HasPrefix(a, "-cxx=") ||
			strings.HasPrefix(a, "-fc=") || strings.HasPrefix(a, "-f77=") || strings.HasPrefix(a, "-f90="):
			compiler = a[strings.IndexByte(a, '=')+1:]
			if strings.TrimSpace(compiler) == "" {
				return "", nil, fmt.Errorf("%s names no compiler", a)
			}
			continue
		case a == "-c" || a == "-E" || a == "-S" || a == "-M" || a == "-MM":
			link = false
		}
		user = append(user, a)
	}
	cflags := append(w.compileFlags(), w.langFlags(compiler)...)
	line := append(strings.Fields(compiler), cflags...)
	line = append(line, user...)
	if link {
		line = append(line, w.linkFlags()...)
	}
	switch query {
	case "":
		return "", line, nil
	case "show":
		return quoteLine(line) + "\n", nil, nil
	case "compile":
		return quoteLine(append(cflags, user...)) + "\n", nil, nil
	case "link":
		return quoteLine(append(user, w.linkFlags()...)) + "\n", nil, nil
	case "command":
		return compiler + "\n", nil, nil
	case "incdirs":
		return w.incdir() + "\n", nil, nil
	case "libdirs":
		return w.libdir() + "\n", nil, nil
	case "libs", "libs_static":
		return strings.Join(w.libs(), " ") + "\n", nil, nil
	case "version":
		lang := "C"
		if w.cxx {
			lang = "C++"
		}
		if w.fort {
			lang = "Fortran"
		}
		return fmt.Sprintf("%s: mpix %s (Language: %s)\n", w.name, version, lang), nil, nil
	case "help":
		return w.help(), nil, nil
	}
	return "", nil, fmt.Errorf("unknown query -showme:%s (try -showme:help)", query)
}

func (w wrapper) help() string {
	return fmt.Sprintf(`%s: compile and link with mpix %s
usage: %s [query] [-cc=|-cxx=|-fc=COMPILER] [compiler flags] files...
queries (print, do not compile):
  -show, -showme       the whole command line
  -compile_info        the compile line (MPICH)
  -link_info           the link line (MPICH)
  -showme:compile      the compile flags (Open MPI)
  -showme:link         the link flags (Open MPI)
  -showme:command      the compiler
  -showme:incdirs      the include directory
  -showme:libdirs      the library directory
  -showme:libs         the libraries
  -showme:version      the version
the compiler: -cc=/-cxx=/-fc=, else $%s, else %s
`, w.name, version, w.name, strings.Join(w.envNames(), ", $"), w.defaultCompiler())
}

// quoteLine joins a command line for a shell, quoting the words that need it.
func quoteLine(words []string) string {
	q := make([]string, len(words))
	for i, s := range words {
		if s != "" && strings.IndexFunc(s, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=,+:@%", r))
		}) < 0 {
			q[i] = s
		} else {
			q[i] = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}
