package pmi

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func allBytes() string {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return string(b)
}

func TestEncodeValueRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 500)
	for i := range random {
		random[i] = byte(rng.IntN(256))
	}
	tests := []struct {
		name, in, enc string // enc "" means: do not check the exact form
	}{
		{"empty", "", ""},
		{"plain", "host:1234", "host:1234"},
		{"space", "a b", "a%20b"},
		{"equals", "x=y", "x%3Dy"},
		{"percent", "100%", "100%25"},
		{"looks encoded", "%41", "%2541"},
		{"backslash semicolon", `a\b;c`, "a%5Cb%3Bc"},
		{"newline tab cr", "a\nb\tc\r", "a%0Ab%09c%0D"},
		{"nul and high", "\x00\xff", "%00%FF"},
		{"utf8", "héllo", "h%C3%A9llo"},
		{"all bytes", allBytes(), ""},
		{"random", string(random), ""},
		{"mapping", "(vector,(0,1,1))", "(vector,(0,1,1))"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enc := EncodeValue(tt.in)
			if tt.enc != "" && enc != tt.enc {
				t.Errorf("EncodeValue(%q) = %q, want %q", tt.in, enc, tt.enc)
			}
			if EncodedLen(tt.in) != len(enc) {
				t.Errorf("EncodedLen = %d, len(EncodeValue) = %d", EncodedLen(tt.in), len(enc))
			}
			if len(enc) > encodeExpansion*len(tt.in) {
				t.Errorf("encoding grew %d bytes to %d", len(tt.in), len(enc))
			}
			if err := checkToken(enc, false); err != nil {
				t.Errorf("encoded value cannot travel: %v", err)
			}
			for i := 0; i < len(enc); i++ {
				if c := enc[i]; c <= ' ' || c >= 0x7f || c == '=' {
					t.Fatalf("encoded value has byte %q", c)
				}
			}
			dec, err := DecodeValue(enc)
			if err != nil || dec != tt.in {
				t.Errorf("DecodeValue(%q) = %q, %v; want %q", enc, dec, err, tt.in)
			}
		})
	}
}

func TestDecodeValueErrors(t *testing.T) {
	for _, s := range []string{"%", "%4", "a%G1", "abc%zz", "%%"} {
		if d, err := DecodeValue(s); err == nil {
			t.Errorf("DecodeValue(%q) = %q, want error", s, d)
		}
		if got := decodeLenient(s); got != s {
			t.Errorf("decodeLenient(%q) = %q, want it unchanged", s, got)
		}
	}
	if d, err := DecodeValue("%6a%6A"); err != nil || d != "jj" {
		t.Errorf("lower-case hex: %q, %v", d, err)
	}
}

func FuzzEncodeValue(f *testing.F) {
	for _, s := range []string{"", "a b", "x=y%", allBytes(), strings.Repeat("%", 10)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		enc := EncodeValue(s)
		if err := checkToken(enc, false); err != nil {
			t.Fatalf("EncodeValue(%q) = %q cannot travel: %v", s, enc, err)
		}
		dec, err := DecodeValue(enc)
		if err != nil || dec != s {
			t.Fatalf("round trip of %q: %q, %v", s, dec, err)
		}
	})
}
