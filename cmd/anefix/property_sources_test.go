package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/anefix/anefix/graph/coreaiop/zoo"
	"github.com/anefix/anefix/graph/synth"
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
