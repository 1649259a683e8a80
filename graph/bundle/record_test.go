package bundle

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph/record"
)

func TestRecordRoundTrip(t *testing.T) {
	r := &record.Record{Tool: "anefix test", Passes: []string{"externalize-constant"}, Entries: record.Entries{IOChanges: []record.IOChange{}, States: []record.State{}, ConstantInputs: []record.ConstantInput{{Graph: "main", Input: "model.embed_tokens.weight", OpID: "embedding", Resource: "model.embed_tokens.weight", Type: "tensor<256x32xf16>", Shape: []int64{256, 32}, DType: "f16", Bytes: 16384}}}}
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

func TestReadRecordAbsent(t *testing.T) {
	dir := t.TempDir()
	if r, err := ReadRecord(dir); r != nil || err != nil {
		t.Fatalf("ReadRecord of a directory without anefix.json = %v, %v; want nil, nil", r, err)
	}
	if err := os.WriteFile(filepath.Join(dir, RecordFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRecord(dir); err == nil || !strings.Contains(err.Error(), RecordFile) {
		t.Fatalf("ReadRecord of a broken anefix.json: %v, want an error naming the file", err)
	}
}
