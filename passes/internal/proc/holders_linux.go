package proc

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
)

// pipeHolders lists the processes other than this one that hold the pipe
// pr is the read end of, by its inode in /proc/PID/fd (only processes this
// user may read: the test's own, as a rule).
func pipeHolders(pr *os.File) []int {
	fi, err := pr.Stat()
	if err != nil {
		return nil
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	want := "pipe:[" + strconv.FormatUint(st.Ino, 10) + "]"
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var out []int
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == self {
			continue
		}
		fds, err := os.ReadDir(filepath.Join("/proc", p.Name(), "fd"))
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if l, err := os.Readlink(filepath.Join("/proc", p.Name(), "fd", fd.Name())); err == nil && l == want {
				out = append(out, pid)
				break
			}
		}
	}
	sort.Ints(out)
	return out
}
