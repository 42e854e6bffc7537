package pmi

import (
	"fmt"
	"strings"
)

// valueSafe reports whether byte c travels in an encoded value as itself:
// printable ASCII except the escape '%', the separator '=', the backslash
// (newer MPICH wire parsers treat it as an escape) and ';' (PMI-2's
// separator). Everything else, space, newline and non-ASCII included,
// becomes %XX.
func valueSafe(c byte) bool {
	return c > ' ' && c < 0x7f && c != '%' && c != '=' && c != '\\' && c != ';'
}

// encodeExpansion is the worst-case growth of EncodeValue: one byte becomes
// three ("%XX").
const encodeExpansion = 3

// EncodeValue turns an arbitrary string into a form that travels as one PMI
// wire value: bytes that are not printable ASCII, and the bytes
// % = \ ; become %XX (two upper-case hex digits). Other text is unchanged,
// so EncodeValue("host:1234") == "host:1234". DecodeValue reverses it.
func EncodeValue(s string) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if !valueSafe(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if valueSafe(c) {
			b = append(b, c)
			continue
		}
		b = append(b, '%', hex[c>>4], hex[c&0xf])
	}
	return string(b)
}

// EncodedLen returns len(EncodeValue(s)) without building it.
func EncodedLen(s string) int {
	n := len(s)
	for i := 0; i < len(s); i++ {
		if !valueSafe(s[i]) {
			n += 2
		}
	}
	return n
}

// DecodeValue reverses EncodeValue. Text without '%' is returned as it is,
// so values stored by other software (which never contain '%' followed by
// two hex digits by accident, in practice) read back unchanged. A '%' not
// followed by two hex digits is an error.
func DecodeValue(s string) (string, error) {
	i := strings.IndexByte(s, '%')
	if i < 0 {
		return s, nil
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:i]...)
	for ; i < len(s); i++ {
		c := s[i]
		if c != '%' {
			b = append(b, c)
			continue
		}
		if i+2 >= len(s) {
			return "", fmt.Errorf("pmi: bad escape at offset %d in value %q", i, s)
		}
		hi, ok1 := unhex(s[i+1])
		lo, ok2 := unhex(s[i+2])
		if !ok1 || !ok2 {
			return "", fmt.Errorf("pmi: bad escape at offset %d in value %q", i, s)
		}
		b = append(b, hi<<4|lo)
		i += 2
	}
	return string(b), nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// decodeLenient decodes s, or returns it unchanged where it is not a valid
// encoding (text from a client that does not encode).
func decodeLenient(s string) string {
	d, err := DecodeValue(s)
	if err != nil {
		return s
	}
	return d
}

// cutEncoded shortens an encoded value to at most max bytes without leaving
// a cut escape at the end (for messages, where a cut is better than none).
func cutEncoded(enc string, max int) string {
	if len(enc) <= max {
		return enc
	}
	enc = enc[:max]
	for i := len(enc) - 1; i >= 0 && i >= len(enc)-2; i-- {
		if enc[i] == '%' {
			return enc[:i]
		}
	}
	return enc
}
