package main

import (
	"bytes"
	"fmt"
	"strings"
)

// emitUnimplementedTest renders ctests/generated/unimplemented.c: a program that calls
// every procedure without an implementation, through its MPI_ name and its PMPI_ name,
// with zero arguments, and checks that each one reaches the error handler with
// MPI_ERR_UNSUPPORTED_OPERATION and a message naming it: never a silent success.
func emitUnimplementedTest(procs []*Proc, have map[string]bool) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "/* %s */\n\n", banner)
	b.WriteString(`/* Calls every procedure mpix does not implement yet and checks that it fails with
 * MPI_ERR_UNSUPPORTED_OPERATION through the error handler, naming itself. */
#include <stdio.h>
#include <string.h>
#include <mpi.h>

static int calls, last_code;
static void record(MPI_Comm *comm, int *code, ...) { (void)comm; calls++; last_code = *code; }

static int failures;
static void expect(const char *name, int before)
{
    int cls = -1, len;
    char msg[MPI_MAX_ERROR_STRING], want[MPI_MAX_ERROR_STRING];
    if (calls != before + 1) {
        printf("FAIL %s: error handler called %d times, want 1\n", name, calls - before);
        failures++;
        return;
    }
    MPI_Error_class(last_code, &cls);
    MPI_Error_string(last_code, msg, &len);
    snprintf(want, sizeof want, "mpix: %s is not implemented yet", name);
    if (cls != MPI_ERR_UNSUPPORTED_OPERATION || strcmp(msg, want) != 0) {
        printf("FAIL %s: class %d message '%s'\n", name, cls, msg);
        failures++;
    }
}

int main(int argc, char **argv)
{
    MPI_Errhandler eh;
    int n = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_create_errhandler(record, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, eh);
`)
	for _, f := range procs {
		if have[f.Name] {
			continue
		}
		var args []string
		for _, p := range f.CallParams() {
			args = append(args, fmt.Sprintf("(%s)0", castType(p)))
		}
		if hasVarargs(f) {
			continue
		}
		for _, name := range []string{f.Name, f.PName()} {
			if strings.HasPrefix(f.Name, "MPI_T_") {
				// The tools interface returns codes instead of calling handlers.
				fmt.Fprintf(&b, "    if (%s(%s) != MPI_T_ERR_NOT_SUPPORTED) { printf(\"FAIL %s: not MPI_T_ERR_NOT_SUPPORTED\\n\"); failures++; } n++;\n",
					name, strings.Join(args, ", "), name)
				continue
			}
			fmt.Fprintf(&b, "    { int before = calls; (void)%s(%s); expect(\"%s\", before); n++; }\n",
				name, strings.Join(args, ", "), f.Name)
		}
	}
	b.WriteString(`    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&eh);
    printf("%d calls to unimplemented procedures checked, %d failures\n", n, failures);
    MPI_Finalize();
    return failures != 0;
}
`)
	return b.Bytes()
}

// castType is the parameter's type for a cast, e.g. "const int *" or "MPI_Comm".
func castType(p Param) string {
	t := p.Base
	if p.Const {
		t = "const " + t
	}
	if p.Inner != "" {
		return t + " (*)[" + p.Inner + "]"
	}
	if l := p.Levels(); l > 0 {
		t += " " + strings.Repeat("*", l)
	}
	return t
}

func hasVarargs(f *Proc) bool {
	for _, p := range f.Params {
		if p.Varargs {
			return true
		}
	}
	return false
}
