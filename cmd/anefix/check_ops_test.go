package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// opsReport is the part of check --json --ops these tests read.
type opsReport struct {
	Legal            bool   `json:"legal"`
	PredictedRegions *int32 `json:"predictedRegions"`
	OpsOff           *int32 `json:"opsOff"`
	Graphs           []struct {
		Name       string `json:"name"`
		Ops        int    `json:"ops"`
		OpsIllegal int    `json:"opsIllegal"`
	} `json:"graphs"`
	Ops []struct {
		OpID         string   `json:"opId"`
		Device       string   `json:"device"`
		Graph        string   `json:"graph"`
		OpName       string   `json:"opName"`
		Source       string   `json:"source"`
		Region       int      `json:"region"`
		Reason       string   `json:"reason"`
		Blocked      bool     `json:"blocked"`
		ElementTypes []string `json:"elementTypes"`
	} `json:"ops"`
}

func checkJSON(t *testing.T, args ...string) (opsReport, int) {
	t.Helper()
	code, out, errs := runCLI(t, "", append([]string{"check", "--json"}, args...)...)
	var r opsReport
	if code != exitOK && code != exitGate {
		t.Fatalf("check --json %v: exit %d: %s", args, code, errs)
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("check --json %v: %v", args, err)
	}
	return r, code
}

// opLine matches a line of the --ops listing: op id, device (and region).
var opLine = regexp.MustCompile(`(?m)^    (\S+)\s+(ane \d+|gpu|none|unknown)\s+seg `)

// textOps returns the op ids and devices the --ops listing prints.
func textOps(t *testing.T, args ...string) map[string]string {
	t.Helper()
	code, out, errs := runCLI(t, "", append([]string{"check"}, args...)...)
	if code != exitOK && code != exitGate {
		t.Fatalf("check %v: exit %d: %s", args, code, errs)
	}
	got := map[string]string{}
	for _, m := range opLine.FindAllStringSubmatch(out, -1) {
		if _, dup := got[m[1]]; dup {
			t.Errorf("check %v: %s listed twice", args, m[1])
		}
		got[m[1]] = m[2]
	}
	return got
}

// TestCheckOpsEveryOp is issue 31's "done when": every op of every synth
// arm and of the LFM2/Mamba2/… stand-ins (testdata/families, picked up as
// they are added) has a predicted device, in JSON and in the text, each op
// on its own line.
func TestCheckOpsEveryOp(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "families", "*.mlir"))
	for _, arm := range []string{"A", "B", "C", "D", "E"} {
		inputs = append(inputs, filepath.Join("..", "..", "testdata", "synth", "arm"+arm+".aimodel"))
	}
	if len(inputs) < 8 {
		t.Fatalf("only %d inputs", len(inputs))
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			r, _ := checkJSON(t, in, "--ops")
			n := 0
			for _, g := range r.Graphs {
				n += g.Ops
			}
			if n == 0 || len(r.Ops) != n {
				t.Fatalf("%d placements for %d ops", len(r.Ops), n)
			}
			text := textOps(t, in, "--ops")
			if len(text) != n {
				t.Errorf("text lists %d ops of %d", len(text), n)
			}
			for _, o := range r.Ops {
				dev := o.Device
				if o.Region > 0 {
					dev += " " + strconv.Itoa(o.Region)
				}
				if !slices.Contains([]string{"ane", "gpu", "none", "unknown"}, o.Device) || text[o.OpID] != dev {
					t.Errorf("%s: JSON device %q, text %q", o.OpID, dev, text[o.OpID])
				}
			}
		})
	}
}

// TestCheckOpsFilters: --only, --at and --op select the same ops in
// JSON and text; without --ops the JSON has no ops. Arm A's figures: its
// compile log cited the 18 casts at macos/qwen3_5.py:199 (the recurrence
// the generator marks, graph/synth/expected.go), and check's own groups
// count them (TestCheck).
func TestCheckOpsFilters(t *testing.T) {
	armA := filepath.Join("..", "..", "testdata", "synth", "armA.aimodel")
	if r, _ := checkJSON(t, armA); len(r.Ops) != 0 {
		t.Errorf("ops without --ops: %d", len(r.Ops))
	}
	all, _ := checkJSON(t, armA, "--ops")
	illegal := 0
	for _, g := range all.Graphs {
		illegal += g.OpsIllegal
	}
	inMacFile := 0
	for _, o := range all.Ops {
		if strings.Contains(o.Source, "/macos/qwen3_5.py:") {
			inMacFile++
		}
	}
	for _, c := range []struct {
		args []string
		want int
		each func(name, dev string) bool
	}{
		{[]string{"--only", "blocked", "--at", "macos/qwen3_5.py:199"}, 18, func(n, d string) bool { return n == "coreai.cast" && d == "gpu" }},
		{[]string{"--only", "blocked"}, illegal, nil},
		{[]string{"--op", "_to_copy_4"}, 1, func(n, d string) bool { return n == "coreai.cast" && d == "gpu" }},
		// A file without a line; a suffix must start at a '/':
		// "qwen3_5.py" is not "qwen3_5_ios.py", "5.py" matches nothing.
		{[]string{"--at", "qwen3_5.py"}, inMacFile, nil},
		{[]string{"--at", "5.py:199"}, 0, nil},
		{[]string{"--only", "none,gpu", "--architecture", "h16g", "--at", "qwen3_5.py"}, -1, func(_, d string) bool { return d == "gpu" || d == "none" }},
	} {
		name := strings.Join(c.args, " ")
		r, _ := checkJSON(t, append([]string{armA}, c.args...)...)
		text := textOps(t, append([]string{armA}, c.args...)...)
		if c.want >= 0 && len(r.Ops) != c.want {
			t.Errorf("%s: %d ops, want %d", name, len(r.Ops), c.want)
		}
		if len(text) != len(r.Ops) {
			t.Errorf("%s: text %d ops, JSON %d", name, len(text), len(r.Ops))
		}
		for _, o := range r.Ops {
			if c.each != nil && !c.each(o.OpName, o.Device) {
				t.Errorf("%s: %s (%s) on %s", name, o.OpID, o.OpName, o.Device)
			}
		}
	}
	if inMacFile == 0 || illegal == 0 {
		t.Fatalf("arm A: %d ops in macos/qwen3_5.py, %d illegal: the filters prove nothing", inMacFile, illegal)
	}
	code, _, errs := runCLI(t, "", "check", armA, "--op", "_to_copy_99")
	if code != exitFailure || !strings.Contains(errs, `no op has this id; the nearest: "_to_copy_9"`) {
		t.Errorf("--op _to_copy_99: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := runCLI(t, "", "check", armA, "--only", "cpu"); code != exitUsage || !strings.Contains(errs, "blocked, ane, gpu, none, unknown") {
		t.Errorf("--only cpu: exit %d, stderr %q", code, errs)
	}
}

// TestCheckOneArchitecture is issue 31 item 5: a report speaks for one
// architecture. For arm A and its default rewrite under each known
// architecture and one without a record, the text names no other
// architecture, every region count and off-the-Neural-Engine count it
// prints is the chosen architecture's (the JSON's predictedRegions and
// opsOff), and the lines that depend on the architecture differ between
// them: the headline, each function's line and the footer. The exit code
// follows the blockers alone.
func TestCheckOneArchitecture(t *testing.T) {
	armA := filepath.Join("..", "..", "testdata", "synth", "armA.aimodel")
	rewritten := filepath.Join(t.TempDir(), "armA.fixed.aimodel")
	if code, _, errs := runCLI(t, "", "rewrite", armA, "-o", rewritten); code != exitOK {
		t.Fatalf("rewrite: exit %d: %s", code, errs)
	}
	archs := []string{"h18p", "h16g", "h99x"}
	regionCount := regexp.MustCompile(`(\d+) ANE region\(s\)|(\d+) of \d+ function\(s\) get an ANE region`)
	offCount := regexp.MustCompile(`(\d+) op\(s\) off the Neural Engine`)
	for _, in := range []struct {
		path string
		code int
	}{{armA, exitGate}, {rewritten, exitOK}} {
		lines := map[string][]string{}
		for _, arch := range archs {
			name := filepath.Base(in.path) + "/" + arch
			r, _ := checkJSON(t, in.path, "--architecture", arch)
			code, text, _ := runCLI(t, "", "check", in.path, "--architecture", arch)
			if code != in.code {
				t.Errorf("%s: exit %d, want %d", name, code, in.code)
			}
			for _, other := range archs {
				if other != arch && strings.Contains(text, other) {
					t.Errorf("%s: the text names %s:\n%s", name, other, text)
				}
			}
			want := "none"
			if r.PredictedRegions != nil {
				want = fmt.Sprint(*r.PredictedRegions)
			}
			for _, m := range regionCount.FindAllStringSubmatch(text, -1) {
				if got := m[1] + m[2]; got != want {
					t.Errorf("%s: %q in the text; the architecture's count is %s", name, m[0], want)
				}
			}
			wantOff := "none"
			if r.OpsOff != nil {
				wantOff = fmt.Sprint(*r.OpsOff)
			}
			for _, m := range offCount.FindAllStringSubmatch(text, -1) {
				if m[1] != wantOff {
					t.Errorf("%s: %q in the text; the architecture's count is %s", name, m[0], wantOff)
				}
			}
			if (r.PredictedRegions == nil) != (arch == "h99x") || (r.PredictedRegions == nil) != (r.OpsOff == nil) {
				t.Errorf("%s: predictedRegions %v, opsOff %v", name, deref(r.PredictedRegions), deref(r.OpsOff))
			}
			ls := strings.Split(strings.TrimSpace(text), "\n")
			fn := slices.IndexFunc(ls, func(l string) bool { return strings.HasPrefix(l, "  @main: ") })
			if fn < 0 {
				t.Fatalf("%s: no function line:\n%s", name, text)
			}
			lines[arch] = []string{ls[1], ls[fn], ls[len(ls)-1]}
		}
		for i, a := range archs {
			for _, b := range archs[i+1:] {
				for j, what := range []string{"headline", "function line", "footer"} {
					if lines[a][j] == lines[b][j] {
						t.Errorf("%s: the %s is the same under %s and %s: %q", filepath.Base(in.path), what, a, b, lines[a][j])
					}
				}
			}
		}
	}
}
