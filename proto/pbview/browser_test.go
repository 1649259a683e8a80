package pbview

import (
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
