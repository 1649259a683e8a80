package oracle

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"time"
)

// Debian's chromium and chromium-driver (.ci/run installs them).
const (
	chromiumPath     = "/usr/bin/chromium"
	chromedriverPath = "/usr/bin/chromedriver"
	chromiumInstall  = "apt-get install chromium chromium-driver, or run .ci/run"
)

// chromiumArgs keep the browser off the network and out of the user's
// profile: the machines tests run on refuse other connections, and a run
// must not depend on what a previous one left.
var chromiumArgs = []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"}

// Browser is a headless Chromium driven through chromedriver's W3C
// WebDriver protocol (JSON over HTTP on localhost).
type Browser struct {
	base    string
	session string
	driver  *exec.Cmd
	profile string
}

// Chromium starts a headless Chromium of width×height CSS pixels with a
// fresh profile, or skips the test (fails it when Required) when chromium
// or chromedriver is missing. Close it when done.
func Chromium(t T, width, height int) *Browser {
	t.Helper()
	for _, p := range []string{chromiumPath, chromedriverPath} {
		if err := checkExec(p); err != nil {
			missing(t, "Chromium ("+p+")", chromiumInstall, err)
			return nil
		}
	}
	b, err := startChromium(width, height)
	if err != nil {
		t.Fatalf("starting headless chromium: %v", err)
	}
	return b
}

func startChromium(width, height int) (*Browser, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	profile, err := os.MkdirTemp("", "anefix-chromium-")
	if err != nil {
		return nil, err
	}
	b := &Browser{base: "http://127.0.0.1:" + strconv.Itoa(port), profile: profile}
	b.driver = exec.Command(chromedriverPath, "--port="+strconv.Itoa(port))
	if err := b.driver.Start(); err != nil {
		os.RemoveAll(profile)
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			b.Close()
		}
	}()
	for deadline := time.Now().Add(20 * time.Second); ; {
		if _, err := b.call("GET", "/status", nil); err == nil {
			break
		} else if time.Now().After(deadline) {
			return nil, fmt.Errorf("chromedriver did not answer: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	args := append(append([]string{}, chromiumArgs...), "--user-data-dir="+profile,
		fmt.Sprintf("--window-size=%d,%d", width, height))
	caps := map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"browserName":        "chrome",
		"goog:chromeOptions": map[string]any{"binary": chromiumPath, "args": args},
		"goog:loggingPrefs":  map[string]any{"browser": "ALL"},
	}}}
	v, err := b.call("POST", "/session", caps)
	if err != nil {
		return nil, err
	}
	var s struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(v, &s); err != nil || s.SessionID == "" {
		return nil, fmt.Errorf("new session: %s", v)
	}
	b.session = "/session/" + s.SessionID
	ok = true
	return b, nil
}

// call sends one WebDriver command and returns its "value".
func (b *Browser) call(method, path string, body any) (json.RawMessage, error) {
	var rd io.Reader
	if body != nil {
		j, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, b.base+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	var r struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("%s %s: %d %.200s", method, path, resp.StatusCode, raw)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s %s: %d %.500s", method, path, resp.StatusCode, r.Value)
	}
	return r.Value, nil
}

// Open loads url and waits for the page's load event.
func (b *Browser) Open(url string) error {
	_, err := b.call("POST", b.session+"/url", map[string]any{"url": url})
	return err
}

// Eval runs script (a function body: `return …`) in the page with args and
// decodes its result into out (nil: ignored).
func (b *Browser) Eval(out any, script string, args ...any) error {
	if args == nil {
		args = []any{}
	}
	v, err := b.call("POST", b.session+"/execute/sync", map[string]any{"script": script, "args": args})
	if err != nil || out == nil {
		return err
	}
	return json.Unmarshal(v, out)
}

// ConsoleErrors returns the browser console's messages of level SEVERE
// since the last call (chromedriver's log endpoint).
func (b *Browser) ConsoleErrors() ([]string, error) {
	v, err := b.call("POST", b.session+"/se/log", map[string]any{"type": "browser"})
	if err != nil {
		return nil, err
	}
	var entries []struct{ Level, Message string }
	if err := json.Unmarshal(v, &entries); err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.Level == "SEVERE" {
			out = append(out, e.Message)
		}
	}
	return out, nil
}

// Screenshot returns a PNG of the window.
func (b *Browser) Screenshot() ([]byte, error) {
	v, err := b.call("GET", b.session+"/screenshot", nil)
	if err != nil {
		return nil, err
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(s)
}

// Close ends the session, stops the chromedriver it started and removes
// the profile.
func (b *Browser) Close() {
	if b.session != "" {
		b.call("DELETE", b.session, nil)
		b.session = ""
	}
	if b.driver != nil && b.driver.Process != nil {
		b.driver.Process.Kill()
		b.driver.Wait()
	}
	os.RemoveAll(b.profile)
}
