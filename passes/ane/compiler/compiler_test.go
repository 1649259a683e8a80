package compiler

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The compiler here is testdata/compiler/fake-coreai-build.sh, a STAND-IN:
// nothing these tests see is a measurement of coreai-build.
func standIn(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "..", "testdata", "compiler", "fake-coreai-build.sh"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var armA = filepath.Join("..", "..", "..", "testdata", "synth", "armA.aimodel")

func TestNoCompiler(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv(EnvCompiler, "")
	if _, err := Command(DefaultOptions()); !errors.Is(err, ErrNoCompiler) {
		t.Errorf("want ErrNoCompiler, got %v", err)
	}
	if _, err := Run(context.Background(), DefaultOptions(), armA); !errors.Is(err, ErrNoCompiler) {
		t.Errorf("Run: want ErrNoCompiler, got %v", err)
	}
}

func TestRunCounts(t *testing.T) {
	t.Setenv("FAKE_COREAI_BUILD_ANE_IF", "")
	cases := []struct {
		scenario, regions string
		want              int
		exit              int
	}{
		{"ane", "2", 2, 0},
		{"ane", "1", 1, 0},
		{"fallback", "", 0, 0},
		{"crash", "", 0, 139},
	}
	for _, c := range cases {
		t.Run(c.scenario+c.regions, func(t *testing.T) {
			t.Setenv("FAKE_COREAI_BUILD_SCENARIO", c.scenario)
			t.Setenv("FAKE_COREAI_BUILD_ANE_REGIONS", c.regions)
			o := DefaultOptions()
			o.Compiler = standIn(t)
			res, err := Run(context.Background(), o, armA)
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != c.exit || res.Regions != c.want || len(res.RegionFiles) != c.want {
				t.Errorf("exit %d, %d regions in %q", res.ExitCode, res.Regions, res.RegionFiles)
			}
			if c.exit == 0 && (!res.RegionsKnown || res.Package == nil) {
				t.Errorf("count not settled: %+v", res.Package)
			}
			if c.exit != 0 && res.Package != nil {
				t.Errorf("a crashed compile has no package")
			}
		})
	}
}

// The package is found whether the compiler writes it into the --output
// directory (what public build scripts expect) or makes --output itself the
// package; two packages, or none, are not guessed between.
func TestLocatePackage(t *testing.T) {
	inside := t.TempDir()
	mk := func(dir string) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "main-h18p.mlirb"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk(filepath.Join(inside, "m.h18p.aimodelc"))
	if p, err := locatePackage(inside); err != nil || p != filepath.Join(inside, "m.h18p.aimodelc") {
		t.Errorf("inside: %q %v", p, err)
	}
	itself := t.TempDir()
	mk(itself)
	if p, err := locatePackage(itself); err != nil || p != itself {
		t.Errorf("itself: %q %v", p, err)
	}
	mk(filepath.Join(inside, "other.h18p.aimodelc"))
	if _, err := locatePackage(inside); err == nil || !strings.Contains(err.Error(), "2 .aimodelc packages") {
		t.Errorf("two packages: %v", err)
	}
	if p, err := locatePackage(t.TempDir()); err != nil || p != "" {
		t.Errorf("none: %q %v", p, err)
	}
}

// --keep never writes through a link at the log's name, nor replaces a
// file there: the compile is refused before it starts. Before, os.Create
// followed the link and truncated its target.
func TestKeepLogNotFollowed(t *testing.T) {
	t.Setenv("FAKE_COREAI_BUILD_SCENARIO", "ane")
	keep := t.TempDir()
	target := filepath.Join(t.TempDir(), "precious")
	if err := os.WriteFile(target, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(keep, "armA.coreai-build.log")); err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.Compiler, o.Keep = standIn(t), keep
	if _, err := Run(context.Background(), o, armA); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("err %v, want a refusal", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep me" {
		t.Errorf("the link's target was written: %q", b)
	}
}
