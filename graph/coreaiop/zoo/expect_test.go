package zoo

import "testing"

// TestExpectF16 pins which modules must come out of the default rewrite
// without an f32 value: the f16 forms, but not interpolate's, whose scale
// and offset stay f32 (coreaiop's FloatParam).
func TestExpectF16(t *testing.T) {
	n := 0
	for _, m := range Modules() {
		want := m.Form == formF16 && m.Op != "coreai.interpolate"
		if got := m.Expect().NoF32; got != want {
			t.Errorf("%s: Expect().NoF32 = %v, want %v", m.Name, got, want)
		}
		if want {
			n++
		}
		if m.Expect().Refuses["externalize-constant"] == "" {
			t.Errorf("%s: externalize-constant is not expected to refuse a one-op module", m.Name)
		}
	}
	if n == 0 {
		t.Error("no f16 module expects to stay free of f32")
	}
}
