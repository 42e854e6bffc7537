package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCommand(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
		show bool
	}{
		{"compile and link", []string{"a.c", "-o", "a"},
			[]string{"cc", "-I/p/include", "a.c", "-o", "a", "-L/p/lib", "-Wl,-rpath,/p/lib", "-lmpix"}, false},
		{"compile only", []string{"-c", "a.c"}, []string{"cc", "-I/p/include", "-c", "a.c"}, false},
		{"preprocess only", []string{"-E", "a.c"}, []string{"cc", "-I/p/include", "-E", "a.c"}, false},
		{"show", []string{"-show", "a.c"},
			[]string{"cc", "-I/p/include", "a.c", "-L/p/lib", "-Wl,-rpath,/p/lib", "-lmpix"}, true},
		{"openmp passes through", []string{"-fopenmp", "a.c"},
			[]string{"cc", "-I/p/include", "-fopenmp", "a.c", "-L/p/lib", "-Wl,-rpath,/p/lib", "-lmpix"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, show := command("/p", "cc", tc.args)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("command mismatch (-want +got):\n%s", diff)
			}
			if show != tc.show {
				t.Errorf("show = %v, want %v", show, tc.show)
			}
		})
	}
}
