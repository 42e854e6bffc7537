package shm

// sysProcessVMReadv is process_vm_readv's number (the syscall package predates it).
const sysProcessVMReadv = 310

// sysProcessVMWritev is process_vm_writev's number.
const sysProcessVMWritev = 311
