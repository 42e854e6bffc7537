//go:build cgo && !mpix_noverbs

package verbs

import (
	"errors"
	"os"
	"strings"
	"testing"

	"mpix/internal/testdep"
	"mpix/transport/epshare"
)

// qp.go's attribute bits and states are <infiniband/verbs.h>'s.
func TestMasksMatchHeader(t *testing.T) {
	c := cMasks()
	for _, n := range attrNames {
		if uint32(n.a) != c[n.name] {
			t.Errorf("%s: %#x here, %#x in verbs.h", n.name, uint32(n.a), c[n.name])
		}
	}
	for s := Reset; s <= Error; s++ {
		if uint32(s) != c[s.String()] {
			t.Errorf("state %s: %d here, %d in verbs.h", s, int(s), c[s.String()])
		}
	}
	if c["MTU_256"] != 1 || c["MTU_4096"] != 5 {
		t.Errorf("MTU codes %d..%d, ParseQPAddr accepts 1..5", c["MTU_256"], c["MTU_4096"])
	}
}

// device returns the first active port, skipping the test with the reason when there
// is none (this machine has no RDMA device).
func device(t *testing.T) (Device, Port) {
	t.Helper()
	devs, err := Devices()
	if err != nil {
		if !strings.Contains(err.Error(), "libibverbs") {
			t.Fatalf("Devices: %v: the error does not name libibverbs", err)
		}
		testdep.Skip(t, "%v", err)
	}
	d, p, err := Pick(devs)
	if errors.Is(err, ErrNoDevice) {
		t.Skipf("%v: the verbs hardware tests need an RDMA device (a single adapter suffices: a QP connects to itself)", err)
	}
	if err != nil {
		t.Skipf("%v", err)
	}
	return d, p
}

// Devices agrees with the kernel's list.
func TestDevices(t *testing.T) {
	devs, err := Devices()
	if err != nil {
		testdep.Skip(t, "%v", err)
	}
	for _, d := range devs {
		if _, err := os.Stat("/sys/class/infiniband/" + d.Name); err != nil {
			t.Errorf("device %s is not in /sys/class/infiniband: %v", d.Name, err)
		}
		if len(d.Ports) == 0 || d.MaxQPs <= 0 {
			t.Errorf("device %s: %d ports, %d QPs", d.Name, len(d.Ports), d.MaxQPs)
		}
	}
	if len(devs) == 0 {
		if _, _, err := Pick(devs); !errors.Is(err, ErrNoDevice) {
			t.Errorf("Pick of no devices: %v", err)
		}
	}
	t.Logf("%d devices: %+v", len(devs), devs)
}

// Every category's plan for 4 VCIs becomes real resources: distinct QP numbers, and
// every driven QP connects through the PMI exchange (a fake key-value space) to
// itself, a process of one (loopback on one adapter), up to RTS.
func TestCreateEveryCategory(t *testing.T) {
	d, port := device(t)
	for _, c := range epshare.Categories {
		base, err := epshare.New(c, 4, 0, d.Limits())
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		p, err := base.ForPeers(1, d.Limits())
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		r, err := Create(p, d, port, 64)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		seen := map[uint32]bool{}
		for i, n := range r.QPN {
			if n == 0 || seen[n] {
				t.Errorf("%s: QP %d number %d", c, i, n)
			}
			seen[n] = true
		}
		kvs := map[string]string{}
		addr := QPAddr{LID: port.LID, MTU: port.ActiveMTU}
		psn := func(i int) uint32 { return uint32(100 + i) }
		if err := Publish(func(k, v string) error { kvs[k] = v; return nil }, 0, 1, base, r.QPN, addr, psn); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		conns, err := Connections(func(_ int, k string) (string, error) { return kvs[k], nil }, 0, 1, base, r.QPN, addr, psn)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		for _, x := range conns {
			if err := r.Connect(x.Index, x.Local, x.Remote); err != nil {
				t.Errorf("%s: QP %d: %v", c, x.Index, err)
			}
		}
		if err := r.Close(); err != nil {
			t.Errorf("%s: %v", c, err)
		}
	}
}
