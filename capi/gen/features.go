package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// featureDefine matches a feature-test macro that include/mpix.h defines.
var featureDefine = regexp.MustCompile(`^#define (MPIX_HAVE_[A-Z0-9_]+) 1$`)

// definedFeatures lists the MPIX_HAVE_* macros include/mpix.h defines.
func definedFeatures(path string) (map[string]bool, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	defined := map[string]bool{}
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		if m := featureDefine.FindStringSubmatch(strings.TrimSpace(sc.Text())); m != nil {
			defined[m[1]] = true
		}
	}
	return defined, sc.Err()
}

// checkFeatureMarkers requires every prototype of include/mpix.h to sit under a
// "/* feature MPIX_HAVE_X */" marker, so that no extension escapes the feature test.
func checkFeatureMarkers(procs []*Proc) error {
	for _, f := range procs {
		if f.Ext && f.Feature == "" {
			return fmt.Errorf("include/mpix.h: %s is not under a /* feature MPIX_HAVE_* */ marker", f.Name)
		}
	}
	return nil
}

// emitFeatureTest renders ctests/generated/features.c: for every feature section of
// mpix.h, under #ifdef of its macro, a call of each of its procedures (MPI_ and PMPI_
// names) that must not answer MPI_ERR_UNSUPPORTED_OPERATION, the class of a procedure
// without an implementation. The test thus fails when mpix.h defines a feature macro
// for something that does not work, whichever macros the installed header defines.
// The calls pass zero arguments (invalid handles, NULL pointers, zero counts), which
// the generated argument checks reject before an implementation runs.
func emitFeatureTest(procs []*Proc) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "/* %s */\n\n", banner)
	b.WriteString(`/* Calls every procedure that mpix.h declares under a feature macro it defines
 * (MPIX_HAVE_*) and fails if one of them is not implemented. */
#include <stdio.h>
#include <mpi.h>

static int checked, failures;
static void check(const char *feature, const char *name, int rc)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    checked++;
    if (cls == MPI_ERR_UNSUPPORTED_OPERATION) {
        printf("FAIL mpix.h defines %s but %s is not implemented\n", feature, name);
        failures++;
    }
}

int main(int argc, char **argv)
{
    int features = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
`)
	var order []string
	byFeature := map[string][]*Proc{}
	for _, f := range procs {
		if !f.Ext || f.Feature == "" || hasVarargs(f) {
			continue
		}
		if byFeature[f.Feature] == nil {
			order = append(order, f.Feature)
		}
		byFeature[f.Feature] = append(byFeature[f.Feature], f)
	}
	for _, feature := range order {
		fmt.Fprintf(&b, "#ifdef %s\n    features++;\n", feature)
		for _, f := range byFeature[feature] {
			var args []string
			for _, p := range f.CallParams() {
				args = append(args, fmt.Sprintf("(%s)0", castType(p)))
			}
			for _, name := range []string{f.Name, f.PName()} {
				fmt.Fprintf(&b, "    check(\"%s\", \"%s\", %s(%s));\n", feature, name, name, strings.Join(args, ", "))
			}
		}
		b.WriteString("#endif\n")
	}
	b.WriteString(`    printf("%d feature macros with procedures defined, %d calls checked, %d failures\n", features, checked, failures);
    MPI_Finalize();
    return failures != 0;
}
`)
	return b.Bytes()
}
