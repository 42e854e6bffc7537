//go:build cgo && !mpix_noverbs

package verbs

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include <infiniband/verbs.h>
#include "verbs.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"syscall"
	"unsafe"

	"mpix/transport/epshare"
)

// Port is one port of a device.
type Port struct {
	Num       int
	Active    bool
	LID       uint16
	Ethernet  bool // RoCE: addressed by GID, no LID
	ActiveMTU uint8
}

// Device is an RDMA device as libibverbs reports it.
type Device struct {
	Name                      string
	GUID                      uint64
	MaxQPs, MaxCQs, MaxMRs    int
	MaxPDs, MaxQPWRs, MaxCQEs int
	Ports                     []Port
}

// ErrNoDevice is returned where libibverbs finds no RDMA device.
var ErrNoDevice = errors.New("verbs: no RDMA device (ibv_get_device_list found none)")

// Devices lists the RDMA devices and their ports. It fails when libibverbs cannot be
// loaded; no device is an empty list.
func Devices() ([]Device, error) {
	var buf [16]C.mpix_vb_dev
	var msg [256]C.char
	n := int(C.mpix_vb_devices(&buf[0], C.int(len(buf)), &msg[0], C.int(len(msg))))
	if n < 0 {
		return nil, errors.New("verbs: " + C.GoString(&msg[0]))
	}
	out := make([]Device, 0, n)
	for i := 0; i < n && i < len(buf); i++ {
		d := &buf[i]
		dev := Device{Name: C.GoString(&d.name[0]), GUID: uint64(d.guid), MaxQPs: int(d.max_qp), MaxCQs: int(d.max_cq),
			MaxMRs: int(d.max_mr), MaxPDs: int(d.max_pd), MaxQPWRs: int(d.max_qp_wr), MaxCQEs: int(d.max_cqe)}
		for p := 0; p < int(d.nports) && p < C.MPIX_VB_MAXPORTS; p++ {
			dev.Ports = append(dev.Ports, Port{Num: p + 1, Active: d.port_state[p] == C.IBV_PORT_ACTIVE,
				LID: uint16(d.lid[p]), Ethernet: d.link_layer[p] == C.IBV_LINK_LAYER_ETHERNET, ActiveMTU: uint8(d.active_mtu[p])})
		}
		out = append(out, dev)
	}
	return out, nil
}

// Pick returns the first device with an active port, and the port; ErrNoDevice when
// there is none.
func Pick(devs []Device) (Device, Port, error) {
	for _, d := range devs {
		for _, p := range d.Ports {
			if p.Active {
				return d, p, nil
			}
		}
	}
	if len(devs) == 0 {
		return Device{}, Port{}, ErrNoDevice
	}
	return Device{}, Port{}, fmt.Errorf("verbs: no active port on %d RDMA devices", len(devs))
}

// Limits are a device's limits for epshare plans: mlx5's UAR layout, the device's QP
// and CQ maxima.
func (d Device) Limits() epshare.Limits {
	l := epshare.MLX5()
	l.MaxQPs, l.MaxCQs = d.MaxQPs, d.MaxCQs
	return l
}

// Resources are the contexts, PDs, TDs (with their parent domains), CQs and RC QPs a
// plan asked for, created on one device port; each QP is in INIT until Connect.
type Resources struct {
	r    *C.mpix_vb_res
	Plan *epshare.Plan
	QPN  []uint32 // by plan QP
}

// Create makes the plan's resources on dev's port with queues of depth entries.
func Create(p *epshare.Plan, dev Device, port Port, depth int) (*Resources, error) {
	n := p.NumQPs()
	ctx := make([]C.int32_t, n)
	td := make([]C.int32_t, n)
	cq := make([]C.int32_t, n)
	for i, q := range p.QPs {
		ctx[i], td[i], cq[i] = C.int32_t(q.Context), C.int32_t(q.TD), C.int32_t(q.CQ)
	}
	qpn := make([]C.uint32_t, n)
	name := C.CString(dev.Name)
	defer C.free(unsafe.Pointer(name))
	var msg [256]C.char
	var r *C.mpix_vb_res
	rc := C.mpix_vb_open(name, C.int(port.Num), C.int(p.Contexts), C.int(p.TDs), C.int(p.CQs), C.int(n),
		&ctx[0], &td[0], &cq[0], C.int(depth), &qpn[0], &r, &msg[0], C.int(len(msg)))
	if rc != 0 {
		return nil, fmt.Errorf("verbs: %s (%s, %d VCIs): %s", dev.Name, p.Category, p.VCIs, C.GoString(&msg[0]))
	}
	res := &Resources{r: r, Plan: p, QPN: make([]uint32, n)}
	for i := range qpn {
		res.QPN[i] = uint32(qpn[i])
	}
	return res, nil
}

// Connect moves plan QP i to RTS towards remote, starting at sequence number psn.
func (r *Resources) Connect(i int, local, remote QPAddr) error {
	var msg [256]C.char
	gid := remote.GID
	rc := C.mpix_vb_connect(r.r, C.int(i), C.uint16_t(remote.LID), (*C.uint8_t)(unsafe.Pointer(&gid[0])),
		C.uint32_t(remote.QPN), C.uint32_t(remote.PSN), C.int(PathMTU(local, remote)), C.uint32_t(local.PSN), &msg[0], C.int(len(msg)))
	if rc != 0 {
		return fmt.Errorf("verbs: QP %d: %s", i, C.GoString(&msg[0]))
	}
	return nil
}

// Close destroys everything.
func (r *Resources) Close() error {
	if r.r == nil {
		return nil
	}
	rc := C.mpix_vb_close(r.r)
	r.r = nil
	if rc != 0 {
		return fmt.Errorf("verbs: close: %v", syscall.Errno(-rc))
	}
	return nil
}

// cMasks are <infiniband/verbs.h>'s attribute bits and states, for the test that
// checks qp.go's copies of them.
func cMasks() map[string]uint32 {
	return map[string]uint32{
		"STATE": C.IBV_QP_STATE, "CUR_STATE": C.IBV_QP_CUR_STATE, "ACCESS_FLAGS": C.IBV_QP_ACCESS_FLAGS,
		"PKEY_INDEX": C.IBV_QP_PKEY_INDEX, "PORT": C.IBV_QP_PORT, "AV": C.IBV_QP_AV, "PATH_MTU": C.IBV_QP_PATH_MTU,
		"TIMEOUT": C.IBV_QP_TIMEOUT, "RETRY_CNT": C.IBV_QP_RETRY_CNT, "RNR_RETRY": C.IBV_QP_RNR_RETRY,
		"RQ_PSN": C.IBV_QP_RQ_PSN, "MAX_QP_RD_ATOMIC": C.IBV_QP_MAX_QP_RD_ATOMIC, "MIN_RNR_TIMER": C.IBV_QP_MIN_RNR_TIMER,
		"SQ_PSN": C.IBV_QP_SQ_PSN, "MAX_DEST_RD_ATOMIC": C.IBV_QP_MAX_DEST_RD_ATOMIC, "DEST_QPN": C.IBV_QP_DEST_QPN,
		"RESET": C.IBV_QPS_RESET, "INIT": C.IBV_QPS_INIT, "RTR": C.IBV_QPS_RTR, "RTS": C.IBV_QPS_RTS,
		"SQD": C.IBV_QPS_SQD, "SQE": C.IBV_QPS_SQE, "ERR": C.IBV_QPS_ERR,
		"MTU_256": C.IBV_MTU_256, "MTU_4096": C.IBV_MTU_4096,
	}
}
