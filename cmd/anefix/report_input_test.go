package main

import (
	"path/filepath"
	"strings"
	"testing"

	pb "github.com/anefix/anefix/proto/anefixpb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// Every report describes its input the same way: the main file spelled from
// the path the user typed (no absolute paths), the hash outcome and the
// bytecode version and producer.
func TestReportInputIsTheSameEverywhere(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		msg  proto.Message
		in   func(proto.Message) *pb.Input
	}{
		{[]string{"inspect", rwArmA, "--json"}, &pb.InspectReport{}, func(m proto.Message) *pb.Input { return m.(*pb.InspectReport).GetInput() }},
		{[]string{"check", rwArmA, "--json"}, &pb.CheckReport{}, func(m proto.Message) *pb.Input { return m.(*pb.CheckReport).GetInput() }},
		{[]string{"rewrite", rwArmA, "-o", filepath.Join(dir, "r.aimodel"), "--json"}, &pb.RewriteReport{}, func(m proto.Message) *pb.Input { return m.(*pb.RewriteReport).GetInput() }},
	}
	want := &pb.Input{Path: rwArmA, Kind: pb.InputKind_AIMODEL, MainPath: filepath.Join(rwArmA, "main.mlirb"),
		BytecodeVersion: 6, BytecodeProducer: "anefix", HashChecked: true, HashMatches: true}
	for _, c := range cases {
		_, out, stderr := runCLI(t, "", c.args...)
		if err := protojson.Unmarshal([]byte(out), c.msg); err != nil {
			t.Fatalf("%v: %v\n%s", c.args, err, stderr)
		}
		got := c.in(c.msg)
		if !proto.Equal(got, want) {
			t.Errorf("%s input = %v, want %v", c.args[0], got, want)
		}
		if strings.HasPrefix(got.GetMainPath(), "/") {
			t.Errorf("%s reports an absolute path %q", c.args[0], got.GetMainPath())
		}
	}
}
