//go:build unix

package bundle

import (
	"errors"
	"os"
	"syscall"
)

// abandoned reports whether a temporary named for process pid is provably
// left over: it belongs to this user and no process pid exists (kill with
// signal 0 answers ESRCH). A reused pid makes it look alive, which only
// leaves the temporary for a later run.
func abandoned(fi os.FileInfo, pid int) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) != os.Getuid() {
		return false
	}
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
