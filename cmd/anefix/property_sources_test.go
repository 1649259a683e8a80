package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/samber/lo"

	"github.com/anefix/anefix/graph/coreaiop/zoo"
	"github.com/anefix/anefix/graph/synth"
	"github.com/anefix/anefix/graph/synth/expect"
	"github.com/anefix/anefix/graph/synth/variants"
)

// The case sources of TestProperties and TestPassComposition. A new source
// is one addCaseSource call.
func init() {
	addCaseSource(caseSource{Name: "synth", Sample: synthArmCases, Full: synthArmCases, Compose: synthArmCases})
	addCaseSource(caseSource{
		Name:    "variants",
		Sample:  func() []propCase { return variantCases(variants.Sample(variantsSample)) },
		Full:    func() []propCase { return variantCases(variants.All()) },
		Compose: func() []propCase { return variantCases(variants.Sample(compositionSample())) },
	})
	// The calibration set is small: CI runs all of it. Composition takes
	// two (the full sweep runs every subset on each: 2×1024 rewrites): an
	// encoder with palettized weights and a decoder with linear INT4.
	addCaseSource(caseSource{
		Name:   "calibration",
		Sample: calibCases,
		Full:   calibCases,
		Compose: func() []propCase {
			return lo.Filter(calibCases(), func(c propCase, _ int) bool { return c.Name == "granite-w4-g16" || c.Name == "minicpm-4bit-g8" })
		},
	})
	addCaseSource(caseSource{
		Name:    "zoo",
		Sample:  func() []propCase { return zooCases(zooSample) },
		Full:    func() []propCase { return zooCases(1) },
		Compose: func() []propCase { return zooCases(zooComposeStride) },
	})
}

// zooSample and zooComposeStride pick every n-th op zoo module for CI (the
// three forms of an op are consecutive, so a stride prime to 3 visits every
// form); the full sweep takes them all.
const (
	zooSample        = 16
	zooComposeStride = 61
)

// zooCases are the op zoo's modules (graph/coreaiop/zoo: one module per
// coreai op in three forms), every stride-th, in the printed form.
func zooCases(stride int) []propCase {
	var out []propCase
	for i, m := range zoo.Modules() {
		if i%stride != 0 {
			continue
		}
		text := m.Text
		name := strings.NewReplacer("/", ".", ":", ".").Replace(m.Name)
		out = append(out, propCase{Name: name, Axes: map[string]string{"op": m.Op, "form": m.Form}, Expect: m.Expect(),
			Write: func(dir string) (string, error) {
				p := filepath.Join(dir, name+".mlir")
				return p, os.WriteFile(p, text, 0o644)
			}})
	}
	return out
}

// variantsSample is how many variants CI runs (every axis value appears;
// variants.Sample).
const variantsSample = 12

func variantCases(cs []variants.Case) []propCase {
	out := make([]propCase, len(cs))
	for i, c := range cs {
		out[i] = propCase{Name: c.Name, Axes: c.Axes.Map(), Write: c.Write, Expect: c.Expect}
	}
	return out
}

// synthArmCases are the shipped synth arms, read in place, each with what
// graph/synth intends for it (synth.Expected of the options that wrote it).
func synthArmCases() []propCase {
	out := make([]propCase, len(synth.ShippedArms))
	for i, a := range synth.ShippedArms {
		p := filepath.Join("..", "..", "testdata", "synth", a.Name)
		e, err := synth.Expected(a.Options)
		if err != nil {
			panic("property: synth.Expected(" + a.Name + "): " + err.Error())
		}
		out[i] = propCase{Name: a.Name, Write: func(string) (string, error) { return p, nil }, Expect: e}
	}
	return out
}

// calibDir holds the calibration set: one small graph per published
// compile and the manifest of what each compile measured
// (passes/ane/calibration_test.go writes the graphs and holds the manifest
// to its rules).
var calibDir = filepath.Join("..", "..", "testdata", "calibration")

// calibVocab is the rows of a calibration stand-in's embedding table:
// the encoders (granite-*) and the decoders with a table (*-table*) gather
// from a tensor<32x64x…> (passes/ane/calibration_test.go) and return the
// 64-wide hidden state, not logits; the others take embeddings as input
// (0: verify's default).
func calibVocab(graph string) int {
	if strings.HasPrefix(graph, "granite-") || strings.Contains(graph, "-table") {
		return 32
	}
	return 0
}

// calibCases are the calibration graphs, read in place, each expecting the
// region count its published compile measured (per function: the graph
// stands for one of the compile's functions), or stated.
func calibCases() []propCase {
	b, err := os.ReadFile(filepath.Join(calibDir, "manifest.json"))
	if err != nil {
		panic("property: calibration manifest: " + err.Error())
	}
	var m struct {
		Cases []struct {
			ID, Graph, Architecture, Expect, Reason string
			Regions                                 *int `json:"measured_regions"`
			Functions                               int  `json:"measured_functions"`
			Stated                                  *int `json:"stated_regions"`
		}
	}
	if err := json.Unmarshal(b, &m); err != nil {
		panic("property: calibration manifest: " + err.Error())
	}
	var out []propCase
	for _, c := range m.Cases {
		p := &expect.Published{ID: c.ID, Architecture: c.Architecture}
		switch {
		case c.Regions != nil:
			p.Regions = *c.Regions / max(c.Functions, 1)
		case c.Stated != nil:
			p.Regions = *c.Stated
		default:
			panic("property: calibration case " + c.ID + " has no region count")
		}
		if c.Expect != "agree" {
			p.Disagree = c.Reason
		}
		path := filepath.Join(calibDir, c.Graph+".mlir")
		out = append(out, propCase{Name: c.ID, Axes: map[string]string{"architecture": c.Architecture},
			Write: func(string) (string, error) { return path, nil }, Expect: expect.Expect{Published: p, Vocab: calibVocab(c.Graph),
				// The stand-ins' tables (when they have one) feed only
				// their embedding gather: none is a tied head.
				Refuses: map[string]string{"externalize-constant": "no tied embedding/head table"}}})
	}
	return out
}
