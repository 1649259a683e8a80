package bundle

import (
	"os"
	"syscall"
)

// changeTime is fi's status change time (ctime) in nanoseconds: unlike the
// modification time, no one can set it back.
func changeTime(fi os.FileInfo) int64 {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0
	}
	return st.Ctim.Nano()
}
