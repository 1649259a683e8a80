package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/anefix/anefix/graph/oracle"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestCommandSnapshot records what every command prints and writes on the
// repository's test inputs, so that a refactoring can be checked to change
// no output, byte for byte:
//
//	ANEFIX_SNAPSHOT=/tmp/before go test ./cmd/anefix -run TestCommandSnapshot   # on the old commit
//	ANEFIX_SNAPSHOT=/tmp/after  go test ./cmd/anefix -run TestCommandSnapshot   # on the new one
//	diff -r /tmp/before /tmp/after
//
// Each command line gets one file: its exit code, stdout and stderr, and
// the SHA-256 of every file it wrote. The outputs are written under one
// fixed work directory, so paths in messages are the same on every run.
// Wall times (--timings, verify's throughput line) are masked. Without
// ANEFIX_SNAPSHOT the test is skipped: it writes files outside the test's
// temporary directory.
func TestCommandSnapshot(t *testing.T) {
	dst := oracle.OptIn(t, "ANEFIX_SNAPSHOT", "DIR to record every command's output on testdata (see the comment)")
	work := filepath.Join(os.TempDir(), "anefix-snapshot-work")
	os.RemoveAll(work)
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(work)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	var inputs []string
	for _, pat := range []string{"../../testdata/synth/*.aimodel", "../../testdata/mlir/*/*.mlir", "../../testdata/passes/*.mlir",
		"../../testdata/states/*.mlir", "../../testdata/hazards/*.mlir", "../../testdata/numerics/*.mlir", "../../testdata/rules/*.mlir",
		"../../testdata/calibration/*.mlir", "../../testdata/compiled/*.aimodelc"} {
		m, _ := filepath.Glob(pat)
		inputs = append(inputs, m...)
	}
	sort.Strings(inputs)
	n := 0
	record := func(name string, args ...string) {
		n++
		out := filepath.Join(work, fmt.Sprintf("%04d", n))
		for i, a := range args {
			args[i] = strings.ReplaceAll(a, "OUT", out)
		}
		code, stdout, stderr := runCLI(t, "", args...)
		var b strings.Builder
		fmt.Fprintf(&b, "$ anefix %s\nexit %d\n--- stdout\n%s\n--- stderr\n%s\n--- files\n", strings.Join(args, " "), code, maskTimes(stdout), maskTimes(stderr))
		filepath.WalkDir(work, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasPrefix(p, out) {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			sum := sha256.Sum256(data)
			rel, _ := filepath.Rel(work, p)
			fmt.Fprintf(&b, "%s %s\n", hex.EncodeToString(sum[:]), rel)
			return nil
		})
		if err := os.WriteFile(filepath.Join(dst, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	record("passes.txt", "passes")
	record("passes.json", "passes", "--json")
	record("check-rules.txt", "check", "--rules")
	for _, p := range append([]string{"states"}, namesOf(t)...) {
		record("passes-"+p+".txt", "passes", p)
	}
	for _, in := range inputs {
		base := strings.NewReplacer("../../testdata/", "", "/", "_").Replace(in)
		record(base+".inspect.txt", "inspect", in)
		record(base+".inspect.json", "inspect", in, "--json")
		record(base+".check.txt", "check", in)
		record(base+".check.json", "check", in, "--json")
		if strings.HasSuffix(in, ".aimodelc") {
			record(base+".convert", "convert", in, "-o", "OUT.aimodelc")
			continue
		}
		record(base+".convert-generic", "convert", in, "--emit", "generic", "-o", "-")
		record(base+".convert-pretty", "convert", in, "--emit", "pretty", "-o", "-")
		record(base+".rewrite", "rewrite", in, "-o", "OUT"+filepath.Ext(in), "--report", "OUT.report.json")
		record(base+".rewrite-all", "rewrite", in, "-o", "OUT"+filepath.Ext(in), "--set", "strip-fp32-casts.islands=all", "--enable", "scale-state,fp16-safe-reductions")
		record(base+".rewrite-armd", "rewrite", in, "-o", "OUT"+filepath.Ext(in), "--arm-d")
		if strings.Contains(in, "/synth/") {
			record(base+".verify", "verify", in, in, "--steps", "2")
			record(base+".verify-json", "verify", in, in, "--steps", "2", "--json", "--numerics", "ane")
		}
	}
	for _, arm := range []string{"A", "B", "C", "D", "E"} {
		record("synth-"+arm, "synth", "--arm", arm, "-o", "OUT.aimodel")
	}
	t.Logf("%d command lines recorded in %s", n, dst)
}

func namesOf(t *testing.T) []string {
	_, out, _ := runCLI(t, "", "passes")
	var names []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 1 && (f[1] == "on" || f[1] == "off") {
			names = append(names, f[0])
		}
	}
	return names
}

// timesRE matches the wall times commands print (durations, rates).
var timesRE = regexp.MustCompile(`\b[0-9]+(\.[0-9]+)?(ns|µs|us|ms|s|m)\b|[0-9]+(\.[0-9]+)? positions/s`)

func maskTimes(s string) string { return timesRE.ReplaceAllString(s, "<t>") }
