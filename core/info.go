package core

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// Info limits as in MPICH's ABI.
const (
	MaxInfoKey = 255
	MaxInfoVal = 1024
)

// Info is an ordered set of (key, value) strings.
type Info struct {
	Handle   int32
	readOnly bool // MPI_INFO_ENV
	mu       sync.Mutex
	keys     []string
	vals     map[string]string
}

var infos = NewTable[Info](KindInfo)

// infoEnv is MPI_INFO_ENV (0x5c000001); filled when the runtime starts.
var infoEnv = &Info{Handle: BuiltinHandle(KindInfo, 1), readOnly: true, vals: map[string]string{}}

// NewInfo makes an empty info object with a handle.
func NewInfo() *Info {
	in := &Info{vals: map[string]string{}}
	in.Handle = infos.Add(in)
	return in
}

// LookupInfo resolves a handle that must name an info object.
func LookupInfo(h int32) (*Info, error) {
	if h == infoEnv.Handle {
		return infoEnv, nil
	}
	if in := infos.Get(h); in != nil {
		return in, nil
	}
	if h == NullHandle(KindInfo) {
		return nil, Errorf(ErrInfo, "MPI_INFO_NULL is not a valid info object here")
	}
	return nil, Errorf(ErrInfo, "invalid info handle 0x%x", uint32(h))
}

// LookupInfoOrNull resolves an info handle where MPI_INFO_NULL means "no hints" (nil).
func LookupInfoOrNull(h int32) (*Info, error) {
	if h == NullHandle(KindInfo) {
		return nil, nil
	}
	return LookupInfo(h)
}

func checkKey(key string) error {
	if key == "" || len(key) > MaxInfoKey {
		return Errorf(ErrInfoKey, "info key %q must have 1 to %d characters", key, MaxInfoKey)
	}
	return nil
}

// Set adds or replaces a key.
func (in *Info) Set(key, val string) error {
	if in.readOnly {
		return Errorf(ErrInfo, "MPI_INFO_ENV cannot be modified")
	}
	if err := checkKey(key); err != nil {
		return err
	}
	if len(val) > MaxInfoVal {
		return Errorf(ErrInfoValue, "info value for %q is longer than %d characters", key, MaxInfoVal)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if _, ok := in.vals[key]; !ok {
		in.keys = append(in.keys, key)
	}
	in.vals[key] = val
	return nil
}

// Get returns a key's value.
func (in *Info) Get(key string) (string, bool, error) {
	if err := checkKey(key); err != nil {
		return "", false, err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	v, ok := in.vals[key]
	return v, ok, nil
}

// Delete removes a key; a missing key is MPI_ERR_INFO_NOKEY.
func (in *Info) Delete(key string) error {
	if in.readOnly {
		return Errorf(ErrInfo, "MPI_INFO_ENV cannot be modified")
	}
	if err := checkKey(key); err != nil {
		return err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if _, ok := in.vals[key]; !ok {
		return Errorf(ErrInfoNokey, "info key %q is not set", key)
	}
	delete(in.vals, key)
	for i, k := range in.keys {
		if k == key {
			in.keys = append(in.keys[:i], in.keys[i+1:]...)
			break
		}
	}
	return nil
}

// NKeys counts the keys.
func (in *Info) NKeys() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return len(in.keys)
}

// NthKey returns key n in insertion order.
func (in *Info) NthKey(n int) (string, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if n < 0 || n >= len(in.keys) {
		return "", Errorf(ErrArg, "info key index %d out of range [0,%d)", n, len(in.keys))
	}
	return in.keys[n], nil
}

// Dup copies an info object into a new handle.
func (in *Info) Dup() *Info {
	out := in.copyUnregistered()
	out.Handle = infos.Add(out)
	return out
}

// copyUnregistered copies an info object without giving the copy a handle (hints that
// an MPI object keeps); nil copies to nil.
func (in *Info) copyUnregistered() *Info {
	if in == nil {
		return nil
	}
	out := &Info{vals: map[string]string{}}
	in.mu.Lock()
	defer in.mu.Unlock()
	out.keys = append(out.keys, in.keys...)
	for k, v := range in.vals {
		out.vals[k] = v
	}
	return out
}

// Free releases a user info object.
func (in *Info) Free() error {
	if in.readOnly {
		return Errorf(ErrInfo, "MPI_INFO_ENV cannot be freed")
	}
	infos.Remove(in.Handle)
	return nil
}

// envPairs are the keys and values MPI-4.1 §11.2.3 lists for MPI_INFO_ENV. args are
// the program's arguments, or nil to read them from /proc.
func envPairs(args []string, size int, threadLevel int) [][2]string {
	if args == nil {
		if raw, err := os.ReadFile("/proc/self/cmdline"); err == nil {
			args = strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
		}
	}
	var kv [][2]string
	if len(args) > 0 {
		kv = append(kv, [2]string{"command", args[0]}, [2]string{"argv", strings.Join(args[1:], " ")})
	}
	kv = append(kv, [2]string{"maxprocs", strconv.Itoa(size)}, [2]string{"soft", strconv.Itoa(size)})
	if h, err := os.Hostname(); err == nil {
		kv = append(kv, [2]string{"host", h})
	}
	arch, ok := map[string]string{"amd64": "x86_64", "arm64": "aarch64", "386": "i686"}[runtime.GOARCH]
	if !ok {
		arch = runtime.GOARCH
	}
	kv = append(kv, [2]string{"arch", arch})
	if wd, err := os.Getwd(); err == nil {
		kv = append(kv, [2]string{"wdir", wd})
	}
	return append(kv, [2]string{"thread_level", ThreadLevelName(threadLevel)})
}

func (in *Info) fill(kv [][2]string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.keys, in.vals = nil, map[string]string{}
	for _, p := range kv {
		in.keys = append(in.keys, p[0])
		in.vals[p[0]] = p[1]
	}
}

func fillInfoEnv(size int, threadLevel int) { infoEnv.fill(envPairs(nil, size, threadLevel)) }

// NewEnvInfo makes the info object of MPI_Info_create_env: what MPI_INFO_ENV would
// hold for a program started with args (nil: this program's arguments).
func NewEnvInfo(args []string) *Info {
	in := NewInfo()
	size, level := 1, ThreadSingle
	if Initialized() {
		size, level = CommWorld.Size, ThreadLevel()
	}
	in.fill(envPairs(args, size, level))
	return in
}
