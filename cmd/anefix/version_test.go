package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/anefix/anefix/proto/pbprint"
)

// --version reports the commit, its time and the dirty flag from the build
// info, and says plainly when the build has none (go test, go run).
func TestVersionFromBuildInfo(t *testing.T) {
	vcs := func(rev, at, mod string) *debug.BuildInfo {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/anefix/anefix", Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: at}, {Key: "vcs.modified", Value: mod}}}
	}
	cases := []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want []string
		not  []string
	}{
		{"clean checkout", vcs("0123456789abcdef0123456789abcdef01234567", "2026-12-03T20:00:00Z", "false"), true,
			[]string{"anefix 0.1.0-dev\n", "commit: 0123456789abcdef0123456789abcdef01234567\n", "date:   2026-12-03T20:00:00Z\n", "tree:   clean\n", "go:     go1.26.8 "}, []string{"dirty", "unknown"}},
		{"dirty tree", vcs("0123456789abcdef0123456789abcdef01234567", "2026-12-03T20:00:00Z", "true"), true,
			[]string{"tree:   dirty"}, []string{"clean"}},
		{"go install module@v1.2.3", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, true,
			[]string{"anefix v1.2.3\n", "commit: unknown (no VCS stamp"}, []string{"date:", "tree:"}},
		{"go test: no vcs settings", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true,
			[]string{"anefix 0.1.0-dev\n", "commit: unknown"}, []string{"(devel)"}},
		{"no build info", nil, false, []string{"anefix 0.1.0-dev\n", "commit: unknown"}, nil},
	}
	for _, c := range cases {
		got := stampOf(c.bi, c.ok).text()
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: missing %q in\n%s", c.name, w, got)
			}
		}
		for _, w := range c.not {
			if strings.Contains(got, w) {
				t.Errorf("%s: unexpected %q in\n%s", c.name, w, got)
			}
		}
	}
}

// The -X stamps of a release build win over the build info (which a git
// worktree or -buildvcs=false leaves without vcs settings).
func TestVersionStampsWin(t *testing.T) {
	defer func(v, c, tm, m string) { version, commit, commitTime, treeModified = v, c, tm, m }(version, commit, commitTime, treeModified)
	version, commit, commitTime, treeModified = "v0.2.0", "fedcba", "2026-12-01T00:00:00Z", "true"
	got := stampOf(&debug.BuildInfo{Main: debug.Module{Version: "v9.9.9"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0000"}}}, true).text()
	for _, w := range []string{"anefix v0.2.0\n", "commit: fedcba\n", "date:   2026-12-01T00:00:00Z\n", "tree:   dirty"} {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in\n%s", w, got)
		}
	}
	if toolName() != "anefix v0.2.0" {
		t.Errorf("toolName = %q, want the stamped version alone", toolName())
	}
}

func TestVersionCommand(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, out, _ := runCLI(t, "", args...)
		// go test records no VCS settings, so the line must say so.
		if code != exitOK || !strings.HasPrefix(out, "anefix 0.1.0-dev\n") || !strings.Contains(out, "commit: unknown") {
			t.Errorf("%v: code %d, output %q", args, code, out)
		}
	}
	if code, _, errs := runCLI(t, "", "version", "extra"); code != exitUsage || !strings.Contains(errs, `takes only --json (got "extra")`) {
		t.Errorf("version extra: code %d, stderr %q", code, errs)
	}
}

// --version --json is anefix.v1.VersionInfo with the facts the text
// prints: commit, date and dirty present with a commit, absent without
// one (absent means unknown, proto/common.proto), never "" or false.
func TestVersionJSON(t *testing.T) {
	withCommit := stampOf(&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.time", Value: "2026-12-03T20:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}, true)
	noCommit := stampOf(&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, true)
	for _, c := range []struct {
		name string
		s    buildStamp
		want []string
		not  []string
	}{
		{"commit", withCommit, []string{`"version": "0.1.0-dev"`, `"commit": "0123abcd"`, `"date": "2026-12-03T20:00:00Z"`, `"dirty": true`, `"goVersion": "go1.26.8"`,
			`"platform": "` + runtime.GOOS + "/" + runtime.GOARCH + `"`, fmt.Sprintf(`"schemaVersion": %d`, pbprint.SchemaVersion)}, nil},
		{"no commit", noCommit, []string{`"version": "0.1.0-dev"`, `"goVersion": "go1.26.8"`}, []string{`"commit"`, `"date"`, `"dirty"`}},
	} {
		out, err := pbprint.Marshal(c.s.proto())
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(string(out), w) {
				t.Errorf("%s: missing %s in\n%s", c.name, w, out)
			}
		}
		for _, w := range c.not {
			if strings.Contains(string(out), w) {
				t.Errorf("%s: unexpected %s in\n%s", c.name, w, out)
			}
		}
	}
	for _, args := range [][]string{{"--version", "--json"}, {"version", "--json"}} {
		code, out, errs := runCLI(t, "", args...)
		var v struct{ Version, GoVersion string }
		if code != exitOK || json.Unmarshal([]byte(out), &v) != nil || v.Version != devVersion || v.GoVersion != runtime.Version() {
			t.Errorf("%v: code %d, output %q %q", args, code, out, errs)
		}
	}
	if code, _, errs := runCLI(t, "", "--version", "--jsn"); code != exitUsage || !strings.Contains(errs, "takes only --json") {
		t.Errorf("--version --jsn: code %d, %q", code, errs)
	}
}
