package aimodelc

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseManifest: any bytes give a manifest or an error naming the file,
// never a panic. Seeds are the real packages' manifests, read at test time
// (never copied into testdata), plus the stand-in compiler's.
func FuzzParseManifest(f *testing.F) {
	ds, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "corpus", "apple-compiled", "*.aimodelc"))
	for _, d := range ds {
		if b, err := os.ReadFile(filepath.Join(d, filepath.FromSlash(pkgDir), ManifestFile)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`<?xml version="1.0"?><plist version="1.0"><dict><key>Package Version</key><dict><key>1</key><dict>` +
		`<key>Optimized Modules</key><dict><key>["{\"entryFunctionName\":\"f\",\"compilationDescriptor\":{\"preferredDevice\":2}}"]</key>` +
		`<dict><key>File Name</key><string>s.mpsgraph</string></dict></dict></dict></dict></dict></plist>`))
	f.Add([]byte(`{ "Package Version" = { "1" = { ANERegionsHash = { h18p = "x"; }; }; }; }`)) // OpenStep
	f.Add([]byte("bplist00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseManifest(b, "manifest.plist")
		if err != nil {
			if m != nil {
				t.Fatal("manifest and error")
			}
			return
		}
		for _, fn := range m.Functions {
			if fn.Name == "" || fn.File == "" {
				t.Fatalf("function without name or file: %+v", fn)
			}
		}
	})
}
