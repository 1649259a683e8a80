package pbview

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/anefix/anefix/graph/oracle"
)

// TestBrowserHostileNames opens, in a real headless Chromium, a page whose
// names are markup and script: nothing they hold runs (window.pwned stays
// unset), no element they spell exists, they show as text (the search
// finds the op by its markup id), the page raises no error and loads no
// resource.
func TestBrowserHostileNames(t *testing.T) {
	b := oracle.Chromium(t, 1000, 700)
	defer b.Close()
	evil := []string{"<img src=x onerror=\"window.pwned=1\">", "</script><script>window.pwned=2</script>", "<svg onload=\"window.pwned=3\">"}
	var ops []op
	for i, s := range evil {
		ops = append(ops, op{id: s, name: "coreai." + s, src: s + ":1", dev: "ANE region 0", layer: s, in: []int32{int32(max(i-1, 0))}})
	}
	file := filepath.Join(t.TempDir(), "evil.html")
	if err := os.WriteFile(file, []byte(htmlOf(t, report(ops, 0, 1, 2), Options{Title: evil[0], Summary: evil})), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := b.Open("file://" + file); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Errors    []string `json:"errors"`
		Pwned     any      `json:"pwned"`
		Injected  int      `json:"injected"`
		Found     int      `json:"found"`
		Text      bool     `json:"text"`
		Resources int      `json:"resources"`
	}
	err := b.Eval(&res, `
		anefixView.expandAll();
		var found = anefixView.search(arguments[0]);
		return {errors: window.anefixErrors, pwned: window.pwned === undefined ? null : window.pwned,
			injected: document.querySelectorAll("img, iframe, #groups script, svg[onload]").length,
			found: found, text: document.body.textContent.indexOf(arguments[0]) >= 0,
			resources: performance.getEntriesByType("resource").length};`, evil[1])
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) != 0 || res.Pwned != nil || res.Injected != 0 || res.Found != 1 || !res.Text || res.Resources != 0 {
		t.Errorf("page of hostile names: %+v; want no errors, pwned null, 0 injected, found op 1, shown as text, 0 resources", res)
	}
	if errs, err := b.ConsoleErrors(); err != nil || len(errs) != 0 {
		t.Errorf("console errors %v (%v)", errs, err)
	}
}

// TestBrowserChangesAndSearch: a diff's changes are drawn in their kind's
// class, a change naming no op is listed in the header, and the search
// finds an op by op id, by the FX name of ID#2, by a full source and by a
// path suffix of it with its line.
func TestBrowserChangesAndSearch(t *testing.T) {
	b := oracle.Chromium(t, 1000, 700)
	defer b.Close()
	ops := append([]op{}, small...)
	ops = append(ops, op{id: "a#2", name: "coreai.constant", src: "/abs/dir/m.py:40", dev: "none", layer: "top.py:9", frames: []string{"top.py:9", "n.py:1"}})
	file := filepath.Join(t.TempDir(), "diff.html")
	o := Options{Summary: []string{"regions 0 -> 1"}, Changes: []Change{{"a", Retyped}, {"c", Moved}, {"gone_1", Removed}}}
	if err := os.WriteFile(file, []byte(htmlOf(t, report(ops, 0), o)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := b.Open("file://" + file); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Errors                 []string
		Retyped, Moved, Header int
		Searches               []int
	}
	err := b.Eval(&res, `
		anefixView.expandAll();
		var s = [];
		["c", "a", "m.py:11", "dir/m.py:40", "m.py:1", "nosuch"].forEach(function (q) { s.push(anefixView.search(q)); });
		return {Errors: window.anefixErrors, Retyped: document.querySelectorAll("g.op.chg-retyped").length,
			Moved: document.querySelectorAll("g.op.chg-moved").length,
			Header: document.querySelector("header .summary").textContent.indexOf("removed: gone_1") >= 0 ? 1 : 0,
			Searches: s};`)
	if err != nil {
		t.Fatal(err)
	}
	// a finds a (0) first; m.py:11 is b (1) then c; dir/m.py:40 is a#2
	// (5); m.py:1 matches no source (m.py:10 is another line).
	want := []int{2, 0, 1, 5, -1, -1}
	if len(res.Errors) != 0 || res.Retyped != 1 || res.Moved != 1 || res.Header != 1 || fmt.Sprint(res.Searches) != fmt.Sprint(want) {
		t.Errorf("got %+v; want no errors, 1 retyped, 1 moved, removed gone_1 in the header, searches %v", res, want)
	}
}
