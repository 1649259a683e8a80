//go:build unix

package bundle

import (
	"crypto/sha256"
	"encoding/hex"
	"github.com/anefix/anefix/graph/oracle"
	"path/filepath"
	"syscall"
	"testing"
)

// BenchmarkHashPass measures one SHA-256 pass over a main.mlirb in the page
// cache three ways and reports CPU seconds per pass: "read" is
// fileHasher.run (1 MiB reads on the hashing goroutine), "readahead" reads
// on a second goroutine, as fileHasher did for files it could not map, and
// "mapped" hashes through 16 MiB read-only mappings, as it did for all
// others before 2026-12-03. The file is full-scale arm A when
// ANEFIX_FULL_MODEL names it, else benchSize bytes of filler:
//
//	ANEFIX_FULL_MODEL=armA-full.aimodel go test ./graph/bundle -run '^$' -bench HashPass -benchtime 3x
func BenchmarkHashPass(b *testing.B) {
	full, on := oracle.OptedIn("ANEFIX_FULL_MODEL")
	p := filepath.Join(full, mainFile)
	if !on {
		p = filepath.Join(benchAIModel(b, benchSize(b)), mainFile)
	}
	f := mustOpen(b, p)
	fi, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	size := fi.Size()
	want, err := hashReader(mustOpen(b, p), nil) // also fills the page cache
	if err != nil {
		b.Fatal(err)
	}
	passes := map[string]func() string{
		"read": func() string {
			h := newFileHasher(f, size)
			h.run(nil)
			sum, err := h.result()
			if err != nil {
				b.Fatal(err)
			}
			return sum
		},
		"readahead": func() string {
			const bufs = 4
			full, free := make(chan []byte, bufs), make(chan []byte, bufs)
			for range bufs {
				free <- make([]byte, ckptEvery)
			}
			go func() {
				for off := int64(0); off < size; off += ckptEvery {
					buf := <-free
					n, _ := f.ReadAt(buf[:min(ckptEvery, size-off)], off)
					full <- buf[:n]
				}
				close(full)
			}()
			d := sha256.New()
			for buf := range full {
				d.Write(buf)
				free <- buf[:cap(buf)]
			}
			return hex.EncodeToString(d.Sum(nil))
		},
		"mapped": func() string {
			d := sha256.New()
			const window = 16 << 20
			for off := int64(0); off < size; off += window {
				m, err := syscall.Mmap(int(f.Fd()), off, int(min(window, size-off)), syscall.PROT_READ, syscall.MAP_SHARED)
				if err != nil {
					b.Fatal(err)
				}
				d.Write(m)
				syscall.Munmap(m)
			}
			return hex.EncodeToString(d.Sum(nil))
		},
	}
	for _, name := range []string{"read", "readahead", "mapped"} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(size)
			c0 := cpuSeconds()
			for b.Loop() {
				if got := passes[name](); got != want {
					b.Fatalf("%s pass: SHA-256 %s, want %s", name, got, want)
				}
			}
			b.ReportMetric((cpuSeconds()-c0)/float64(b.N), "CPU-s/pass")
		})
	}
}

func cpuSeconds() float64 {
	var r syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r); err != nil {
		return 0
	}
	return float64(r.Utime.Nano()+r.Stime.Nano()) / 1e9
}
