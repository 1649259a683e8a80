package bundle

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// progress draws a progress bar for long work. It draws only on a terminal
// and only once the work has taken longer than a second, so short runs and
// redirected stderr stay clean. Bars live at once (verify hashes two
// inputs while it decodes them) each get their own line (boards). A nil
// *Progress is valid and does nothing.
type progress struct {
	seq   uint64 // creation order: the board's line order
	label string
	unit  string       // "" counts bytes; otherwise what is counted ("positions")
	total atomic.Int64 // 0 or less: unknown
	n     atomic.Int64
	note  atomic.Pointer[string] // shown after the count (Bar.SetNote)
	w     io.Writer
	once  sync.Once
	stop  chan struct{}
	done  chan struct{}
}

var progressSeq atomic.Uint64

// Delays for the real bar; tests use shorter ones (newProgress).
var (
	progressDelay = time.Second
	progressTick  = 200 * time.Millisecond
)

const barWidth = 30

// terminalProgress returns a bar for total bytes of work labelled label, drawn on
// f, or nil when f is nil or not a terminal.
func terminalProgress(f *os.File, label string, total int64) *progress {
	return terminalCount(f, label, total, "")
}

// terminalCount is terminalProgress for work counted in unit ("" is bytes).
func terminalCount(f *os.File, label string, total int64, unit string) *progress {
	if f == nil || !isTerminalFile(f) {
		return nil
	}
	p := &progress{label: label, unit: unit, w: f}
	p.total.Store(total)
	return startProgress(p, progressDelay, progressTick)
}

// isTerminalFile is isTerminal; tests stand a file in for a terminal.
var isTerminalFile = isTerminal

// isTerminal reports whether f is a character device (a terminal), using
// only Stat so that no terminal library is needed.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func newProgress(w io.Writer, label string, total int64, delay, tick time.Duration) *progress {
	p := &progress{label: label, w: w}
	p.total.Store(total)
	return startProgress(p, delay, tick)
}

// startProgress numbers p and starts drawing it; p's fields are not written
// after this (the drawing goroutine reads them).
func startProgress(p *progress, delay, tick time.Duration) *progress {
	p.seq = progressSeq.Add(1)
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	if delay <= 0 {
		// No delay: drawn now, so even work that ends at once shows its bar.
		boardOf(p.w).show(p)
	}
	go p.run(delay, tick)
	return p
}

// SetProgressDelay sets how long work runs before its bar is drawn (1 s by
// default; 0 draws every bar at once). cmd/anefix sets it from
// ANEFIX_PROGRESS_DELAY.
func SetProgressDelay(d time.Duration) { progressDelay = d }

func (p *progress) run(delay, tick time.Duration) {
	defer close(p.done)
	if delay > 0 {
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
		boardOf(p.w).show(p)
	}
	tk := time.NewTicker(tick)
	defer tk.Stop()
	for {
		select {
		case <-p.stop:
			// The final count, then the line goes so the next output starts clean.
			boardOf(p.w).hide(p)
			return
		case <-tk.C:
			boardOf(p.w).draw()
		}
	}
}

// board is the bars shown on one writer, drawn together, one line each,
// the cursor left at the end of the last one.
type board struct {
	mu    sync.Mutex
	w     io.Writer
	bars  []*progress
	lines int // lines the last draw left on screen
}

var (
	boardsMu sync.Mutex
	boards   = map[io.Writer]*board{}
)

func boardOf(w io.Writer) *board {
	boardsMu.Lock()
	defer boardsMu.Unlock()
	b := boards[w]
	if b == nil {
		b = &board{w: w}
		boards[w] = b
	}
	return b
}

func (b *board) show(p *progress) {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := 0
	for i < len(b.bars) && b.bars[i].seq < p.seq {
		i++
	}
	b.bars = slices.Insert(b.bars, i, p)
	b.drawLocked()
}

// hide draws p's last state, then removes its line.
func (b *board) hide(p *progress) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.drawLocked()
	for i, q := range b.bars {
		if q == p {
			b.bars = append(b.bars[:i], b.bars[i+1:]...)
			break
		}
	}
	b.drawLocked()
}

func (b *board) draw() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.drawLocked()
}

// drawLocked goes back to the first line it drew, clears to the end of the
// screen and draws every bar.
func (b *board) drawLocked() {
	var s strings.Builder
	s.WriteString("\r")
	if b.lines > 1 {
		fmt.Fprintf(&s, "\033[%dA", b.lines-1)
	}
	s.WriteString("\033[J")
	for i, p := range b.bars {
		if i > 0 {
			s.WriteString("\n")
		}
		s.WriteString(p.text())
	}
	b.lines = len(b.bars)
	io.WriteString(b.w, s.String())
}

// text is the bar's line.
func (p *progress) text() string {
	note := ""
	if s := p.note.Load(); s != nil && *s != "" {
		note = " " + *s
	}
	n, total := p.n.Load(), p.total.Load()
	if total <= 0 {
		// Unknown total (a generated model, a pipe): the count so far, no percentage.
		return fmt.Sprintf("%s %s%s", p.label, p.amount(n), note)
	}
	frac := min(float64(n)/float64(total), 1)
	fill := int(frac * barWidth)
	done := humanBytes(n) + "/" + humanBytes(total)
	if p.unit != "" {
		done = fmt.Sprintf("%d/%d %s", n, total, p.unit)
	}
	return fmt.Sprintf("%s [%s%s] %3.0f%% %s%s", p.label, strings.Repeat("=", fill), strings.Repeat(" ", barWidth-fill), 100*frac, done, note)
}

// amount is n in the bar's unit.
func (p *progress) amount(n int64) string {
	if p.unit == "" {
		return humanBytes(n)
	}
	return fmt.Sprintf("%d %s", n, p.unit)
}

// Bar is a progress bar that work outside this package drives (parsing
// MLIR text in graph/modelio); it draws as the package's own bars do, on a
// terminal only. The zero Bar does nothing.
type Bar struct{ p *progress }

// NewBar starts a bar labelled label for total bytes of work, drawn on f
// when f is a terminal. A total of 0 or less is unknown: the bar then shows
// the count so far.
func NewBar(f *os.File, label string, total int64) Bar {
	return Bar{terminalProgress(f, label, total)}
}

// NewCountBar is NewBar for work counted in unit ("positions", "weights")
// rather than bytes.
func NewCountBar(f *os.File, label string, total int64, unit string) Bar {
	return Bar{terminalCount(f, label, total, unit)}
}

// Set records that n bytes (or units) of the work are done. A count below
// one already set is ignored: workers report out of order.
func (b Bar) Set(n int64) {
	if b.p == nil {
		return
	}
	for old := b.p.n.Load(); n > old && !b.p.n.CompareAndSwap(old, n); old = b.p.n.Load() {
	}
}

// SetTotal sets the work's total, for work whose size is known only once
// it has started (a bar made with total 0 shows the count alone until then).
func (b Bar) SetTotal(total int64) {
	if b.p != nil {
		b.p.total.Store(total)
	}
}

// SetNote sets a few words drawn after the count ("(3 run, 2 cached)"),
// for work whose count alone does not say enough. It must hold no control
// character: the bar is drawn raw on the terminal.
func (b Bar) SetNote(s string) {
	if b.p != nil {
		b.p.note.Store(&s)
	}
}

// Done stops the bar (see progress.Done).
func (b Bar) Done() { b.p.Done() }

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
