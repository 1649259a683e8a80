package compare

import (
	"fmt"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/interp"
)

// context is how many positions a graph can take, as feed sees it: the
// longest axis of its causal-mask input (feed opens the mask along that
// axis), with PerStep positions advanced per step (the length of its
// position input, 1 without one). It is read from the declared types only,
// so a run can be refused before anything is allocated. The mask is the
// only place feed knows the context from; a graph without a mask input has
// no known context (Length 0), and a cache shorter than its mask is found
// only when the run reaches it.
type context struct {
	Length  int    // positions; 0 when unknown
	PerStep int    // positions per step
	Mask    string // the input Length was read from
}

// ContextOf reads the context of the graph Compare would run in m.
func ContextOf(m *graph.Module, function string) (context, error) {
	g, err := pickFunction(m, function)
	if err != nil {
		return context{}, err
	}
	c := context{PerStep: 1}
	for _, p := range g.Inputs() {
		tt, ok := graph.AsTensor(p.Type)
		if !ok || !tt.IsStatic() {
			continue
		}
		n, err := tt.ElementCount()
		if err != nil {
			return context{}, fmt.Errorf("@%s input %q: %w", g.Name(), p.Name, err)
		}
		longest := int64(0)
		for _, d := range tt.Shape {
			longest = max(longest, d)
		}
		el, err := interp.ElemOf(tt.Elem)
		isInt := err == nil && !el.IsFloat()
		switch {
		case p.IsState:
		case isInt && posRe.MatchString(p.Name):
			c.PerStep = max(c.PerStep, int(n))
		case maskRe.MatchString(p.Name) && int(longest) > c.Length:
			c.Length, c.Mask = int(longest), p.Name
		}
	}
	return c, nil
}

// MaxSteps is the most generated steps a prompt of promptLen tokens leaves
// room for (Compare runs promptLen+steps-1 positions of PerStep each), and
// -1 when the context is unknown.
func (c context) MaxSteps(promptLen int) int {
	if c.Length == 0 {
		return -1
	}
	return c.Length/c.PerStep - promptLen + 1
}

func (c context) String() string {
	if c.PerStep > 1 {
		return fmt.Sprintf("%d positions (input %q), %d per step", c.Length, c.Mask, c.PerStep)
	}
	return fmt.Sprintf("%d positions (input %q)", c.Length, c.Mask)
}
