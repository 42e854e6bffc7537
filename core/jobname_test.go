package core

import (
	"strings"
	"testing"
)

// TestJobName: every launcher's KVS name gives a name shm accepts (letters,
// digits, '.', '_', '-'; at most 128 bytes with the VCI suffix).
func TestJobName(t *testing.T) {
	tests := []struct{ kvs, want string }{
		{"kvs_27694_0_282254076_vm", "kvs_27694_0_282254076_vm-42"}, // Hydra
		{"1.0", "1.0-42"},                             // Slurm PMI-2
		{"slurm.pmix.2.0", "slurm.pmix.2.0-42"},       // Slurm PMIx
		{"prterun-vm-1234@1", "prterun-vm-1234_1-42"}, // PRRTE
		{"a/b c", "a_b_c-42"},
		{strings.Repeat("x", 100) + "end", strings.Repeat("x", 61) + "end-42"},
	}
	for _, tt := range tests {
		if got := jobName(tt.kvs, 42); got != tt.want {
			t.Errorf("jobName(%q) = %q, want %q", tt.kvs, got, tt.want)
		}
	}
}
