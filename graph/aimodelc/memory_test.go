package aimodelc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// allocDuring is the bytes allocated while f runs (TotalAlloc).
func allocDuring(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// graphHeapPerByte bounds what reading a graph file allocates, per byte of
// the file: checked on every graph file of the corpus (main files and
// .mpsgraph files, MLIR 22 bytecode) and of the stand-ins (MLIR text). If
// graph/bytecode or graph/mlirtext start allocating more, this fails and
// the estimate (memory.go) must be raised with them.
func TestGraphHeapEstimate(t *testing.T) {
	type file struct{ root, rel string }
	var files []file
	for _, d := range corpus(t) {
		for _, rel := range []string{"main-h18p.mlirb", pkgDir + "/specialized_model_1.mpsgraph", pkgDir + "/original_model_0.mpsgraph"} {
			files = append(files, file{d, rel})
		}
	}
	files = append(files, file{filepath.Join("..", "..", "testdata", "compiled", "stateful-stand-in.h18p.aimodelc"), pkgDir + "/specialized_model_1.mpsgraph"})
	for _, f := range files {
		fi, err := os.Stat(filepath.Join(f.root, filepath.FromSlash(f.rel)))
		if err != nil {
			t.Fatal(err)
		}
		var rerr error
		got := allocDuring(func() { _, rerr = readGraph(f.root, f.rel) })
		if rerr != nil {
			t.Fatal(rerr)
		}
		per := float64(got) / float64(fi.Size())
		t.Logf("%s/%s: %d bytes, allocated %d (%.1f× the file)", filepath.Base(f.root), f.rel, fi.Size(), got, per)
		if int64(got) > graphHeap(fi.Size()) {
			t.Errorf("%s: reading allocated %.1f× the file, over the estimate of %d×", f.rel, per, graphHeapPerByte)
		}
	}
}

// jsonHeapPerByte bounds reading and parsing metadata.json and stats.json,
// on large generated ones (the shapes that cost most per byte: many short
// entries).
func TestJSONHeapEstimate(t *testing.T) {
	var stats strings.Builder
	stats.WriteString(`{"operationDistribution":[`)
	for i := range 200000 {
		if i > 0 {
			stats.WriteString(",")
		}
		fmt.Fprintf(&stats, `{"name":"op%d","count":%d}`, i%7, i)
	}
	stats.WriteString(`],"storageTypes":[],"computeTypes":["a","b"]}`)
	var meta, keys strings.Builder
	meta.WriteString(`{"producer":"p"`)
	for i := range 200000 {
		fmt.Fprintf(&meta, `,"k%d":[{},1]`, i)
	}
	meta.WriteString("}")
	keys.WriteString(`{"producer":"p"`)
	for i := range 400000 {
		fmt.Fprintf(&keys, `,"%x":0`, i)
	}
	keys.WriteString("}")
	for _, c := range []struct {
		name, text string
	}{{statsFile, stats.String()}, {metadataFile, meta.String()}, {metadataFile, keys.String()}} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, c.name), []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		p := &Package{Root: dir}
		got := allocDuring(func() { p.readSmallFiles() })
		per := float64(got) / float64(len(c.text))
		t.Logf("%s: %d bytes, allocated %d (%.2f× the file); problems %q", c.name, len(c.text), got, per, p.Problems)
		if int64(got) > jsonHeap(int64(len(c.text))) {
			t.Errorf("%s: reading allocated %.2f× the file, over the estimate of %d×", c.name, per, jsonHeapPerByte)
		}
	}
}

// Options.MaxMemory refuses each step past it before the step allocates:
// a graph file by its estimate, and a manifest whose decoded values pass
// what the limit leaves beside the file (counted while decoding).
func TestMaxMemory(t *testing.T) {
	dir := statefulStandIn(t)
	if _, err := Open(dir, Options{MaxMemory: 1 << 20}); err != nil {
		t.Fatalf("1 MiB: %v", err)
	}
	spec, err := os.Stat(filepath.Join(dir, filepath.FromSlash(pkgDir), "specialized_model_1.mpsgraph"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(dir, Options{MaxMemory: 16 << 10})
	var me *MemoryError
	if !errors.As(err, &me) || !errors.Is(err, errMemory) || !strings.Contains(me.What, "specialized_model_1.mpsgraph") || me.Need != graphHeap(spec.Size()) {
		t.Errorf("16 KiB: %v", err)
	}
	// A manifest of 400 KB whose values decode to more than the 200 KB
	// the limit leaves: refused as over the memory limit, not as a
	// malformed manifest.
	man := readStandInManifest(t, "xml")
	pad := "<key>Padding</key><array>" + strings.Repeat("<string>padding-value</string>", 14000) + "</array>"
	man = []byte(strings.Replace(string(man), "<key>Resource Storage Mode</key>", pad+"<key>Resource Storage Mode</key>", 1))
	setManifest(t, dir, man)
	limit := int64(len(man)) + 200<<10
	_, err = Open(dir, Options{MaxMemory: limit})
	if !errors.As(err, &me) || me.Need != 0 || !strings.Contains(me.What, "manifest.plist and its decoded values") {
		t.Errorf("%d bytes for a %d-byte manifest: %v", limit, len(man), err)
	}
	if p, err := Open(dir, Options{MaxMemory: 64 << 20}); err != nil || len(p.Functions) != 1 {
		t.Errorf("64 MiB: %v", err)
	}
}
