package bundle

import (
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// deadPid returns the pid of a process that has exited.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.ProcessState.Pid()
}

// A write finds the temporaries killed runs left beside its output,
// removes (or, for a moved-aside previous output whose output path is
// gone, puts back) only those provably anefix's and abandoned, and says
// what it did; anything else is left alone.
func TestStaleTemporaries(t *testing.T) {
	dead := strconv.Itoa(deadPid(t))
	live := strconv.Itoa(os.Getppid())
	cases := []struct {
		name      string
		outExists bool
		left      string // the hidden sibling made before the write
		gone      bool   // removed or put back
		warn      string // "" for none
	}{
		{"dead tmp", true, ".o.anefix-tmp-" + dead + "-123", true, "removed the stale temporary"},
		{"dead tmp, no output", false, ".o.anefix-tmp-" + dead + "-9", true, "removed the stale temporary"},
		{"dead old, output present", true, ".o.anefix-old-" + dead + "-77", true, "already replaced previous output"},
		{"dead old, output gone", false, ".o.anefix-old-" + dead + "-77", true, "put back the previous output"},
		{"live tmp", true, ".o.anefix-tmp-" + live + "-5", false, "still running"},
		{"no pid (an earlier version's)", true, ".o.anefix-tmp-123456", false, "not provably abandoned; left alone"},
		{"not digits", true, ".o.anefix-tmp-" + dead + "-notes", false, ""},
		{"other output", true, ".p.anefix-tmp-" + dead + "-1", false, ""},
		{"other role", true, ".o.anefix-mine-" + dead + "-1", false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "o")
			if c.outExists {
				os.WriteFile(out, []byte("module {\n}\n"), 0o644)
			}
			p := filepath.Join(dir, c.left)
			os.Mkdir(p, 0o755)
			os.WriteFile(filepath.Join(p, "main.mlirb"), []byte("x"), 0o644)
			var warns []string
			_, err := Write(out, KindText, nil, func(w io.Writer) error { _, err := io.WriteString(w, "module {\n}\n"); return err },
				WriteOptions{Force: true, Warn: func(m string) { warns = append(warns, m) }})
			if err != nil {
				t.Fatal(err)
			}
			_, serr := os.Lstat(p)
			if gone := os.IsNotExist(serr); gone != c.gone {
				t.Errorf("%s gone = %v, want %v", c.left, gone, c.gone)
			}
			joined := strings.Join(warns, "\n")
			if c.warn == "" && joined != "" || c.warn != "" && !strings.Contains(joined, c.warn) {
				t.Errorf("warnings %q, want one containing %q", joined, c.warn)
			}
		})
	}
	// Put back, and refused without --force as any existing output is.
	dir := t.TempDir()
	out := filepath.Join(dir, "o.aimodel")
	old := filepath.Join(dir, ".o.aimodel.anefix-old-"+dead+"-1")
	os.Mkdir(old, 0o755)
	os.WriteFile(filepath.Join(old, "main.mlirb"), []byte("previous"), 0o644)
	_, err := Write(out, KindText, nil, func(w io.Writer) error { return nil }, WriteOptions{Warn: func(string) {}})
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("after putting back: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "main.mlirb")); string(b) != "previous" {
		t.Errorf("previous output not put back: %q", b)
	}
}

// With the two-rename fallback (no RENAME_EXCHANGE) a signal handler's
// RemovePending at any moment of a forced directory replacement leaves a
// complete output, the old or the new, and no hidden sibling: the commit
// holds the lock RemovePending takes.
func TestRemovePendingDuringFallbackCommit(t *testing.T) {
	noExchange = true
	defer func() { noExchange = false }()
	src := t.TempDir()
	files(t, src, aimodel(""))
	in := open(t, src, OpenOptions{})
	dir := t.TempDir()
	out := filepath.Join(dir, "o.aimodel")
	enc := encode(bcNew)
	if _, err := Write(out, KindAIModel, in, enc, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	Write(out, KindAIModel, in, enc, WriteOptions{Force: true})
	one := time.Since(start)
	for i := range 300 {
		done := make(chan struct{})
		go func() {
			defer close(done)
			Write(out, KindAIModel, in, enc, WriteOptions{Force: true})
		}()
		time.Sleep(time.Duration(rand.Int64N(int64(one) * 12 / 10)))
		RemovePending()
		<-done
		pending.Lock()
		pending.stopped = false
		pending.Unlock()
		if _, err := os.Stat(filepath.Join(out, mainFile)); err != nil {
			t.Fatalf("run %d: output incomplete: %v", i, err)
		}
		des, _ := os.ReadDir(dir)
		if len(des) != 1 {
			var names []string
			for _, de := range des {
				names = append(names, de.Name())
			}
			t.Fatalf("run %d: %q", i, names)
		}
	}
}

// staleTemp accepts exactly the names tempPattern and MkdirTemp/CreateTemp
// give: whatever it accepts is rebuilt from its parts.
func FuzzStaleTemp(f *testing.F) {
	f.Add("o.aimodel", ".o.aimodel.anefix-tmp-123-456")
	f.Add("o", ".o.anefix-old-1-2")
	f.Add("o", ".o.anefix-tmp-12")
	f.Add("o", ".o.anefix-tmp--1-2")
	f.Add("a-b", ".a-b.anefix-tmp-0-0")
	long := strings.Repeat("n", 240)
	f.Add(long, "."+tempBase(long)+".anefix-tmp-1-2")
	f.Add(long, "."+long+".anefix-tmp-1-2")
	f.Fuzz(func(t *testing.T, base, name string) {
		role, pid, ok := staleTemp(base, name)
		if !ok {
			return
		}
		if pid <= 0 || (role != "tmp" && role != "old") {
			t.Fatalf("%q: role %q pid %d", name, role, pid)
		}
		prefix := "." + tempBase(base) + ".anefix-" + role + "-"
		rest, found := strings.CutPrefix(name, prefix)
		p, rnd, _ := strings.Cut(rest, "-")
		if !found || !allDigits(p) || !allDigits(rnd) || strings.TrimLeft(p, "0") != strconv.Itoa(pid) {
			t.Fatalf("%q accepted as role %q pid %d", name, role, pid)
		}
	})
}
