package modelio

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/anefix/anefix/graph/bundle"
	"github.com/anefix/anefix/graph/record"
)

// SaveOptions.Record lands in a directory output as bundle.RecordFile,
// after the record its input already had; a single file gets none.
func TestSaveRecord(t *testing.T) {
	src, err := Load("../../testdata/synth/armA.aimodel", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dir := t.TempDir()
	first := record.Record{Tool: "anefix a", Passes: []string{"promote-states"}, Entries: record.Entries{IOChanges: []record.IOChange{}, States: []record.State{{Graph: "main", Input: "s", Output: "s_out"}}}}
	one := filepath.Join(dir, "one.aimodel")
	if _, err := Save(one, src.Module, src, SaveOptions{Record: &first}); err != nil {
		t.Fatal(err)
	}
	got, err := bundle.ReadRecord(one)
	if err != nil || got == nil || !reflect.DeepEqual(*got, first) {
		t.Fatalf("record of the first save: %+v, %v; want %+v", got, err, first)
	}

	ld, err := Load(one, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ld.Close()
	second := record.Record{Tool: "anefix b", Passes: []string{"scale-state"}, Entries: record.Entries{StateScales: []record.StateScale{{Graph: "main", State: "s", Log2: 1, Note: record.ScaleNote(1)}}}}
	two := filepath.Join(dir, "two.aimodel")
	if _, err := Save(two, ld.Module, ld, SaveOptions{Record: &second}); err != nil {
		t.Fatal(err)
	}
	want := first.Then(second)
	if got, err := bundle.ReadRecord(two); err != nil || got == nil || !reflect.DeepEqual(*got, want) {
		t.Fatalf("record of the second save: %+v, %v; want the two composed, %+v", got, err, want)
	}

	file := filepath.Join(dir, "one.mlirb")
	if _, err := Save(file, ld.Module, ld, SaveOptions{Record: &second}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, bundle.RecordFile)); !os.IsNotExist(err) {
		t.Errorf("a single-file output wrote a record beside it: %v", err)
	}
}
