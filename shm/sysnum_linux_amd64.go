package shm

// sysProcessVMReadv is process_vm_readv's number (the syscall package predates it).
const sysProcessVMReadv = 310
