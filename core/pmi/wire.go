package pmi

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// maxLineLen bounds one wire line. Hydra's values are at most 1024 bytes, so
// real lines stay far below it; the bound only stops a broken peer from
// making us buffer without end.
const maxLineLen = 64 << 10

// message is one wire line: its command and its other key=value pairs in the
// order they came.
type message struct {
	cmd  string
	keys []string
	vals []string
}

// get returns the value of key and whether it was present.
func (m *message) get(key string) (string, bool) {
	for i, k := range m.keys {
		if k == key {
			return m.vals[i], true
		}
	}
	return "", false
}

// getInt returns the value of key as an integer.
func (m *message) getInt(key string) (int, error) {
	v, ok := m.get(key)
	if !ok {
		return 0, fmt.Errorf("pmi: %s reply lacks %s", m.cmd, key)
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("pmi: %s reply: bad %s=%q", m.cmd, key, v)
	}
	return n, nil
}

// rc returns the message's rc, or 0 where it has none (Hydra leaves rc out
// of several replies).
func (m *message) rc() int {
	v, ok := m.get("rc")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return -1
	}
	return n
}

// parseMessage parses one wire line (with or without its newline).
//
// A token without '=' continues the previous value after a space. Clients
// that do not encode their values (MPICH's abort message, say) send such
// tokens, and this way their text survives.
func parseMessage(line string) (message, error) {
	line = strings.TrimRight(line, "\r\n")
	var m message
	first := true
	for tok := range strings.SplitSeq(line, " ") {
		if tok == "" {
			continue
		}
		k, v, ok := strings.Cut(tok, "=")
		if first {
			if !ok || k != "cmd" {
				if k == "mcmd" {
					return m, fmt.Errorf("pmi: multi-line command %q is not supported", line)
				}
				return m, fmt.Errorf("pmi: malformed line %q: does not start with cmd=", line)
			}
			if v == "" {
				return m, fmt.Errorf("pmi: malformed line %q: empty cmd", line)
			}
			m.cmd = v
			first = false
			continue
		}
		if !ok {
			if len(m.vals) == 0 {
				// A stray word right after cmd: keep it as a key without value.
				m.keys = append(m.keys, tok)
				m.vals = append(m.vals, "")
				continue
			}
			m.vals[len(m.vals)-1] += " " + tok
			continue
		}
		m.keys = append(m.keys, k)
		m.vals = append(m.vals, v)
	}
	if first {
		return m, errors.New("pmi: empty line")
	}
	return m, nil
}

// formatMessage builds the wire line "cmd=CMD k1=v1 k2=v2...\n" from
// alternating keys and values. Keys and values must not contain a space or a
// newline, and keys no '='; callers encode values first.
func formatMessage(cmd string, kv ...string) string {
	if len(kv)%2 != 0 {
		panic("pmi: formatMessage needs key, value pairs")
	}
	var b strings.Builder
	b.WriteString("cmd=")
	b.WriteString(cmd)
	for i := 0; i < len(kv); i += 2 {
		b.WriteByte(' ')
		b.WriteString(kv[i])
		b.WriteByte('=')
		b.WriteString(kv[i+1])
	}
	b.WriteByte('\n')
	return b.String()
}

// checkToken reports whether s can travel as a key (isKey) or a value
// without breaking the line.
func checkToken(s string, isKey bool) error {
	if isKey && s == "" {
		return errors.New("empty key")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' || c == '\n' || c == '\r' || c == 0 || (isKey && (c == '=' || c < 0x20 || c == 0x7f)) {
			return fmt.Errorf("byte %q at offset %d cannot be sent", c, i)
		}
	}
	return nil
}

// readLine reads one line, newline included, of at most maxLineLen bytes.
// A final line without newline before EOF is returned with io.EOF hidden
// behind the line; EOF with nothing read is io.EOF.
func readLine(r *bufio.Reader) (string, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) > maxLineLen {
			return "", fmt.Errorf("pmi: line longer than %d bytes", maxLineLen)
		}
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			return string(buf), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(buf) > 0:
			return string(buf), nil
		default:
			return "", err
		}
	}
}
