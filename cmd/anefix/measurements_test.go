package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/anefix/anefix/graph/bundle"
)

// The measurement log is one generated file, testdata/measurements.md
// (README links it). Each command that measures (the performance table, the
// property and composition sweeps, the numerics tables) rewrites only its own section, between
// its markers, so a rerun regenerates what it measured and leaves the rest;
// nothing in the file is written by hand. A section a command has not yet
// written says which command writes it.

// insertSection adds section s before the first section after it in the
// list that doc holds, else at the end.
func insertSection(doc string, s measurementSection, body string) string {
	at := len(doc)
	seen := false
	for _, o := range measurementSections {
		if o.name == s.name {
			seen = true
			continue
		}
		if i := strings.Index(doc, "\n## "+o.title+"\n"); seen && i >= 0 {
			at = i
			break
		}
	}
	text := sectionText(s, body)
	if at == len(doc) && !strings.HasSuffix(doc, "\n") {
		doc += "\n"
		at++
	}
	if at < len(doc) {
		text = strings.TrimSuffix(text, "\n")
	}
	return doc[:at] + text + doc[at:]
}

// measurementsPath is the file, relative to the repository root.
const measurementsPath = "testdata/measurements.md"

// measurementSection is one generated section and the command that writes it.
type measurementSection struct{ name, title, command string }

// sweepCommand runs both sweeps over every case and writes both sections.
const sweepCommand = FullSweepEnv + "=1 ANEFIX_PROPERTY_REPORT=" + measurementsPath + " go test ./cmd/anefix -run 'TestProperties|TestPassComposition' -timeout 6h"

var measurementSections = []measurementSection{
	{"perf", "Performance table",
		"ANEFIX_FULL_MODEL=/tmp/armA-full.aimodel ANEFIX_PERF_OUT=" + measurementsPath + " go test ./cmd/anefix -run '^$' -bench PerfTable -benchtime 1x -timeout 3h"},
	{"properties", "Property sweep (P0–P8)", sweepCommand},
	{"composition", "Pass composition sweep (C1, C4, C5)", sweepCommand},
	{"numerics", "What the passes do to the numbers: tiny arm A",
		"ANEFIX_NUMERICS_TABLE=1 ANEFIX_NUMERICS_TABLE_OUT=" + measurementsPath + " go test ./cmd/anefix -run TestNumericsTable -timeout 3h"},
	{"numerics-full", "What the passes do to the numbers: full-scale arm A",
		"ANEFIX_NUMERICS_TABLE_FULL=1 ANEFIX_NUMERICS_TABLE_OUT=" + measurementsPath + " go test ./cmd/anefix -run TestNumericsTable -timeout 12h"},
}

const measurementsHeader = "# Measurements\n\n" +
	"Generated, never edited by hand: each section below is rewritten, between its markers, by the\n" +
	"command its stamp names (`cmd/anefix/measurements_test.go` lists them). Figures taken on a\n" +
	"shared machine depend on its load, which each stamp gives; ratios measured pair by pair in one\n" +
	"run are the figures to compare. All inputs are synthetic stand-ins (`anefix synth`).\n"

func sectionBegin(name string) string { return "<!-- measurements:" + name + " begin -->" }
func sectionEnd(name string) string   { return "<!-- measurements:" + name + " end -->" }

func findSection(name string) (measurementSection, bool) {
	for _, s := range measurementSections {
		if s.name == name {
			return s, true
		}
	}
	return measurementSection{}, false
}

// placeholder is the body of a section no run has written yet.
func placeholder(s measurementSection, commit string) string {
	return fmt.Sprintf("Not yet run at %s: run\n\n```sh\n%s\n```\n", commit, s.command)
}

// sectionText is a whole section: title, markers and body.
func sectionText(s measurementSection, body string) string {
	if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	return fmt.Sprintf("\n## %s\n\n%s\n%s%s\n", s.title, sectionBegin(s.name), body, sectionEnd(s.name))
}

// replaceSection returns doc with section name's body replaced by body and
// every other byte kept. A doc that lacks the section gets it where the
// list puts it; every other section the list knows and doc lacks is added
// as a placeholder naming commit, and an empty doc gets the header first.
func replaceSection(doc, name, body, commit string) (string, error) {
	if _, ok := findSection(name); !ok {
		return "", fmt.Errorf("no measurement section %q", name)
	}
	for _, o := range measurementSections {
		if strings.Contains(body, sectionBegin(o.name)) || strings.Contains(body, sectionEnd(o.name)) {
			return "", fmt.Errorf("section %s: its body holds a section marker", name)
		}
	}
	if doc == "" {
		doc = measurementsHeader
		for _, o := range measurementSections {
			doc += sectionText(o, placeholder(o, commit))
		}
	}
	// Every section the list knows is present, in the list's order: a
	// missing one is added as a placeholder.
	for _, o := range measurementSections {
		if !strings.Contains(doc, sectionBegin(o.name)) && !strings.Contains(doc, sectionEnd(o.name)) {
			doc = insertSection(doc, o, placeholder(o, commit))
		}
	}
	b, e := strings.Index(doc, sectionBegin(name)), strings.Index(doc, sectionEnd(name))
	if b < 0 || e < b || strings.Count(doc, sectionBegin(name)) != 1 || strings.Count(doc, sectionEnd(name)) != 1 {
		return "", fmt.Errorf("section %s: its markers are not one begin followed by one end", name)
	}
	if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	start := b + len(sectionBegin(name)) + 1
	return doc[:start] + body + doc[e:], nil
}

// writeMeasurement rewrites section name of the file at path (relative
// paths are taken from the repository root), atomically.
func writeMeasurement(path, name, body string) error {
	if !filepath.IsAbs(path) {
		path = filepath.Join("..", "..", path)
	}
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	doc, err := replaceSection(string(old), name, body, measuredCommit())
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return bundle.WriteFile(path, []byte(doc), true, func(string) {})
}

// measuredCommit names the checkout measured: the short commit, marked when
// tracked files other than the measurements file differ from it (a run that
// writes two sections finds the file changed by the first).
func measuredCommit() string {
	commit := gitOut("rev-parse", "--short=12", "HEAD")
	if gitOut("status", "--porcelain", "--untracked-files=no", "--", ":(top)", ":(top,exclude)"+measurementsPath) != "" {
		commit += " (with uncommitted changes)"
	}
	return commit
}

// measurementStamp is a section's first line: the command, commit, date,
// machine and load average (at the start and the end of the run).
func measurementStamp(command string, loadStart, loadEnd float64) string {
	return fmt.Sprintf("Written by `%s` at commit %s, %s, %d CPUs, 1-minute load average %.1f at the start and %.1f at the end.\n\n",
		command, measuredCommit(), time.Now().UTC().Format("2006-01-02 15:04 UTC"), runtime.NumCPU(), loadStart, loadEnd)
}

// TestMeasurementSection: a writer replaces exactly its own section, and
// writing the same body again changes nothing.
func TestMeasurementSection(t *testing.T) {
	fresh, err := replaceSection("", "perf", "table 1\n", "c0ffee")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range measurementSections {
		if strings.Count(fresh, sectionBegin(s.name)) != 1 || strings.Count(fresh, sectionEnd(s.name)) != 1 {
			t.Errorf("a fresh file lacks section %s:\n%s", s.name, fresh)
		}
	}
	if !strings.Contains(fresh, sectionBegin("perf")+"\ntable 1\n"+sectionEnd("perf")) {
		t.Errorf("the written section is not between its markers:\n%s", fresh)
	}
	if !strings.Contains(fresh, "Not yet run at c0ffee: run") {
		t.Errorf("an unwritten section does not say which command writes it:\n%s", fresh)
	}
	outside := func(doc, name string) string {
		b := strings.Index(doc, sectionBegin(name))
		e := strings.Index(doc, sectionEnd(name))
		return doc[:b] + doc[e:]
	}
	withProps, err := replaceSection(fresh, "properties", "sweep A\nsweep B", "c0ffee")
	if err != nil {
		t.Fatal(err)
	}
	noComposition := strings.Replace(withProps, sectionText(measurementSections[2], placeholder(measurementSections[2], "c0ffee")), "", 1)
	for _, c := range []struct {
		name, doc, section, body string
	}{
		{"replace perf", fresh, "perf", "table 2\n| a | b |\n"},
		{"replace properties", withProps, "properties", "sweep C\n"},
		{"replace with an empty body", withProps, "perf", ""},
		{"add a missing section", noComposition, "composition", "per pass\n"},
		{"other text around it stays", strings.Replace(fresh, measurementsHeader, "# x\n\nprose\n", 1) + "tail\n", "perf", "new\n"},
		{"a file of one section gets the others", "# x\n" + sectionText(measurementSections[0], "old\n"), "perf", "new\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			once, err := replaceSection(c.doc, c.section, c.body, "c0ffee")
			if err != nil {
				t.Fatal(err)
			}
			twice, err := replaceSection(once, c.section, c.body, "c0ffee")
			if err != nil {
				t.Fatal(err)
			}
			if once != twice {
				t.Errorf("not idempotent:\n%s\n---\n%s", once, twice)
			}
			body := c.body
			if !strings.HasSuffix(body, "\n") {
				body += "\n"
			}
			if !strings.Contains(once, sectionBegin(c.section)+"\n"+body+sectionEnd(c.section)) {
				t.Errorf("the body is not between the markers:\n%s", once)
			}
			complete := true
			for _, s := range measurementSections {
				complete = complete && strings.Contains(c.doc, sectionBegin(s.name))
				if strings.Count(once, sectionBegin(s.name)) != 1 || strings.Count(once, sectionEnd(s.name)) != 1 {
					t.Errorf("section %s appears %d times", s.name, strings.Count(once, sectionBegin(s.name)))
				}
			}
			if complete && outside(once, c.section) != outside(c.doc, c.section) {
				t.Errorf("bytes outside section %s changed:\n%s\n---\n%s", c.section, c.doc, once)
			}
		})
	}
	if _, err := replaceSection(fresh, "nope", "x", "c"); err == nil {
		t.Error("an unknown section was accepted")
	}
	if _, err := replaceSection(fresh, "perf", "a "+sectionEnd("perf")+"\n", "c"); err == nil {
		t.Error("a body holding a marker was accepted")
	}
	broken := strings.Replace(fresh, sectionEnd("perf"), "", 1)
	if _, err := replaceSection(broken, "perf", "x", "c"); err == nil {
		t.Error("a section without its end marker was accepted")
	}
}

// TestMeasurementsFile: the committed file holds every section once, in
// order, and its writer leaves it as it is when given its own bodies back.
func TestMeasurementsFile(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", measurementsPath))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	if !strings.HasPrefix(doc, measurementsHeader) {
		t.Errorf("%s does not start with the generated header", measurementsPath)
	}
	last := -1
	for _, s := range measurementSections {
		bi, ei := strings.Index(doc, sectionBegin(s.name)), strings.Index(doc, sectionEnd(s.name))
		if bi < 0 || ei < bi || bi < last {
			t.Fatalf("%s: section %s missing or out of order", measurementsPath, s.name)
		}
		last = ei
		again, err := replaceSection(doc, s.name, doc[bi+len(sectionBegin(s.name))+1:ei], "x")
		if err != nil || again != doc {
			t.Errorf("%s: rewriting section %s with its own body changes the file (%v)", measurementsPath, s.name, err)
		}
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "("+measurementsPath+")") {
		t.Errorf("README.md does not link %s", measurementsPath)
	}
}
