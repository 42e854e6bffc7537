package pmi

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// PMI-2 wire format (MPICH's PMI-2 and Slurm's mpi/pmi2 plugin): every
// message is a 6-byte decimal length, left-aligned and padded with spaces,
// then that many bytes of "key=value;" pairs, the first of which is
// cmd=NAME. A ';' inside a value is doubled (";;"); our values never hold one
// (EncodeValue escapes it), but the parser accepts it.
const v2LenField = 6

// v2Message is one PMI-2 message: its command and other pairs in order.
type v2Message = message

// formatV2 builds the PMI-2 message for cmd and the alternating keys and
// values kv, length prefix included.
func formatV2(cmd string, kv ...string) string {
	if len(kv)%2 != 0 {
		panic("pmi: formatV2 needs key, value pairs")
	}
	var b strings.Builder
	b.WriteString("cmd=")
	b.WriteString(cmd)
	b.WriteByte(';')
	for i := 0; i < len(kv); i += 2 {
		b.WriteString(kv[i])
		b.WriteByte('=')
		b.WriteString(strings.ReplaceAll(kv[i+1], ";", ";;"))
		b.WriteByte(';')
	}
	body := b.String()
	return fmt.Sprintf("%-*d", v2LenField, len(body)) + body
}

// readV2 reads one length-prefixed message.
func readV2(r io.Reader) (v2Message, error) {
	var hdr [v2LenField]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return v2Message{}, errors.New("pmi: process manager closed the connection")
		}
		return v2Message{}, fmt.Errorf("pmi: read from process manager: %w", err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(hdr[:])))
	if err != nil || n <= 0 || n > maxLineLen {
		return v2Message{}, fmt.Errorf("pmi: bad PMI-2 length field %q", hdr[:])
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return v2Message{}, fmt.Errorf("pmi: read from process manager: %w", err)
	}
	return parseV2(string(body))
}

// parseV2 parses a PMI-2 message body.
func parseV2(body string) (v2Message, error) {
	var m v2Message
	var pairs []string
	var cur strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != ';' {
			cur.WriteByte(c)
			continue
		}
		if i+1 < len(body) && body[i+1] == ';' { // escaped ';'
			cur.WriteByte(';')
			i++
			continue
		}
		pairs = append(pairs, cur.String())
		cur.Reset()
	}
	if cur.Len() > 0 { // a last pair without its ';'
		pairs = append(pairs, cur.String())
	}
	for i, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if i == 0 {
			if !ok || k != "cmd" || v == "" {
				return m, fmt.Errorf("pmi: malformed PMI-2 message %q: does not start with cmd=", body)
			}
			m.cmd = v
			continue
		}
		if !ok {
			return m, fmt.Errorf("pmi: malformed PMI-2 message %q: %q is not key=value", body, p)
		}
		m.keys = append(m.keys, k)
		m.vals = append(m.vals, v)
	}
	if m.cmd == "" {
		return m, fmt.Errorf("pmi: empty PMI-2 message")
	}
	return m, nil
}

// v2Bool reads a PMI-2 boolean ("TRUE"/"FALSE").
func v2Bool(m *v2Message, key string) bool {
	v, _ := m.get(key)
	return strings.EqualFold(v, "TRUE") || v == "1"
}
