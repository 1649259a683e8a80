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
	total int64
	n     atomic.Int64
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
	if f == nil || !isTerminalFile(f) {
		return nil
	}
	return newProgress(f, label, total, progressDelay, progressTick)
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
	p := &progress{seq: progressSeq.Add(1), label: label, total: total, w: w, stop: make(chan struct{}), done: make(chan struct{})}
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
	boardOf(p.w).show(p)
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
	n := p.n.Load()
	if p.total <= 0 {
		// Unknown total (a generated model): bytes so far, no percentage.
		return fmt.Sprintf("%s %s", p.label, humanBytes(n))
	}
	frac := min(float64(n)/float64(p.total), 1)
	fill := int(frac * barWidth)
	return fmt.Sprintf("%s [%s%s] %3.0f%% %s/%s", p.label, strings.Repeat("=", fill), strings.Repeat(" ", barWidth-fill), 100*frac, humanBytes(n), humanBytes(p.total))
}

// Bar is a progress bar that work outside this package drives (parsing
// MLIR text in graph/modelio); it draws as the package's own bars do, on a
// terminal only. The zero Bar does nothing.
type Bar struct{ p *progress }

// NewBar starts a bar labelled label for total bytes of work, drawn on f
// when f is a terminal.
func NewBar(f *os.File, label string, total int64) Bar {
	return Bar{terminalProgress(f, label, total)}
}

// Set records that n bytes of the work are done.
func (b Bar) Set(n int64) {
	if b.p != nil {
		b.p.n.Store(n)
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
