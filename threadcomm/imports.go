package threadcomm

// The C of this package links against theirs: the reduction kernels its collectives
// fold with, and shm's fast ABI (the communicator table, datatype sizes), which it
// shares with the fast paths between processes.
import (
	_ "mpix/kernels"
	_ "mpix/shm"
)
