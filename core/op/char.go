package op

import "runtime"

// eChar is the representation of C's plain char, whose signedness the platform's C ABI
// fixes: signed on x86 and most others, unsigned on Arm, POWER, s390x and RISC-V under
// Linux. MPI_CHAR reductions wrap as C char arithmetic does on the same machine (the
// kernels in kernels/fold.c decide the same way, from CHAR_MIN).
var eChar = charElem(runtime.GOARCH)

func charElem(arch string) elem {
	switch arch {
	case "arm", "arm64", "ppc64", "ppc64le", "s390x", "riscv64":
		return eU8
	}
	return eI8
}
