package bytecode

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// rewriteEnv makes the test binary rewrite one file and exit, so the
// benchmark can measure the peak RSS of a rewrite on its own:
// ANEFIX_BYTECODE_REWRITE=in.mlirb,out.mlirb.
const rewriteEnv = "ANEFIX_BYTECODE_REWRITE"

func TestMain(m *testing.M) {
	if spec := os.Getenv(rewriteEnv); spec != "" {
		in, out, _ := strings.Cut(spec, ",")
		if err := rewriteFile(in, out, os.Getenv(rewriteEnv+"_MODE")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		// The peak RSS of this process alone (rusage of a child can include
		// the parent's memory from before exec).
		if st, err := os.ReadFile("/proc/self/status"); err == nil {
			for _, line := range strings.Split(string(st), "\n") {
				if strings.HasPrefix(line, "VmHWM:") {
					fmt.Println(line)
				}
			}
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fileOut is an output file offering CopyRange the way graph/bundle's main
// writer does: the kernel copies the range (copy_file_range via
// os.File.ReadFrom) instead of user space.
type fileOut struct{ *os.File }

func (o fileOut) CopyRange(f *os.File, off, n int64) error {
	src, err := os.Open(f.Name())
	if err != nil {
		return err
	}
	defer src.Close()
	if _, err := src.Seek(off, io.SeekStart); err != nil {
		return err
	}
	got, err := o.File.ReadFrom(&io.LimitedReader{R: src, N: n})
	if err == nil && got != n {
		err = fmt.Errorf("copied %d of %d bytes", got, n)
	}
	return err
}

// rewriteFile is `anefix convert in.mlirb -o out.mlirb` without a pass:
// read, then write with the input's tables.
//
// mode "copyrange" gives Write an output with CopyRange (as graph/bundle
// does), "file" the plain *os.File, "writer" a bare io.Writer (user-space
// copies only).
func rewriteFile(in, out, mode string) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	m, src, err := Read(f, st.Size(), in)
	if err != nil {
		return err
	}
	o, err := os.Create(out)
	if err != nil {
		return err
	}
	var w io.Writer
	switch mode {
	case "copyrange":
		w = fileOut{o}
	case "file":
		w = o
	default:
		w = writerOnly{o}
	}
	if err := Write(w, m, WriteOptions{Source: src}); err != nil {
		o.Close()
		return err
	}
	return o.Close()
}

// writeSynth writes a synthetic model: 24 layers of 4 fp16 weights each,
// totalling about totalBytes of dense_resource blobs.
func writeSynth(b testing.TB, path string, totalBytes int64) {
	b.Helper()
	per := totalBytes / (24 * 4) &^ 63
	m := synthModule(24*4, per)
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := Write(f, m, WriteOptions{}); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}

// runChild runs cmd and returns its peak RSS in MB: VmHWM as the child
// reports it, else the rusage maximum (an upper bound: it can include the
// parent's memory from before exec).
func runChild(b *testing.B, cmd *exec.Cmd) float64 {
	b.Helper()
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb float64
			if _, err := fmt.Sscanf(strings.TrimSpace(v), "%f kB", &kb); err == nil {
				return kb / 1024
			}
		}
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if ru == nil {
		return 0
	}
	return float64(ru.Maxrss) / 1024 // KiB on Linux
}

// BenchmarkRewrite compares an unchanged read+write of a synthetic model
// with `cp` of the same file, each in a child process so that its peak RSS
// is its own. The 1.5 GB case is skipped with -short.
//
//	go test ./graph/bytecode -run '^$' -bench Rewrite -benchtime 3x
func BenchmarkRewrite(b *testing.B) {
	for _, size := range []struct {
		name  string
		bytes int64
	}{{"64MB", 64 << 20}, {"1.5GB", 1536 << 20}} {
		b.Run(size.name, func(b *testing.B) {
			if testing.Short() && size.bytes > 1<<30 {
				b.Skip("full-size benchmark skipped with -short")
			}
			dir := b.TempDir()
			in := filepath.Join(dir, "main.mlirb")
			t0 := time.Now()
			writeSynth(b, in, size.bytes)
			st, err := os.Stat(in)
			if err != nil {
				b.Fatal(err)
			}
			b.Logf("generated %s (%d bytes) in %v", in, st.Size(), time.Since(t0))
			// Flush the generated file so its writeback does not slow
			// whichever copy runs first.
			syscall.Sync()
			out := filepath.Join(dir, "out.mlirb")
			for _, mode := range []string{"cp", "anefix-copyrange", "anefix-file", "anefix-writer"} {
				b.Run(mode, func(b *testing.B) {
					b.SetBytes(st.Size())
					var rss float64
					for i := 0; i < b.N; i++ {
						b.StopTimer()
						os.Remove(out)
						syscall.Sync() // the previous output's writeback is not this run's cost
						b.StartTimer()
						var cmd *exec.Cmd
						switch mode {
						case "cp":
							cmd = exec.Command("cp", in, out)
						default:
							cmd = exec.Command(os.Args[0], "-test.run=^$")
							cmd.Env = append(os.Environ(), rewriteEnv+"="+in+","+out, rewriteEnv+"_MODE="+strings.TrimPrefix(mode, "anefix-"))
						}
						rss = max(rss, runChild(b, cmd))
					}
					b.ReportMetric(rss, "peakRSS-MB")
					if mode != "cp" {
						b.StopTimer()
						if !sameFile(b, in, out) {
							b.Fatal("rewrite is not byte-identical to its input")
						}
						b.StartTimer()
					}
				})
			}
		})
	}
}

func sameFile(b testing.TB, x, y string) bool {
	b.Helper()
	fx, err := os.Open(x)
	if err != nil {
		b.Fatal(err)
	}
	defer fx.Close()
	fy, err := os.Open(y)
	if err != nil {
		b.Fatal(err)
	}
	defer fy.Close()
	bx, by := make([]byte, 1<<20), make([]byte, 1<<20)
	for {
		nx, ex := io.ReadFull(fx, bx)
		ny, ey := io.ReadFull(fy, by)
		if nx != ny || string(bx[:nx]) != string(by[:ny]) {
			return false
		}
		if ex != nil || ey != nil {
			return (ex == io.EOF || ex == io.ErrUnexpectedEOF) && (ey == io.EOF || ey == io.ErrUnexpectedEOF)
		}
	}
}

// TestCopyPaths: every way of copying blobs (CopyRange, copy_file_range on
// a file, user space) rewrites a file byte for byte.
func TestCopyPaths(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.mlirb")
	writeSynth(t, in, 96*300<<10) // blobs above bigBlob
	for _, mode := range []string{"copyrange", "file", "writer"} {
		out := filepath.Join(dir, mode+".mlirb")
		if err := rewriteFile(in, out, mode); err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if !sameFile(t, in, out) {
			t.Errorf("%s: rewrite differs from its input", mode)
		}
	}
}

// BenchmarkReadWriteIR measures the IR side alone: a module with 20,000
// layers (40,000 ops, 20,000 small resources), read then written unchanged.
func BenchmarkReadWriteIR(b *testing.B) {
	var buf bytes.Buffer
	if err := Write(&buf, synthModule(20000, 64), WriteOptions{}); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		m, src, err := Read(bytes.NewReader(data), int64(len(data)), "ir.mlirb")
		if err != nil {
			b.Fatal(err)
		}
		var out bytes.Buffer
		if err := Write(&out, m, WriteOptions{Source: src}); err != nil {
			b.Fatal(err)
		}
		if out.Len() != len(data) {
			b.Fatal("size changed")
		}
	}
}
