//go:build unix

package modelio_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/bytecode"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/modelio"
	"github.com/anefix/anefix/graph/synth"
)

// a96 is tiny synth arm A with 96 layers (25.8k ops, issue 22's codec
// input) in the three forms: generic text, pretty text and bytecode.
var a96 = sync.OnceValues(func() (map[string][]byte, error) {
	m, err := synth.Generate(synth.Options{Arm: synth.ArmA, Layers: 96})
	if err != nil {
		return nil, err
	}
	var bc bytes.Buffer
	if err := bytecode.Write(&bc, m, bytecode.WriteOptions{}); err != nil {
		return nil, err
	}
	// The text forms of the module as read back from its bytecode, as
	// `anefix convert a96.aimodel -o a96.mlir --emit generic|pretty` makes them.
	rm, _, err := bytecode.Read(bytes.NewReader(bc.Bytes()), int64(bc.Len()), "a96.mlirb")
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{modelio.FormBytecode: bc.Bytes()}
	for form, f := range map[string]mlirtext.Form{modelio.FormGeneric: mlirtext.FormGeneric, modelio.FormPretty: mlirtext.FormPretty} {
		if out[form], err = mlirtext.Format(rm, f); err != nil {
			return nil, err
		}
	}
	return out, nil
})

// cpuTime is the process's CPU time so far (all threads, GC included).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// timed runs f b.N times and reports its CPU time per op besides the wall
// time: on a loaded machine CPU time is the steadier of the two.
func timed(b *testing.B, f func()) {
	b.ReportAllocs()
	c0 := cpuTime()
	b.ResetTimer()
	for range b.N {
		f()
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N)/1e6, "cpu-ms/op")
}

func loadA96(b *testing.B) map[string][]byte {
	b.Helper()
	files, err := a96()
	if err != nil {
		b.Fatal(err)
	}
	return files
}

// decode reads data in form; src is the bytecode reader's record (nil for
// text), which a bytecode write of the module keeps, as convert does.
func decode(b *testing.B, form string, data []byte) (m *graph.Module, src *bytecode.Source) {
	b.Helper()
	var err error
	if form == modelio.FormBytecode {
		m, src, err = bytecode.Read(bytes.NewReader(data), int64(len(data)), "a96.mlirb")
	} else {
		m, _, err = mlirtext.Parse("a96.mlir", string(data))
	}
	if err != nil {
		b.Fatal(err)
	}
	return m, src
}

func encode(b *testing.B, form string, m *graph.Module, src *bytecode.Source, w io.Writer) {
	b.Helper()
	var err error
	switch form {
	case modelio.FormBytecode:
		err = bytecode.Write(w, m, bytecode.WriteOptions{Source: src})
	case modelio.FormGeneric:
		err = mlirtext.Write(w, m, mlirtext.FormGeneric)
	default:
		err = mlirtext.Write(w, m, mlirtext.FormPretty)
	}
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCodecA96 times each step of the codecs on issue 22's input:
// decode (text parse, bytecode read), verify, encode (print, write), and a
// round trip as `anefix convert IN -o OUT --emit FORM` makes it in-process
// (modelio.Load of a file, the writer's check, modelio.Save to a file).
//
//	go test ./graph/modelio -run '^$' -bench CodecA96 -benchmem
//
// -cpuprofile/-memprofile with -bench CodecA96/FORM/STEP profile one step.
func BenchmarkCodecA96(b *testing.B) {
	files := loadA96(b)
	for _, form := range []string{modelio.FormGeneric, modelio.FormPretty, modelio.FormBytecode} {
		data := files[form]
		b.Run(form, func(b *testing.B) {
			b.Run("decode", func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				timed(b, func() { decode(b, form, data) })
			})
			m, src := decode(b, form, data)
			b.Run("verify", func(b *testing.B) {
				timed(b, func() {
					if err := graph.VerifyWritable(m); err != nil {
						b.Fatal(err)
					}
				})
			})
			b.Run("encode", func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				timed(b, func() { encode(b, form, m, src, io.Discard) })
			})
			if form != modelio.FormBytecode {
				// Text read, bytecode written: the tables built anew.
				b.Run("encode-bytecode", func(b *testing.B) {
					timed(b, func() { encode(b, modelio.FormBytecode, m, nil, io.Discard) })
				})
			}
			b.Run("roundtrip", func(b *testing.B) {
				dir := b.TempDir()
				ext := ".mlir"
				if form == modelio.FormBytecode {
					ext = ".mlirb"
				}
				in, out := filepath.Join(dir, "in"+ext), filepath.Join(dir, "out"+ext)
				if err := os.WriteFile(in, data, 0o644); err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(data)))
				timed(b, func() {
					ld, err := modelio.Load(in, modelio.LoadOptions{})
					if err != nil {
						b.Fatal(err)
					}
					if err := graph.VerifyWritable(ld.Module); err != nil {
						b.Fatal(err)
					}
					if _, err := modelio.Save(out, ld.Module, ld, modelio.SaveOptions{Emit: form, Force: true}); err != nil {
						b.Fatal(err)
					}
					ld.Close()
				})
				got, err := os.ReadFile(out)
				if err != nil {
					b.Fatal(err)
				}
				if !bytes.Equal(got, data) {
					b.Fatal("the round trip changed the file")
				}
			})
		})
	}
}
