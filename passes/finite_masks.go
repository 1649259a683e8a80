package passes

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/f16"
	"github.com/anefix/anefix/passes/anefacts"
)

var finiteMasksAbout = About{
	Summary: "replace -inf and huge negative mask constants by a finite value that survives an add in fp16",
	Doc: `Rewrites the float constants that check's fp16.out-of-range hazard rule
names (the one fp16 constant scan, passes/anefacts scan.go, which the rule
reads too; the pass never decides on its own what a hazard is): each element
that is -inf or a finite value below -65504 (fp16's most negative finite
value, e.g. a mask written as -1e9) becomes the option value (default
-40000). Positive overflow (+inf, > 65504) is left as
it is and reported in the notes: it is not a mask.

Why a finite value: -inf in fp16 turns a softmax over a row that is masked
throughout into inf - inf = NaN, and -65504 plus any negative score rounds to
-inf again. The default -40000 comes from Apple's
apple/coreai-models skills/skills/model-authoring/references/common_issues.md
lines 102-105 (the section "Neural Engine causal mask with float('-inf')",
whose fix is -40000.0) and neural_engine_rules.md lines 366-370 in the same
directory (a masked_fill with -40000.0 and the note "Why -40000.0"), read at
commit 86b363dc: the Neural Engine is said not to handle IEEE -inf in
softmax. -40000 is exactly representable in fp16, -40000 + s stays finite for
every score s > -25504, and exp(-40000 - max) is 0 in every float format.

Numerics: unchanged wherever the masked entries only feed a softmax (or an
exp) after the add, as long as the unmasked scores stay above -25504 + the
row's maximum: exp of the masked entries is 0 either way. Measured by
anefix verify on testdata/hazards/finite_mask_softmax.mlir (a -inf causal
mask added to scores before a softmax): every output bit-identical, 24/24,
under ieee numerics and under --numerics ane (the profile in
graph/interp/numerics.go). The ane profile has no rule for -inf in softmax, so the
second figure shows the rewrite is neutral there, not the Neural Engine
problem Apple describes. Where a masked value is used otherwise (compared, printed,
multiplied) the graph computes with -40000 instead of -inf.

Dense_resource constants get a new blob (key <old>_finite); the old blob is
dropped when nothing else reads it. A blob above 64 MiB is refused with an
error naming the op: a mask is small, a weight that size is not a mask.`,
	Addresses: "check's fp16.out-of-range hazard (a -inf or -1e9 mask constant)",
}

// finiteMasksOptions are finite-masks' options; declare
// declares each (name, typed default, doc, check) for the pipeline.
type finiteMasksOptions struct {
	Value maskValue
}

func (o *finiteMasksOptions) declare(d *Decls) {
	Declare(d, &o.Value, Option[maskValue]{Name: "value", Default: maskValue{"-40000", -40000}, Doc: "the finite value written in place of -inf and values below -65504; must be negative, at least -65504 and exactly representable in fp16",
		Check: fmCheckValue, Codec: &Codec[maskValue]{Kind: "string", Parse: fmParseValue, Format: maskValue.String,
			Sample: func(r *rand.Rand) maskValue {
				x := -float64(1 + r.IntN(2048))
				return maskValue{strconv.FormatFloat(x, 'g', -1, 64), x}
			}}})
}

// maskValue is finite-masks' value: a number, kept as it was written so
// that notes and reports repeat it.
type maskValue struct {
	Text string
	X    float64
}

func (v maskValue) String() string { return v.Text }

func fmParseValue(s string) (maskValue, error) {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return maskValue{}, fmt.Errorf("want a number such as -40000, got %q", s)
	}
	return maskValue{s, x}, nil
}

// fmMaxBlob bounds the dense_resource constants finite-masks rewrites in
// memory (a mask is a few MiB at most).
const fmMaxBlob = 64 << 20

func fmCheckValue(v maskValue) error {
	s, x := v.Text, v.X
	if !(x < 0) || x < -f16.MaxHalf {
		return fmt.Errorf("want a negative value no lower than -65504 (fp16's most negative finite value), got %s", s)
	}
	if f16.ToFloat64(f16.FromFloat64(x)) != x {
		return fmt.Errorf("%s is not exactly representable in fp16 (nearest: %g)", s, f16.ToFloat64(f16.FromFloat64(x)))
	}
	return nil
}

// fmMasked reports an element finite-masks replaces: -inf or a finite value
// below -65504, the negative side of the fp16.out-of-range rule.
func fmMasked(x float64) bool { return x < -f16.MaxHalf }

func finiteMasks(m *graph.Module, opts *finiteMasksOptions) (*Change, error) {
	val := opts.Value.X
	ops, err := anefacts.RangeHazardConstants(m)
	if err != nil {
		return nil, err
	}
	ch := &Change{}
	replacedKeys := map[string]string{}
	res := m.ResourcesByKey() // the keys the ops name; the new ones are not looked up
	var keys *graph.ResourceKeys
	for _, op := range ops {
		if op.IsErased() {
			continue
		}
		switch a := op.Inherent("value").(type) {
		case *graph.DenseElementsAttr:
			ft, _ := a.Type.Elem.(*graph.FloatType)
			if ft == nil || graph.ElemBytes(ft) == 0 {
				continue
			}
			raw := append([]byte(nil), a.Raw...)
			n, pos := fmRewrite(raw, ft.Name, val)
			if pos > 0 {
				ch.Notes = append(ch.Notes, fmt.Sprintf("%s: %d value(s) of +inf or above 65504 left as they are (not a mask)", op.DescribeInGraph(), pos))
			}
			if n == 0 {
				continue
			}
			op.SetInherent("value", &graph.DenseElementsAttr{Type: a.Type, Raw: raw, Splat: a.Splat})
			ch.Notes = append(ch.Notes, fmt.Sprintf("%s: %d element(s) below -65504 set to %s", op.DescribeInGraph(), n, opts.Value))
		case *graph.DenseResourceAttr:
			ft, _ := a.Type.Elem.(*graph.FloatType)
			r := res[a.Key]
			if ft == nil || graph.ElemBytes(ft) == 0 || r == nil || r.Blob == nil {
				continue
			}
			if nk, done := replacedKeys[a.Key]; done {
				op.SetInherent("value", &graph.DenseResourceAttr{Key: nk, Type: a.Type})
				continue
			}
			if r.Blob.Size() > fmMaxBlob {
				return nil, fmt.Errorf("%s: dense_resource<%s> holds %d bytes, more than the %d a mask constant is allowed here; what to do: this looks like a weight, not a mask; leave finite-masks off or fix the weight at its source", op.DescribeInGraph(), a.Key, r.Blob.Size(), fmMaxBlob)
			}
			raw := make([]byte, r.Blob.Size())
			if k, err := r.Blob.ReadAt(raw, 0); int64(k) < int64(len(raw)) {
				return nil, fmt.Errorf("%s: reading dense_resource<%s>: %v", op.DescribeInGraph(), a.Key, err)
			}
			n, pos := fmRewrite(raw, ft.Name, val)
			if pos > 0 {
				ch.Notes = append(ch.Notes, fmt.Sprintf("%s: %d value(s) of +inf or above 65504 left as they are (not a mask)", op.DescribeInGraph(), pos))
			}
			if n == 0 {
				continue
			}
			if keys == nil {
				keys = m.ResourceKeys()
			}
			nk := keys.Unique(a.Key + "_finite")
			m.AddResource(nk, r.Alignment, graph.MemBlob(raw))
			replacedKeys[a.Key] = nk
			op.SetInherent("value", &graph.DenseResourceAttr{Key: nk, Type: a.Type})
			ch.Notes = append(ch.Notes, fmt.Sprintf("%s: %d element(s) below -65504 set to %s (dense_resource<%s> → <%s>)", op.DescribeInGraph(), n, opts.Value, a.Key, nk))
		}
	}
	if len(replacedKeys) > 0 {
		refs, known := m.ResourceRefs()
		old := make([]string, 0, len(replacedKeys))
		for k := range replacedKeys {
			old = append(old, k)
		}
		sort.Strings(old)
		var drop []string
		for _, k := range old {
			if known && refs[k] == 0 {
				drop = append(drop, k)
			}
		}
		m.RemoveResources(drop...)
	}
	return ch, nil
}

// fmRewrite replaces, in place, every element of raw (little-endian, float
// format name) that fmMasked selects by val; it returns how many it
// replaced and how many sit on the positive side of the fp16 range.
func fmRewrite(raw []byte, name string, val float64) (replaced, positive int) {
	eb := 0
	switch name {
	case "f16", "bf16":
		eb = 2
	case "f32":
		eb = 4
	case "f64":
		eb = 8
	default:
		return 0, 0
	}
	nb := graph.FloatBits(val, name)
	for i := 0; i+eb <= len(raw); i += eb {
		var bits uint64
		switch eb {
		case 2:
			bits = uint64(binary.LittleEndian.Uint16(raw[i:]))
		case 4:
			bits = uint64(binary.LittleEndian.Uint32(raw[i:]))
		case 8:
			bits = binary.LittleEndian.Uint64(raw[i:])
		}
		x, _ := graph.FloatValue(bits, name)
		switch {
		case fmMasked(x):
			replaced++
			switch eb {
			case 2:
				binary.LittleEndian.PutUint16(raw[i:], uint16(nb))
			case 4:
				binary.LittleEndian.PutUint32(raw[i:], uint32(nb))
			case 8:
				binary.LittleEndian.PutUint64(raw[i:], nb)
			}
		case x > f16.MaxHalf && !math.IsNaN(x):
			positive++
		}
	}
	return replaced, positive
}
