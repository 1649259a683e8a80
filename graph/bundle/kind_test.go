package bundle

import "testing"

func TestOutputKind(t *testing.T) {
	in := func(k Kind) *Input { return &Input{Kind: k} }
	tests := []struct {
		src       *Input
		dst, emit string
		want      Kind
		wantErr   bool
	}{
		{in(KindAIModel), "o.aimodel", "", KindAIModel, false},
		{in(KindAIModel), "out", "", KindAIModel, false},
		{in(KindAIModel), "out", "bytecode", KindAIModel, false},
		{in(KindAIModel), "o.mlir", "generic", KindText, false},
		{in(KindAIModel), "-", "", KindBytecode, false},
		{in(KindAIModel), "-", "pretty", KindText, false},
		{in(KindLLMBundle), "out", "", KindLLMBundle, false},
		{in(KindLLMBundle), "x.aimodel/", "", KindAIModel, false},
		{in(KindText), "o.mlir", "", KindText, false},
		{in(KindText), "o.mlirb", "bytecode", KindBytecode, false},
		{in(KindText), "o.aimodel", "", KindAIModel, false},
		{in(KindText), "-", "", KindText, false},
		{in(KindText), "-", "bytecode", KindBytecode, false},
		{in(KindBytecode), "-", "", KindBytecode, false},
		{in(KindBytecode), "o.mlir", "generic", KindText, false},
		{nil, "o", "", KindBytecode, false},
		{in(KindText), "o.aimodel", "generic", KindUnknown, true},
		{in(KindText), "o", "json", KindUnknown, true},
	}
	for _, tc := range tests {
		got, err := OutputKind(tc.src, tc.dst, tc.emit)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("OutputKind(%v, %q, %q) = %v, %v; want %v, err=%v", tc.src, tc.dst, tc.emit, got, err, tc.want, tc.wantErr)
		}
	}
}
