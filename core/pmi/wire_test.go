package pmi

import (
	"bufio"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

func TestParseMessage(t *testing.T) {
	tests := []struct {
		line string
		cmd  string
		keys []string
		vals []string
	}{
		{"cmd=barrier_out\n", "barrier_out", nil, nil},
		{"cmd=init pmi_version=1 pmi_subversion=1", "init", []string{"pmi_version", "pmi_subversion"}, []string{"1", "1"}},
		{"cmd=get_result rc=0 msg=success value=(vector,(0,1,1))\n", "get_result",
			[]string{"rc", "msg", "value"}, []string{"0", "success", "(vector,(0,1,1))"}},
		{"  cmd=put   key=a  value=x=y \r\n", "put", []string{"key", "value"}, []string{"a", "x=y"}},
		{"cmd=put key=a value=", "put", []string{"key", "value"}, []string{"a", ""}},
		// Words without '=' continue the previous value (unencoded text).
		{"cmd=abort exitcode=5 error_msg=hello there world", "abort",
			[]string{"exitcode", "error_msg"}, []string{"5", "hello there world"}},
		{"cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024", "maxes",
			[]string{"kvsname_max", "keylen_max", "vallen_max"}, []string{"256", "64", "1024"}},
	}
	for _, tt := range tests {
		m, err := parseMessage(tt.line)
		if err != nil {
			t.Errorf("parseMessage(%q): %v", tt.line, err)
			continue
		}
		if m.cmd != tt.cmd || !reflect.DeepEqual(m.keys, tt.keys) || !reflect.DeepEqual(m.vals, tt.vals) {
			t.Errorf("parseMessage(%q) = %q %q %q, want %q %q %q", tt.line, m.cmd, m.keys, m.vals, tt.cmd, tt.keys, tt.vals)
		}
	}
}

func TestParseMessageErrors(t *testing.T) {
	for _, line := range []string{"", "\n", "   ", "rc=0 cmd=x", "cmd=", "hello", "mcmd=spawn\n"} {
		if m, err := parseMessage(line); err == nil {
			t.Errorf("parseMessage(%q) = %+v, want error", line, m)
		}
	}
}

func TestMessageAccessors(t *testing.T) {
	m, err := parseMessage("cmd=maxes kvsname_max=256 bad=x")
	if err != nil {
		t.Fatal(err)
	}
	if m.rc() != 0 {
		t.Errorf("rc() of a reply without rc = %d, want 0", m.rc())
	}
	if n, err := m.getInt("kvsname_max"); err != nil || n != 256 {
		t.Errorf("getInt(kvsname_max) = %d, %v", n, err)
	}
	if _, err := m.getInt("bad"); err == nil {
		t.Error("getInt(bad) succeeded")
	}
	if _, err := m.getInt("missing"); err == nil {
		t.Error("getInt(missing) succeeded")
	}
	m, _ = parseMessage("cmd=get_result rc=-1 msg=key_x_not_found value=unknown")
	if m.rc() != -1 {
		t.Errorf("rc() = %d, want -1", m.rc())
	}
}

func TestFormatMessage(t *testing.T) {
	tests := []struct {
		cmd  string
		kv   []string
		want string
	}{
		{"barrier_in", nil, "cmd=barrier_in\n"},
		{"put", []string{"kvsname", "k0", "key", "a", "value", "b"}, "cmd=put kvsname=k0 key=a value=b\n"},
		{"put", []string{"key", "a", "value", ""}, "cmd=put key=a value=\n"},
	}
	for _, tt := range tests {
		got := formatMessage(tt.cmd, tt.kv...)
		if got != tt.want {
			t.Errorf("formatMessage(%q, %q) = %q, want %q", tt.cmd, tt.kv, got, tt.want)
		}
		m, err := parseMessage(got)
		if err != nil || m.cmd != tt.cmd {
			t.Errorf("parse(format(%q)) = %+v, %v", tt.cmd, m, err)
		}
	}
}

func TestCheckToken(t *testing.T) {
	tests := []struct {
		s     string
		isKey bool
		ok    bool
	}{
		{"key", true, true},
		{"", true, false},
		{"", false, true},
		{"a b", true, false},
		{"a=b", true, false},
		{"a=b", false, true},
		{"a\nb", false, false},
		{"a\tb", true, false},
		{"-bcast-1-0", true, true},
	}
	for _, tt := range tests {
		if err := checkToken(tt.s, tt.isKey); (err == nil) != tt.ok {
			t.Errorf("checkToken(%q, %v) = %v, want ok=%v", tt.s, tt.isKey, err, tt.ok)
		}
	}
}

func TestReadLine(t *testing.T) {
	long := strings.Repeat("v", 10000) // longer than bufio's default buffer
	r := bufio.NewReader(strings.NewReader("cmd=a\ncmd=b value=" + long + "\ncmd=c"))
	for _, want := range []string{"cmd=a\n", "cmd=b value=" + long + "\n", "cmd=c"} {
		got, err := readLine(r)
		if err != nil || got != want {
			t.Fatalf("readLine = %.40q, %v; want %.40q", got, err, want)
		}
	}
	if _, err := readLine(r); !errors.Is(err, io.EOF) {
		t.Fatalf("readLine at end = %v, want EOF", err)
	}
	r = bufio.NewReader(strings.NewReader(strings.Repeat("x", maxLineLen+10) + "\n"))
	if _, err := readLine(r); err == nil {
		t.Fatal("readLine of an overlong line succeeded")
	}
}
