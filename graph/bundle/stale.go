package bundle

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Hidden siblings of an output are named
//
//	.<output name>.anefix-<role>-<pid>-<random digits>
//
// with role "tmp" (a new output being built) or "old" (a previous output
// moved aside while a directory is replaced without RENAME_EXCHANGE), so
// that a later run on the same output can find those a killed process
// (SIGKILL, a crash, a power cut) left behind, and tell them from those a
// running process is still writing.
//
// A long output name is shortened in them (tempBase), so that an output
// name the file system takes always has a temporary name it takes too.
func tempPattern(abs, role string) string {
	return "." + tempBase(filepath.Base(abs)) + ".anefix-" + role + "-" + strconv.Itoa(os.Getpid()) + "-"
}

// maxTempBase is the longest output name kept whole in a temporary's name:
// NAME_MAX (255 bytes on Linux, macOS and Windows) less the dot, the
// ".anefix-tmp-" (12), a pid and the random digits os.CreateTemp and
// os.MkdirTemp add (up to 10 each), and the dash between them.
const maxTempBase = 255 - 1 - 12 - 10 - 1 - 10

// tempBase is base when it fits in a temporary's name, else its first
// bytes (whole UTF-8 characters), "~" and 16 hex digits of its SHA-256:
// still one name per output, and still recognisable to the user.
func tempBase(base string) string {
	if len(base) <= maxTempBase {
		return base
	}
	sum := sha256.Sum256([]byte(base))
	tag := "~" + hex.EncodeToString(sum[:8])
	head := base[:maxTempBase-len(tag)]
	for len(head) > 0 && !utf8.ValidString(head) {
		head = head[:len(head)-1]
	}
	return head + tag
}

// staleTemp parses a hidden sibling's name; ok is false for any name
// anefix does not give its temporaries (those are never touched).
func staleTemp(base, name string) (role string, pid int, ok bool) {
	rest, found := strings.CutPrefix(name, "."+tempBase(base)+".anefix-")
	if !found {
		return "", 0, false
	}
	role, rest, found = strings.Cut(rest, "-")
	if !found || (role != "tmp" && role != "old") {
		return "", 0, false
	}
	p, rnd, found := strings.Cut(rest, "-")
	if !found || !allDigits(p) || !allDigits(rnd) {
		return "", 0, false
	}
	pid, err := strconv.Atoi(p)
	if err != nil || pid <= 0 {
		return "", 0, false
	}
	return role, pid, true
}

// legacyTemp reports a name earlier versions gave their temporaries
// (.<output>.anefix-tmp-<random digits>, no pid), which cannot be proved
// abandoned.
func legacyTemp(base, name string) bool {
	for _, role := range []string{"tmp", "old"} {
		if rest, ok := strings.CutPrefix(name, "."+base+".anefix-"+role+"-"); ok && allDigits(rest) {
			return true
		}
	}
	return false
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// cleanStale looks beside the output abs for temporaries of earlier runs.
// One is removed only when it is provably anefix's and abandoned: its name
// is one anefix gives (above), it belongs to this user, and the process
// named in it is not running (see abandoned). A moved-aside previous
// output ("old") is put back when the output path is missing (the run was
// killed between its two renames), else removed. Each finding is reported
// through warn; a temporary of a running process is reported and left.
func cleanStale(abs string, warn func(string)) {
	parent, base := filepath.Dir(abs), filepath.Base(abs)
	des, err := os.ReadDir(parent)
	if err != nil {
		return // checkTarget reports an unusable directory
	}
	for _, de := range des { // sorted: "old" before "tmp"
		role, pid, ok := staleTemp(base, de.Name())
		p := filepath.Join(parent, de.Name())
		if !ok {
			if legacyTemp(base, de.Name()) {
				warn(fmt.Sprintf("%s looks like a temporary of an earlier anefix, whose names carry no process id, so it is not provably abandoned; left alone (remove it yourself if no anefix is writing %s)", p, abs))
			}
			continue
		}
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if pid == os.Getpid() {
			continue // this process's own, still in use
		}
		if !abandoned(fi, pid) {
			warn(fmt.Sprintf("%s looks like a temporary of anefix process %d, which is still running or not this user's; left alone", p, pid))
			continue
		}
		if role == "old" {
			if _, err := os.Lstat(abs); os.IsNotExist(err) {
				if err := os.Rename(p, abs); err == nil {
					warn(fmt.Sprintf("put back the previous output %s from %s, where anefix process %d (no longer running) had moved it before it was stopped", abs, p, pid))
					continue
				}
			}
		}
		what := "unfinished output"
		if role == "old" {
			what = "already replaced previous output"
		}
		if err := os.RemoveAll(p); err != nil {
			warn(fmt.Sprintf("could not remove the stale temporary %s (an %s left by anefix process %d, no longer running): %v", p, what, pid, err))
			continue
		}
		warn(fmt.Sprintf("removed the stale temporary %s (an %s left by anefix process %d, which is no longer running)", p, what, pid))
	}
}

// stderrWarn is where stale-temporary findings go when the caller gives no
// Warn function.
func stderrWarn(msg string) { fmt.Fprintln(os.Stderr, "anefix: "+msg) }
