package main

import (
	"flag"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
)

func main() {
	root := flag.String("root", ".", "repository root")
	apis := flag.String("apis", "", "MPI Forum apis.json (default: <root>/capi/gen/apis.json, the repository's copy)")
	dump := flag.Bool("dump", false, "print the prototypes and exit")
	sig := flag.String("sig", "", "print the Go signature impl_<NAME> must have and exit")
	flag.Parse()
	if *apis == "" {
		*apis = filepath.Join(*root, "capi", "gen", "apis.json")
	}
	if err := run(*root, *apis, *dump, *sig); err != nil {
		fmt.Fprintln(os.Stderr, "capi/gen:", err)
		os.Exit(1)
	}
}

func run(root, apis string, dump bool, sig string) error {
	procs, err := loadAPIs(apis)
	if err != nil {
		return err
	}
	legacy, err := loadProtoFile(filepath.Join(root, "capi", "gen", "legacy.h"), false)
	if err != nil {
		return err
	}
	mpi41, err := loadProtoFile(filepath.Join(root, "capi", "gen", "mpi41.h"), false)
	if err != nil {
		return err
	}
	ext, err := loadProtoFile(filepath.Join(root, "include", "mpix.h"), true)
	if err != nil {
		return err
	}
	if err := checkFeatureMarkers(ext); err != nil {
		return err
	}
	procs = append(append(append(procs, legacy...), mpi41...), ext...)
	sortProcs(procs)
	switch {
	case dump:
		for _, f := range procs {
			fmt.Println(f.Prototype(f.Name) + ";")
		}
		return nil
	case sig != "":
		for _, f := range procs {
			if f.Name == sig {
				fmt.Println(implSignature(f))
				return nil
			}
		}
		return fmt.Errorf("no procedure %s", sig)
	}
	have, generic, err := scanImpls(filepath.Join(root, "capi"))
	if err != nil {
		return err
	}
	via := deriveFromLarge(procs, have, generic)
	implementedToo := map[string]bool{}
	for name := range have {
		implementedToo[name] = true
	}
	for name := range via {
		implementedToo[name] = true
	}
	if err := spliceHeader(filepath.Join(root, "include", "mpi.h"), emitPrototypes(procs)); err != nil {
		return err
	}
	fast, err := loadFastPaths(filepath.Join(root, "capi", "gen", "fastpaths.txt"), procs)
	if err != nil {
		return err
	}
	if err := writeIfChanged(filepath.Join(root, "capi", "zfast.h"), emitFastHeader(procs, fast)); err != nil {
		return err
	}
	if err := writeIfChanged(filepath.Join(root, "capi", "zshim.c"), emitShim(procs, fast)); err != nil {
		return err
	}
	testDir := filepath.Join(root, "ctests", "generated")
	if err := os.MkdirAll(testDir, 0o755); err != nil {
		return err
	}
	if err := writeIfChanged(filepath.Join(testDir, "unimplemented.c"), emitUnimplementedTest(procs, implementedToo)); err != nil {
		return err
	}
	if err := writeIfChanged(filepath.Join(testDir, "features.c"), emitFeatureTest(procs)); err != nil {
		return err
	}
	src, err := format.Source(emitExports(procs, have, via, generic))
	if err != nil {
		return fmt.Errorf("formatting zexports.go: %w", err)
	}
	return writeIfChanged(filepath.Join(root, "capi", "zexports.go"), src)
}

func writeIfChanged(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && string(old) == string(data) {
		return nil
	}
	return os.WriteFile(path, data, 0o644)
}
