package bundle

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestRecordRoundTrip(t *testing.T) {
	r := &Record{Tool: "anefix test", Passes: []string{"externalize-constant"}, IOChanges: []RecordIO{}, States: []RecordState{},
		ConstantInputs: []RecordConstant{{Graph: "main", Input: "model.embed_tokens.weight", OpID: "embedding", Resource: "model.embed_tokens.weight", Type: "tensor<256x32xf16>", Shape: []int64{256, 32}, DType: "f16", Bytes: 16384}}}
	b, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"type": "tensor<256x32xf16>"`) || strings.Contains(string(b), "plainStates") {
		t.Errorf("encoded record:\n%s", b)
	}
	dir := t.TempDir()
	if got, err := ReadRecord(dir); got != nil || err != nil {
		t.Errorf("absent record: %v, %v", got, err)
	}
	if err := os.WriteFile(filepath.Join(dir, RecordFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRecord(dir)
	if err != nil || len(got.ConstantInputs) != 1 || !reflect.DeepEqual(got.ConstantInputs[0], r.ConstantInputs[0]) {
		t.Errorf("read back %+v, %v", got, err)
	}
}

func TestParseRecordErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"tool": "x",`, "byte offset"},
		{`[1]`, "not anefix's record"},
		{`{"constantInputs": [{"graph": "main"}]}`, "constantInputs[0] names no input"},
		{`{"constantInputs": [{"input": "w"}]}`, "neither a resource nor an op id"},
	} {
		_, err := ParseRecord([]byte(c.in), "m.aimodel/anefix.json")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "m.aimodel/anefix.json") {
			t.Errorf("%s: err = %v, want %q and the file name", c.in, err, c.want)
		}
	}
}

func FuzzParseRecord(f *testing.F) {
	f.Add([]byte(`{"tool":"anefix","passes":[],"ioChanges":[],"states":[],"constantInputs":[{"graph":"main","input":"w","opId":"embedding","resource":"w","type":"tensor<2xf16>","bytes":4}]}`))
	f.Add([]byte(`{"plainStates":[{"graph":"main","input":"conv_state","output":"conv_state_out"}]}`))
	f.Add([]byte(`{`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseRecord(b, "anefix.json")
		if err == nil && r == nil {
			t.Fatal("nil record without an error")
		}
	})
}
