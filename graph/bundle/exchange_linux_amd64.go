package bundle

// sysRenameat2 is renameat2's number on x86-64 (Linux's
// arch/x86/entry/syscalls/syscall_64.tbl); the standard library's syscall
// package has no SYS_RENAMEAT2 for amd64, only for newer ports.
const sysRenameat2 = 316
