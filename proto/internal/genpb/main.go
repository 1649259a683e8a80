// Command genpb regenerates proto/anefixpb from every proto/*.proto.
//
// It exists (instead of a plain protoc line in go:generate) because
// go:generate does not expand globs, and other helpers add .proto files.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
)

func main() {
	protoDir := flag.String("proto", ".", "directory holding the .proto files")
	outDir := flag.String("out", "anefixpb", "directory to write the .pb.go files into")
	flag.Parse()
	if err := generate(*protoDir, *outDir); err != nil {
		fmt.Fprintln(os.Stderr, "genpb:", err)
		os.Exit(1)
	}
}

func generate(protoDir, outDir string) error {
	files, err := filepath.Glob(filepath.Join(protoDir, "*.proto"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no .proto files in %s", protoDir)
	}
	sort.Strings(files)
	rel := make([]string, len(files))
	for i, f := range files {
		rel[i] = filepath.Base(f)
	}
	absOut, err := filepath.Abs(outDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(absOut, 0o755); err != nil {
		return err
	}
	// Run from protoDir so the file names recorded in the generated code are
	// the bare names, independent of where the generator was invoked.
	args := append([]string{"--proto_path=.", "--go_out=" + absOut, "--go_opt=paths=source_relative"}, rel...)
	cmd := exec.Command("protoc", args...)
	cmd.Dir = protoDir
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("protoc %v: %w (install protobuf-compiler and protoc-gen-go v1.36.12, see .ci/run)", args, err)
	}
	return nil
}
