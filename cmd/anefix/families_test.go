package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFamiliesVerifyAndCheck runs anefix's LFM2-, Mamba2-, xLSTM- and RWKV-style
// stand-ins (testdata/families, synthetic weights) through rewrite, verify
// (the rewrite against the original under the ane profile, teacher-forced:
// both fed the 24-token stream of testdata/families/expected.json; exit 0
// is verify's default gates met) and
// check. Before interp's concat took its axis from operand 0, verify
// refused lfm2 ("concat: axis 0 out of range for rank 0"). The xLSTM
// cell's exp(−m) reaches +inf in the rewritten graph (verify --ranges) and
// check names it.
func TestFamiliesVerifyAndCheck(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "families")
	b, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var exp map[string]struct {
		Tokens []int `json:"tokens"`
	}
	if err := json.Unmarshal(b, &exp); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"lfm2", "mamba2", "xlstm", "rwkv"} {
		t.Run(name, func(t *testing.T) {
			in := filepath.Join(dir, name+".mlir")
			out := filepath.Join(t.TempDir(), name+".fixed.mlir")
			if code, o, e := runCLI(t, "", "rewrite", in, "-o", out); code != exitOK {
				t.Fatalf("rewrite: exit %d\n%s%s", code, o, e)
			}
			ids := make([]string, len(exp[name].Tokens))
			for i, x := range exp[name].Tokens {
				ids[i] = strconv.Itoa(x)
			}
			tokens := filepath.Join(t.TempDir(), "tokens.txt")
			if err := os.WriteFile(tokens, []byte(strings.Join(ids, " ")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			code, o, e := runCLI(t, "", "verify", in, out, "--tokens", tokens, "--numerics", "ane", "--ranges")
			if code != exitOK {
				t.Fatalf("verify: exit %d\n%s%s", code, o, e)
			}
			infExp := false
			for _, l := range strings.Split(o, "\n") {
				f := strings.Fields(l)
				if len(f) > 0 && f[0] == "candidate" && strings.Contains(l, "coreai.exp") && f[len(f)-1] == "inf" {
					infExp = true
				}
			}
			if infExp != (name == "xlstm") {
				t.Errorf("verify --ranges: candidate exp reaching inf %v, want %v\n%s", infExp, name == "xlstm", o)
			}
			code, o, e = runCLI(t, "", "check", out)
			if code != exitOK {
				t.Fatalf("check: exit %d\n%s%s", code, o, e)
			}
			named := strings.Contains(o, `exp (overflows fp16 past 11.09) of a value derived from state "m"`)
			if named != (name == "xlstm") {
				t.Errorf("check names exp of state m: %v, want %v\n%s", named, name == "xlstm", o)
			}
		})
	}
}
