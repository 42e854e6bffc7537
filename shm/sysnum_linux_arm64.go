package shm

// sysProcessVMReadv is process_vm_readv's number (the syscall package predates it).
const sysProcessVMReadv = 270

// sysProcessVMWritev is process_vm_writev's number.
const sysProcessVMWritev = 271
