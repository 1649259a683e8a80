package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/samber/lo"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/anefix/anefix/graph/oracle"
	pb "github.com/anefix/anefix/proto/anefixpb"
)

// numericsRow is one row of issue 29's numerics table: a name and the
// rewrite flags that make its candidate from the input.
type numericsRow struct {
	Name  string
	Flags []string
}

// numericsRows are the table's pipelines: the default rewrite, the island
// choices, the numerics passes, and palettize at 8/6/4 bits × group 32/16
// × tied head on/off. A pass added later is one more row here.
func numericsRows() []numericsRow {
	rows := []numericsRow{
		{"default pipeline", nil},
		{"islands=all (norms in fp16)", []string{"--set", "strip-fp32-casts.islands=all"}},
		{"islands=all, keep-norms", []string{"--set", "strip-fp32-casts.islands=all", "--set", "strip-fp32-casts.keep-norms=true"}},
		{"norms retyped (islands=blockers,norms)", []string{"--set", "strip-fp32-casts.islands=blockers,norms"}},
		{"+ fp16-safe-reductions", []string{"--enable", "fp16-safe-reductions"}},
		{"+ scale-state", []string{"--enable", "scale-state"}},
		{"+ residual-scale (k=5)", []string{"--enable", "residual-scale", "--set", "residual-scale.k=5"}},
		{"+ residual-scale (k=auto: 6)", []string{"--enable", "residual-scale"}},
		{"islands=all + residual-scale (k=5)", []string{"--set", "strip-fp32-casts.islands=all", "--enable", "residual-scale", "--set", "residual-scale.k=5"}},
		{"islands=all + residual-scale (k=auto: 6)", []string{"--set", "strip-fp32-casts.islands=all", "--enable", "residual-scale"}},
	}
	for _, bits := range []int{8, 6, 4} {
		for _, group := range []int{32, 16} {
			for _, tied := range []bool{true, false} {
				rows = append(rows, numericsRow{
					Name: fmt.Sprintf("+ palettize %d-bit, group %d, tied head %s", bits, group, map[bool]string{true: "on", false: "off"}[tied]),
					Flags: []string{"--enable", "palettize", "--set", fmt.Sprintf("palettize.bits=%d", bits),
						"--set", fmt.Sprintf("palettize.group-size=%d", group), "--set", fmt.Sprintf("palettize.tied-head=%v", tied)},
				})
			}
		}
	}
	// Mixed precision in one rewrite (palettize's rules): the MLP at 4
	// bits in groups of 32 (legal), every other weight (attention, the tied
	// embedding/head) at 6 bits in groups of 4 (6-bit palettes may be
	// small; groups of 4 divide every weight of arm A).
	rows = append(rows, numericsRow{Name: "+ palettize mixed: MLP 4-bit g32, the rest 6-bit g4 (rules)",
		Flags: []string{"--enable", "palettize", "--set", "palettize.bits=6", "--set", "palettize.group-size=4", "--set", "palettize.rules=*mlp*:bits=4:group-size=32"}})
	return rows
}

// numericsTable rewrites in with each row's flags and runs the default
// teacher-forced verify (streams × length, gates off, verify's --max-memory
// set to maxMemory when not empty) under each numerics profile; it returns
// one markdown table: mean KLD, its p99, same-top-1 with its Wilson 95 %
// interval, same-top-1 where REF's top-2 gap is clear, and the largest
// state drift at the last position. Each row's rewrite is removed once
// measured, so the disk holds one candidate at a time (1.5 GB at full
// scale).
func numericsTable(t *testing.T, in string, rows []numericsRow, numerics []string, streams, length int, maxMemory string) string {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	fmt.Fprintf(&b, "| pipeline (`anefix rewrite IN …`) | numerics | mean KLD (nats) | KLD p99 | same top-1 [95 %% interval] | same top-1 at a clear gap | state drift at position %d (worst state) |\n|---|---|---|---|---|---|---|\n", length-1)
	for i, r := range rows {
		out := filepath.Join(dir, fmt.Sprintf("row%d%s", i, filepath.Ext(in)))
		args := append([]string{"rewrite", in, "-o", out}, r.Flags...)
		if code, _, errs := runCLI(t, "", args...); code != exitOK && code != exitGate {
			fmt.Fprintf(&b, "| %s | | rewrite exit %d: %s | | | | |\n", r.Name, code, oneLineText(errs))
			continue
		}
		for _, n := range numerics {
			vargs := []string{"verify", in, out, "--numerics", n, "--streams", fmt.Sprint(streams), "--length", fmt.Sprint(length),
				"--max-kld", "-1", "--min-same-top1", "-1", "--json"}
			if maxMemory != "" {
				vargs = append(vargs, "--max-memory", maxMemory)
			}
			code, stdout, errs := runCLI(t, "", vargs...)
			if code != exitOK {
				fmt.Fprintf(&b, "| %s | %s | verify exit %d: %s | | | | |\n", r.Name, n, code, oneLineText(errs))
				continue
			}
			var rep pb.VerifyReport
			if err := protojson.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatalf("%s: %v", r.Name, err)
			}
			worst, worstName := 0.0, "-"
			for _, s := range rep.States {
				if s.RelativeRms > worst || worstName == "-" {
					worst, worstName = s.RelativeRms, s.Name
				}
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %.2f %% [%.2f, %.2f] | %.1f %% of %d | %s (%s) |\n", r.Name, n, fmtG(rep.GetMeanKld()), fmtG(rep.GetKldP99()),
				100*rep.GetSameTop1(), 100*rep.GetSameTop1Low(), 100*rep.GetSameTop1High(), 100*rep.GetSameTop1Clear(), rep.GetClearPositions(), fmtG(worst), worstName)
		}
		if err := os.RemoveAll(out); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// writeNumerics writes a numerics table to its section of the measurements
// file named by ANEFIX_NUMERICS_TABLE_OUT (testdata/measurements.md).
func writeNumerics(t *testing.T, section, env string, loadStart float64, body string) {
	t.Helper()
	f := os.Getenv("ANEFIX_NUMERICS_TABLE_OUT")
	if f == "" {
		return
	}
	cmd := env + " "
	if rows := os.Getenv("ANEFIX_NUMERICS_TABLE_ROWS"); rows != "" {
		cmd += "ANEFIX_NUMERICS_TABLE_ROWS='" + rows + "' "
	}
	cmd += "ANEFIX_NUMERICS_TABLE_OUT=" + f + " go test ./cmd/anefix -run TestNumericsTable -timeout 3h"
	if err := writeMeasurement(f, section, measurementStamp(cmd, loadStart, loadAvg1())+body); err != nil {
		t.Error(err)
	}
}

// tableRows keeps the rows whose name matches ANEFIX_NUMERICS_TABLE_ROWS
// (a regular expression), all rows when it is unset.
func tableRows(t *testing.T) []numericsRow {
	rows := numericsRows()
	expr := os.Getenv("ANEFIX_NUMERICS_TABLE_ROWS")
	if expr == "" {
		return rows
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		t.Fatalf("ANEFIX_NUMERICS_TABLE_ROWS: %v", err)
	}
	return lo.Filter(rows, func(r numericsRow, _ int) bool { return re.MatchString(r.Name) })
}

func oneLineText(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.ReplaceAll(s, "|", "/")
}

// TestNumericsTable prints issue 29's numerics table (item 4) for tiny
// synth arm A from the shipped testdata, 8 streams over the whole context
// (256 positions), under --numerics ieee and ane:
//
//	ANEFIX_NUMERICS_TABLE=1 go test ./cmd/anefix -run TestNumericsTable -v -timeout 2h
//
// ANEFIX_NUMERICS_TABLE_OUT=testdata/measurements.md writes each table into
// its section of that file (measurements_test.go).
//
// ANEFIX_NUMERICS_TABLE_FULL=1 adds the full-scale arm A (synth --scale
// full, about 1.5 GB written to a temporary directory, and one 1.5 GB
// candidate at a time), 8 streams × 32 positions
// (ANEFIX_NUMERICS_TABLE_FULL_LENGTH sets the length) with verify's
// --max-memory 20GiB (room for a longer length; 8 streams × 32 fit the
// default 8 GiB since the estimate counts weight-only values once). Each full-scale row takes
// minutes (about 2 to 4 per verify on two shared cores), so
// ANEFIX_NUMERICS_TABLE_ROWS (a regular expression on the row names) picks
// rows:
//
//	ANEFIX_NUMERICS_TABLE_FULL=1 ANEFIX_NUMERICS_TABLE_ROWS='6-bit|group 16' go test ./cmd/anefix -run TestNumericsTable -v -timeout 3h
func TestNumericsTable(t *testing.T) {
	_, tiny := oracle.OptedIn("ANEFIX_NUMERICS_TABLE")
	_, full := oracle.OptedIn("ANEFIX_NUMERICS_TABLE_FULL")
	if !full {
		oracle.OptIn(t, "ANEFIX_NUMERICS_TABLE", "1 to print the table (a measurement, not a check)")
	}
	numerics := []string{"ieee", "ane"}
	if tiny {
		load := loadAvg1()
		tab := numericsTable(t, "../../testdata/synth/armA.aimodel", tableRows(t), numerics, 8, 256, "")
		t.Logf("tiny arm A (testdata/synth/armA.aimodel), 8 streams × 256 positions:\n%s", tab)
		writeNumerics(t, "numerics", "ANEFIX_NUMERICS_TABLE=1", load, "Tiny synth arm A (testdata/synth/armA.aimodel), 8 streams × 256 positions.\n\n"+tab)
	}
	if full {
		full := filepath.Join(t.TempDir(), "full.aimodel")
		if code, _, errs := runCLI(t, "", "synth", "--arm", "A", "--scale", "full", "-o", full); code != exitOK {
			t.Fatalf("synth --scale full: %d %s", code, errs)
		}
		length := 32
		if v := os.Getenv("ANEFIX_NUMERICS_TABLE_FULL_LENGTH"); v != "" {
			fmt.Sscan(v, &length)
		}
		load := loadAvg1()
		tab := numericsTable(t, full, tableRows(t), numerics, 8, length, "20GiB")
		t.Logf("full-scale arm A, 8 streams × %d positions:\n%s", length, tab)
		writeNumerics(t, "numerics-full", "ANEFIX_NUMERICS_TABLE_FULL=1", load, fmt.Sprintf("Full-scale synth arm A (anefix synth --arm A --scale full), 8 streams × %d positions.\n\n", length)+tab)
	}
}
