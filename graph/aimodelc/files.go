package aimodelc

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/bundle"
	"github.com/anefix/anefix/graph/bytecode"
	"github.com/anefix/anefix/graph/mlirtext"
)

// Names of the files at the top of a compiled package.
const (
	hashFile     = "main.hash"
	metadataFile = "metadata.json"
	statsFile    = "stats.json"
)

// Limits on files read whole, so a hostile package cannot make anefix
// allocate without bound.
const (
	maxSmallFile = 64 << 20
	maxHashFile  = 4 << 10
	// maxTextGraph bounds a specialized graph in MLIR text (stand-ins only).
	maxTextGraph = 256 << 20
)

var bytecodeMagic = []byte{0x4D, 0x4C, 0xEF, 0x52}

// relErr renames the path in a *fs.PathError to name (the path relative to
// the package), so that reports carry no machine-specific paths.
func relErr(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: strings.TrimSuffix(pe.Op, "at"), Path: q(name), Err: pe.Err}
	}
	return err
}

// q is how an entry's name (or a name from the manifest) appears in a
// message: Go-quoted when it holds a control character, so that a newline
// in a name cannot forge a line of the report (bundle.DisplayName).
func q(name string) string { return bundle.DisplayName(name) }

func qs(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = q(n)
	}
	return out
}

// readSmall reads the member rel of the package root whole, when it is a
// regular file (no symbolic link anywhere in its path) of at most max
// bytes (bundle.ReadMember).
func readSmall(root, rel string, max int64) ([]byte, error) {
	return bundle.ReadMember(root, rel, max)
}

// sha256File is the upper-case hex SHA-256 of a file's bytes; name stands
// for p in errors. For the file --source names (the user's, not a member).
func sha256File(p, name string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", relErr(name, err)
	}
	defer f.Close()
	return sha256Of(f, name)
}

// sha256Member is sha256File of a package member, opened as readSmall does.
func sha256Member(root, rel string) (string, error) {
	f, _, err := bundle.OpenMember(root, rel)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return sha256Of(f, rel)
}

func sha256Of(r io.Reader, name string) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", fmt.Errorf("reading %s: %w", name, relErr(name, err))
	}
	return strings.ToUpper(hex.EncodeToString(h.Sum(nil))), nil
}

// hashCheck compares main.hash with the SHA-256 of main-<arch>.mlirb.
type hashCheck struct {
	Present bool
	// Form is "raw" (32 bytes, as Apple writes it) or "hex" (64 hex digits).
	Form    string
	Want    string // main.hash as upper-case hex
	Got     string // SHA-256 of the main file, upper-case hex
	Matches bool
}

// checkHash reads main.hash (32 raw bytes, or the 64 hex digits earlier
// anefix versions wrote) and compares it with the main file's digest.
func checkHash(root, mainName string) (hashCheck, error) {
	var hc hashCheck
	b, err := readSmall(root, hashFile, maxHashFile)
	if errors.Is(err, os.ErrNotExist) {
		return hc, nil
	}
	if err != nil {
		return hc, err
	}
	hc.Present = true
	// One reading of main.hash for the whole tool: graph/bundle's.
	want, form, err := bundle.ParseHash(b)
	if err != nil {
		return hc, fmt.Errorf("%s: %w", hashFile, err)
	}
	hc.Form, hc.Want = "raw", strings.ToUpper(want)
	if form != bundle.HashRaw {
		hc.Form = "hex"
	}
	if hc.Got, err = sha256Member(root, mainName); err != nil {
		return hc, err
	}
	hc.Matches = hc.Got == hc.Want
	return hc, nil
}

// metadata is a compiled package's metadata.json. Apple's keys are read,
// never rewritten; Keys lists every top-level key in file order.
type metadata struct {
	Producer, SourceHash, AssetVersion, CreationDate string
	Keys                                             []string
}

func parseMetadata(b []byte, name string) (*metadata, error) {
	// Into a struct, not a map of every key: a metadata.json of many keys
	// then costs the key list below, not a copy of each value as well.
	var raw struct {
		Producer     json.RawMessage `json:"producer"`
		SourceHash   json.RawMessage `json:"sourceHash"`
		AssetVersion json.RawMessage `json:"assetVersion"`
		CreationDate json.RawMessage `json:"creationDate"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s is not a JSON object: %v", name, err)
	}
	md := &metadata{Keys: jsonKeys(b)}
	for _, f := range []struct {
		key string
		v   json.RawMessage
		dst *string
	}{{"producer", raw.Producer, &md.Producer}, {"sourceHash", raw.SourceHash, &md.SourceHash}, {"assetVersion", raw.AssetVersion, &md.AssetVersion}, {"creationDate", raw.CreationDate, &md.CreationDate}} {
		if f.v != nil {
			if err := json.Unmarshal(f.v, f.dst); err != nil {
				return nil, fmt.Errorf("%s: %q is not a string: %v", name, f.key, err)
			}
		}
	}
	return md, nil
}

// jsonKeys lists an object's top-level keys in file order ("" on error).
func jsonKeys(b []byte) []string {
	d := json.NewDecoder(bytes.NewReader(b))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return keys
		}
		k, _ := t.(string)
		keys = append(keys, k)
		var skip json.RawMessage
		if d.Decode(&skip) != nil {
			return keys
		}
	}
	return keys
}

// stats is a compiled package's stats.json, in file order.
type stats struct {
	Operations   []nameCount
	StorageTypes []nameCount
	ComputeTypes []string
}

// nameCount is one row of stats.json.
type nameCount struct {
	Name  string `json:"name"`
	Count int64  `json:"count"`
}

func parseStats(b []byte, name string) (*stats, error) {
	var s struct {
		Operations   *[]nameCount `json:"operationDistribution"`
		StorageTypes *[]nameCount `json:"storageTypes"`
		ComputeTypes *[]string    `json:"computeTypes"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s does not hold operationDistribution/storageTypes/computeTypes as the real packages do: %v", name, err)
	}
	st := &stats{}
	if s.Operations != nil {
		st.Operations = *s.Operations
	}
	if s.StorageTypes != nil {
		st.StorageTypes = *s.StorageTypes
	}
	if s.ComputeTypes != nil {
		st.ComputeTypes = *s.ComputeTypes
	}
	return st, nil
}

// graphFile is one MLIR file of a package, as read.
type graphFile struct {
	Module   *graph.Module
	Text     bool   // MLIR text (stand-ins only), not bytecode
	Version  int    // bytecode version; 0 for text
	Producer string // bytecode producer; "" for text
}

// readGraph reads the member rel of the package root (opened as readSmall
// does): MLIR bytecode (a real package's main file and .mpsgraph files),
// or MLIR text, which only stand-ins hold: the stand-in compiler in
// testdata/compiler writes its specialized graph as text. Blobs are not
// needed here, so the file is closed before returning.
func readGraph(root, rel string) (*graphFile, error) {
	f, fi, err := bundle.OpenMember(root, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, 4)
	n, _ := f.ReadAt(head, 0)
	if n == 4 && bytes.Equal(head, bytecodeMagic) {
		m, src, err := bytecode.Read(f, fi.Size(), q(rel))
		if err != nil {
			return nil, err
		}
		return &graphFile{Module: m, Version: src.Version, Producer: src.Producer}, nil
	}
	if fi.Size() > maxTextGraph {
		return nil, fmt.Errorf("%s is neither MLIR bytecode (no magic 4D 4C EF 52) nor MLIR text of a sensible size (%d bytes)", q(rel), fi.Size())
	}
	b := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, fmt.Errorf("reading %s: %w (did it shrink while being read?)", q(rel), relErr(rel, err))
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return nil, fmt.Errorf("%s is neither MLIR bytecode (no magic 4D 4C EF 52) nor MLIR text (byte %d is NUL)", q(rel), i)
	}
	m, _, err := mlirtext.Parse(q(rel), string(b))
	if err != nil {
		return nil, err
	}
	return &graphFile{Module: m, Text: true}, nil
}

// rel is p relative to root, slash-separated.
func rel(root, p string) string {
	r, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}
