// Command mpixcc compiles and links C (or, as mpixcxx, C++) programs against mpix:
// it runs the system compiler with mpix's include directory and, when linking, with
// libmpix and an rpath to it, so programs run without LD_LIBRARY_PATH.
//
//	mpixcc [-show] [compiler flags] files...
//
// The compiler is $MPIX_CC (default cc) or, for mpixcxx, $MPIX_CXX (default c++).
// The installation prefix is found from the location of this executable (<prefix>/bin).
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

func main() {
	if err := run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "mpixcc:", err)
		os.Exit(1)
	}
}

func run(argv []string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	exe, _ = filepath.EvalSymlinks(exe)
	prefix := filepath.Dir(filepath.Dir(exe))
	compiler := envOr("MPIX_CC", "cc")
	if base := filepath.Base(argv[0]); strings.Contains(base, "cxx") || strings.Contains(base, "c++") {
		compiler = envOr("MPIX_CXX", "c++")
	}
	cmdline, show := command(prefix, compiler, argv[1:])
	if show {
		fmt.Println(strings.Join(cmdline, " "))
		return nil
	}
	path, err := exec.LookPath(cmdline[0])
	if err != nil {
		return fmt.Errorf("compiler %q not found (set MPIX_CC)", cmdline[0])
	}
	return syscall.Exec(path, cmdline, os.Environ())
}

// command builds the compiler command line for the user's arguments.
func command(prefix, compiler string, args []string) (cmdline []string, show bool) {
	link := len(args) > 0
	var user []string
	for _, a := range args {
		switch a {
		case "-show", "--show", "-showme":
			show = true
			continue
		case "-c", "-E", "-S", "-M", "-MM":
			link = false
		}
		user = append(user, a)
	}
	cmdline = append(strings.Fields(compiler), "-I"+filepath.Join(prefix, "include"))
	cmdline = append(cmdline, user...)
	if link {
		lib := filepath.Join(prefix, "lib")
		cmdline = append(cmdline, "-L"+lib, "-Wl,-rpath,"+lib, "-lmpix")
	}
	return cmdline, show
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
