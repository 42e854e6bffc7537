package main

// Ranks' standard output and error: mpixexec's own (the default), files
// named by -outfile-pattern/-errfile-pattern, and with -l every line
// prefixed with "[rank] " on its way through a pipe.

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// maxLine bounds the bytes -l holds while waiting for the end of a line; a
// longer line is cut there.
const maxLine = 1 << 20

// outputDrain bounds the wait, once every rank has ended, for the -l pipes
// to be read to the end (a rank's background child may hold them open).
const outputDrain = time.Second

// expandPattern expands Hydra's output file pattern for rank: %r the rank,
// %g the process group (0: mpixexec starts one), %p the proxy (0: one
// node), %h this host's name, %% a percent sign.
func expandPattern(pattern string, rank int) (string, error) {
	var b strings.Builder
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i++; i >= len(pattern) {
			return "", fmt.Errorf("'%%' at the end (want %%r, %%g, %%p, %%h or %%%%)")
		}
		switch pattern[i] {
		case 'r':
			b.WriteString(strconv.Itoa(rank))
		case 'g', 'p':
			b.WriteByte('0')
		case 'h':
			h, err := os.Hostname()
			if err != nil {
				h = "localhost"
			}
			b.WriteString(h)
		case '%':
			b.WriteByte('%')
		default:
			return "", fmt.Errorf("unknown %%%c (want %%r, %%g, %%p, %%h or %%%%)", pattern[i])
		}
	}
	return b.String(), nil
}

// sink is one destination of rank output; its lock keeps lines whole.
type sink struct {
	mu sync.Mutex
	f  *os.File
}

func (s *sink) write(b []byte) {
	if len(b) == 0 {
		return
	}
	s.mu.Lock()
	s.f.Write(b) // a closed or full destination loses output, and nothing better can be done
	s.mu.Unlock()
}

// outputs hands ranks their standard output and error.
type outputs struct {
	prepend bool
	sinks   map[string]*sink // by file name; "" keys unused
	stdout  *sink
	stderr  *sink
	files   []*os.File // opened here, closed by close
	pumps   sync.WaitGroup
}

func newOutputs(prepend bool) *outputs {
	return &outputs{
		prepend: prepend,
		sinks:   map[string]*sink{},
		stdout:  &sink{f: os.Stdout},
		stderr:  &sink{f: os.Stderr},
	}
}

// dest returns the sink for pattern (def when there is none), creating the
// file the first time a rank names it (ranks that name the same file share
// it).
func (o *outputs) dest(pattern string, rank int, def *sink) (*sink, error) {
	if pattern == "" {
		return def, nil
	}
	name, err := expandPattern(pattern, rank)
	if err != nil {
		return nil, err
	}
	if s, ok := o.sinks[name]; ok {
		return s, nil
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return nil, err
	}
	o.files = append(o.files, f)
	s := &sink{f: f}
	o.sinks[name] = s
	return s, nil
}

// writer returns what to give a rank as its standard output or error for
// sink s, and the file mpixexec closes once the rank has started (nil if
// none). Without -l it is the destination itself; with -l the write end of
// a pipe whose lines go to s prefixed with "[rank] ".
func (o *outputs) writer(s *sink, rank int) (child, closeAfter *os.File, err error) {
	if !o.prepend {
		return s.f, nil, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	o.pumps.Add(1)
	go func() {
		defer o.pumps.Done()
		defer r.Close()
		prefixLines(r, s, "["+strconv.Itoa(rank)+"] ")
	}()
	return w, w, nil
}

// prefixLines copies src to dst, each line prefixed, writing whole lines
// only (a last line without newline gets one).
func prefixLines(src io.Reader, dst *sink, prefix string) {
	buf := make([]byte, 64<<10)
	var partial, out []byte
	for {
		n, err := src.Read(buf)
		data := buf[:n]
		out = out[:0]
		for len(data) > 0 {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				partial = append(partial, data...)
				break
			}
			out = append(append(append(out, prefix...), partial...), data[:i+1]...)
			partial, data = partial[:0], data[i+1:]
		}
		if len(partial) >= maxLine || (err != nil && len(partial) > 0) {
			out = append(append(append(out, prefix...), partial...), '\n')
			partial = partial[:0]
		}
		dst.write(out)
		if err != nil {
			return
		}
	}
}

// close waits, up to outputDrain, for the -l pipes to be read to the end,
// and closes the output files.
func (o *outputs) close() {
	done := make(chan struct{})
	go func() {
		o.pumps.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(outputDrain):
	}
	for _, f := range o.files {
		f.Close()
	}
}
