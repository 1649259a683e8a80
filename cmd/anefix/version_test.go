package main

import (
	"runtime/debug"
	"strings"
	"testing"
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
	if code, _, errs := runCLI(t, "", "version", "extra"); code != exitUsage || !strings.Contains(errs, "takes no arguments") {
		t.Errorf("version extra: code %d, stderr %q", code, errs)
	}
}
