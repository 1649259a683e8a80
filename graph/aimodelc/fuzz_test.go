package aimodelc

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseManifest: any bytes give a manifest or an error naming the file,
// never a panic. Seeds are the real packages' manifests, read at test time
// (never copied into testdata), the stateful stand-in's in its three forms
// (testdata/compiled), small forms of the hostile shapes (deep "(", the
// doubling DAG), plus hand-written ones.
func FuzzParseManifest(f *testing.F) {
	ds, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "corpus", "apple-compiled", "*.aimodelc"))
	for _, d := range ds {
		if b, err := os.ReadFile(filepath.Join(d, filepath.FromSlash(pkgDir), manifestFile)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`<?xml version="1.0"?><plist version="1.0"><dict><key>Package Version</key><dict><key>1</key><dict>` +
		`<key>Optimized Modules</key><dict><key>["{\"entryFunctionName\":\"f\",\"compilationDescriptor\":{\"preferredDevice\":2}}"]</key>` +
		`<dict><key>File Name</key><string>s.mpsgraph</string></dict></dict></dict></dict></dict></plist>`))
	f.Add([]byte(`{ "Package Version" = { "1" = { ANERegionsHash = { h18p = "x"; }; }; }; }`)) // OpenStep
	f.Add([]byte("bplist00"))
	for _, p := range []string{
		filepath.Join("..", "..", "testdata", "compiled", "stateful-stand-in.h18p.aimodelc", filepath.FromSlash(pkgDir), manifestFile),
		filepath.Join("..", "..", "testdata", "compiled", "stateful-stand-in-manifest.binary.plist"),
		filepath.Join("..", "..", "testdata", "compiled", "stateful-stand-in-manifest.openstep.plist"),
	} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(strings.Repeat("(", 300)))
	f.Add(dagPlist(12))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseManifest(b, "manifest.plist")
		if err != nil {
			if m != nil {
				t.Fatal("manifest and error")
			}
			return
		}
		for _, fn := range m.Functions {
			if fn.Name == "" {
				t.Fatalf("function without a name: %+v", fn)
			}
			if fn.HasStateInputs != (fn.StateInputs != nil) {
				t.Fatalf("state inputs %v, HasStateInputs %v", fn.StateInputs, fn.HasStateInputs)
			}
		}
	})
}

// FuzzOpenPackage: any manifest and specialized graph in an otherwise
// valid stand-in tree give a package or an error, never a panic, and
// every count presented as known carries its evidence. Seeds: the
// stand-in compiler's files and, at test time, the corpus's.
func FuzzOpenPackage(f *testing.F) {
	base := standInBase(f)
	man, _ := os.ReadFile(filepath.Join(base, filepath.FromSlash(pkgDir), manifestFile))
	spec, _ := os.ReadFile(filepath.Join(base, filepath.FromSlash(pkgDir), "specialized_model_1.mpsgraph"))
	f.Add(man, spec)
	ds, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "corpus", "apple-compiled", "*.aimodelc"))
	for _, d := range ds {
		m, err1 := os.ReadFile(filepath.Join(d, filepath.FromSlash(pkgDir), manifestFile))
		s, err2 := os.ReadFile(filepath.Join(d, filepath.FromSlash(pkgDir), "specialized_model_1.mpsgraph"))
		if err1 == nil && err2 == nil {
			f.Add(m, s)
		}
	}
	f.Fuzz(func(t *testing.T, manifest, graph []byte) {
		dir := filepath.Join(t.TempDir(), "p.aimodelc")
		if err := os.CopyFS(dir, os.DirFS(base)); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(pkgDir))
		os.Chmod(filepath.Join(p, manifestFile), 0o644)
		os.Chmod(filepath.Join(p, "specialized_model_1.mpsgraph"), 0o644)
		if os.WriteFile(filepath.Join(p, manifestFile), manifest, 0o644) != nil || os.WriteFile(filepath.Join(p, "specialized_model_1.mpsgraph"), graph, 0o644) != nil {
			t.Fatal("cannot write the inputs")
		}
		pkg, err := Open(dir, Options{})
		if err != nil {
			return
		}
		for _, fn := range pkg.Functions {
			for _, c := range []Count{fn.ANE, fn.GPU} {
				if c.Known && len(c.Evidence) == 0 {
					t.Fatalf("%s: a known count without evidence", fn.Name)
				}
			}
		}
	})
}

// standInBase writes one stand-in tree (fake-coreai-build.sh, NOT
// coreai-build) for a fuzz target.
func standInBase(f *testing.F) string {
	f.Helper()
	out := f.TempDir()
	cmd := exec.Command("sh", filepath.Join("..", "..", "testdata", "compiler", "fake-coreai-build.sh"), "compile",
		filepath.Join("..", "..", "testdata", "synth", "armA.aimodel"), "--platform", "iOS", "--preferred-compute", "neural-engine",
		"--architecture", "h18p", "--output", out)
	cmd.Env = append(os.Environ(), "FAKE_COREAI_BUILD_SCENARIO=ane", "FAKE_COREAI_BUILD_ANE_REGIONS=2")
	if b, err := cmd.CombinedOutput(); err != nil {
		f.Fatalf("stand-in compiler: %v\n%s", err, b)
	}
	return filepath.Join(out, "armA.h18p.aimodelc")
}
