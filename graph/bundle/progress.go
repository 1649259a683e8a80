package bundle

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// progress draws a progress bar for long work. It draws only on a terminal
// and only once the work has taken longer than a second, so short runs and
// redirected stderr stay clean. A nil *Progress is valid and does nothing.
type progress struct {
	label string
	total int64
	n     atomic.Int64
	w     io.Writer
	once  sync.Once
	stop  chan struct{}
	done  chan struct{}
}

// Delays for the real bar; tests use shorter ones.
const (
	progressDelay = time.Second
	progressTick  = 200 * time.Millisecond
	barWidth      = 30
)

// terminalProgress returns a bar for total bytes of work labelled label, drawn on
// f, or nil when f is nil or not a terminal.
func terminalProgress(f *os.File, label string, total int64) *progress {
	if f == nil || !isTerminal(f) {
		return nil
	}
	return newProgress(f, label, total, progressDelay, progressTick)
}

// isTerminal reports whether f is a character device (a terminal), using
// only Stat so that no terminal library is needed.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func newProgress(w io.Writer, label string, total int64, delay, tick time.Duration) *progress {
	p := &progress{label: label, total: total, w: w, stop: make(chan struct{}), done: make(chan struct{})}
	go p.run(delay, tick)
	return p
}

func (p *progress) run(delay, tick time.Duration) {
	defer close(p.done)
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-p.stop:
		return
	case <-t.C:
	}
	tk := time.NewTicker(tick)
	defer tk.Stop()
	for {
		p.draw()
		select {
		case <-p.stop:
			// Clear the bar so the next line of output starts clean.
			fmt.Fprint(p.w, "\r\033[K")
			return
		case <-tk.C:
		}
	}
}

func (p *progress) draw() {
	n := p.n.Load()
	if p.total <= 0 {
		// Unknown total (a generated model): bytes so far, no percentage.
		fmt.Fprintf(p.w, "\r%s %s", p.label, humanBytes(n))
		return
	}
	frac := 0.0
	if p.total > 0 {
		frac = min(float64(n)/float64(p.total), 1)
	}
	fill := int(frac * barWidth)
	fmt.Fprintf(p.w, "\r%s [%s%s] %3.0f%% %s/%s", p.label, strings.Repeat("=", fill), strings.Repeat(" ", barWidth-fill), 100*frac, humanBytes(n), humanBytes(p.total))
}

// Add records n more bytes of work done.
func (p *progress) Add(n int64) {
	if p != nil {
		p.n.Add(n)
	}
}

// Done stops the bar and clears it if it was drawn. It may be called more
// than once.
func (p *progress) Done() {
	if p == nil {
		return
	}
	p.once.Do(func() {
		close(p.stop)
		<-p.done
	})
}

// Reader counts what is read through it.
func (p *progress) Reader(r io.Reader) io.Reader {
	if p == nil {
		return r
	}
	return &progressReader{r, p}
}

// Writer counts what is written through it.
func (p *progress) Writer(w io.Writer) io.Writer {
	if p == nil {
		return w
	}
	return &progressWriter{w, p}
}

type progressReader struct {
	r io.Reader
	p *progress
}

func (r *progressReader) Read(b []byte) (int, error) {
	n, err := r.r.Read(b)
	r.p.Add(int64(n))
	return n, err
}

type progressWriter struct {
	w io.Writer
	p *progress
}

func (w *progressWriter) Write(b []byte) (int, error) {
	n, err := w.w.Write(b)
	w.p.Add(int64(n))
	return n, err
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
