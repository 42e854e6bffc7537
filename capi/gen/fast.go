package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
)

// loadFastPaths reads the list of procedures that have a C fast path (fastpaths.txt
// beside apis.json: one name a line, '#' comments). Every name must be a procedure the
// generator binds and return int, the type MPIX_FAST_MISS belongs to.
func loadFastPaths(path string, procs []*Proc) (map[string]bool, error) {
	byName := map[string]*Proc{}
	for _, f := range procs {
		byName[f.Name] = f
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	fast := map[string]bool{}
	sc := bufio.NewScanner(fh)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		name := strings.TrimSpace(line)
		if name == "" {
			continue
		}
		f := byName[name]
		switch {
		case f == nil:
			return nil, fmt.Errorf("%s:%d: no procedure %s", path, n, name)
		case f.Ret != "int":
			return nil, fmt.Errorf("%s:%d: %s returns %s, a fast path needs int", path, n, name, f.Ret)
		case fast[name]:
			return nil, fmt.Errorf("%s:%d: %s listed twice", path, n, name)
		}
		fast[name] = true
	}
	return fast, sc.Err()
}

// emitFastHeader renders capi/zfast.h: the declaration of every C fast path, with the
// parameters of the procedure it serves, and the value that sends a call on to Go.
func emitFastHeader(procs []*Proc, fast map[string]bool) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "/* %s */\n\n", banner)
	b.WriteString(`/* The C fast paths that capi/gen/fastpaths.txt lists. PMPI_<name> (zshim.c) calls
 * mpix_fast_<name> with its own arguments first; MPIX_FAST_MISS sends the call on to
 * Go, any other value is the call's return code. */
#ifndef MPIX_ZFAST_H
#define MPIX_ZFAST_H

#include "mpi.h"

#define MPIX_FAST_MISS (-1)

`)
	for _, f := range procs {
		if fast[f.Name] {
			fmt.Fprintf(&b, "%s;\n", f.Prototype("mpix_fast_"+f.Name))
		}
	}
	b.WriteString("\n#endif /* MPIX_ZFAST_H */\n")
	return b.Bytes()
}
