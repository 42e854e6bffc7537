package core

import (
	"unsafe"

	"mpix/transport"
)

// One-sided access through a transport (transport.RemoteMemory, ofi's fi_write and
// fi_read), for the RMA package: the endpoint is the VCI's, so every call here takes
// the VCI's lock (unless this thread owns the VCI), as SendAM does.

// remoteEP is the engine's endpoint that offers one-sided access, or nil.
func (e *Engine) remoteEP() transport.RemoteMemory {
	for _, ep := range e.eps {
		if rm, ok := ep.(transport.RemoteMemory); ok {
			return rm
		}
	}
	return nil
}

// RegisterRemote registers n bytes at base with the engine's endpoint that peers on
// the same VCI reach for one-sided access, and returns the key to publish. It returns
// transport.ErrNoRemoteMemory where the engine has no such endpoint.
func (e *Engine) RegisterRemote(base unsafe.Pointer, n int64) ([]byte, any, error) {
	l := e.enter()
	defer e.exit(l)
	rm := e.remoteEP()
	if rm == nil {
		return nil, nil, transport.ErrNoRemoteMemory
	}
	return rm.RegisterMemory(base, n)
}

// DeregisterRemote releases a registration of RegisterRemote.
func (e *Engine) DeregisterRemote(reg any) error {
	l := e.enter()
	defer e.exit(l)
	rm := e.remoteEP()
	if rm == nil {
		return transport.ErrNoRemoteMemory
	}
	return rm.DeregisterMemory(reg)
}

// RemoteTo reports whether world rank w is reached through the endpoint that offers
// one-sided access (so that a key w published from the same VCI is good here).
func (e *Engine) RemoteTo(w int) bool {
	if !e.Reaches(w) {
		return false
	}
	rm, ok := e.route[w].(transport.RemoteMemory)
	return ok && rm == e.remoteEP()
}

// remoteFor is the endpoint that one-sided operations towards world rank w went
// through: w's route when it offers them, else the one-sided endpoint when it reaches w
// (remote atomics to node peers, whose messages go through shared memory), else nil.
func (e *Engine) remoteFor(w int) transport.RemoteMemory {
	if rm, ok := e.route[w].(transport.RemoteMemory); ok {
		return rm
	}
	if e.remoteReaches(w) {
		return e.remoteEP()
	}
	return nil
}

// StartRemote starts a write of buf (write) to, or a read into buf from, address addr
// of world rank w's registration key. buf must stay as it is until FlushRemote(w).
func (e *Engine) StartRemote(write bool, w int, key []byte, addr uint64, buf []byte) error {
	l := e.enter()
	defer e.exit(l)
	rm, ok := e.route[w].(transport.RemoteMemory)
	if !ok {
		return transport.ErrNoRemoteMemory
	}
	if write {
		return rm.StartWrite(w, key, addr, buf)
	}
	return rm.StartRead(w, key, addr, buf)
}

// FlushRemote waits, making progress as any wait does, until every one-sided
// operation started towards world rank w is complete, and returns the first error.
func (e *Engine) FlushRemote(w int) error {
	rm := e.remoteFor(w)
	if rm == nil {
		return transport.ErrNoRemoteMemory
	}
	e.wait(func() bool {
		l := e.enter()
		p := rm.Pending(w)
		e.exit(l)
		return !p
	})
	l := e.enter()
	defer e.exit(l)
	return rm.Flush(w)
}

// RemoteDataBytes is how many bytes of data a write towards world rank w can carry
// to w's completion queue (transport.DataWriter), 0 where it carries none.
func (e *Engine) RemoteDataBytes(w int) int {
	if !e.RemoteTo(w) {
		return 0
	}
	dw, ok := e.route[w].(transport.DataWriter)
	if !ok {
		return 0
	}
	l := e.enter()
	defer e.exit(l)
	return dw.WriteDataBytes()
}

// StartRemoteData starts a write of buf to addr of world rank w's registration key
// whose arrival w's engine sees as a transport.KindWriteData message holding data.
// buf must stay as it is until RemoteDone(w) reports true.
func (e *Engine) StartRemoteData(w int, key []byte, addr uint64, buf []byte, data uint64) error {
	l := e.enter()
	defer e.exit(l)
	return e.StartRemoteDataHeld(w, key, addr, buf, data)
}

// StartRemoteDataHeld is StartRemoteData from inside e's progress (an active-message
// handler of e), where e's lock is held already.
func (e *Engine) StartRemoteDataHeld(w int, key []byte, addr uint64, buf []byte, data uint64) error {
	dw, ok := e.route[w].(transport.DataWriter)
	if !ok {
		return transport.ErrNoRemoteMemory
	}
	return dw.StartWriteData(w, key, addr, buf, data)
}

// RemoteDone reports, without waiting, whether every one-sided operation started
// towards world rank w is complete, and then their first error. It makes no progress
// when another thread holds the VCI's lock (that thread is making it).
func (e *Engine) RemoteDone(w int) (bool, error) {
	rm := e.remoteFor(w)
	if rm == nil {
		return true, transport.ErrNoRemoteMemory
	}
	if !e.Owned() {
		if !e.tryLock() {
			return false, nil
		}
		defer e.unlock()
	}
	if rm.Pending(w) {
		return false, nil
	}
	return true, rm.Flush(w)
}

// Remote atomics (transport.Atomics): a window's accumulates of one element type all
// go through one endpoint, the engine's one-sided one, to node peers and this process
// as well as to other nodes, so that the provider's atomics never race with CPU
// atomics on the same memory.

// atomicsEP is the engine's one-sided endpoint when it does atomics, or nil.
func (e *Engine) atomicsEP() transport.Atomics {
	a, _ := e.remoteEP().(transport.Atomics)
	return a
}

// AtomicsReach reports whether the engine's one-sided endpoint does atomics and
// reaches world rank w (whatever route w's messages take).
func (e *Engine) AtomicsReach(w int) bool { return e.atomicsEP() != nil && e.remoteReaches(w) }

// remoteReaches reports whether the engine's one-sided endpoint reaches world rank w.
func (e *Engine) remoteReaches(w int) bool {
	ep, ok := e.remoteEP().(transport.Endpoint)
	return ok && ep.Reaches(w)
}

// RemoteAtomicCaps is how many elements of t one atomic of family f with op carries
// through the engine's endpoint (0: none), whether the provider does its atomics
// natively, and whether it applies them in order.
func (e *Engine) RemoteAtomicCaps(f transport.AtomicFamily, t transport.AtomicType, op transport.AtomicOp) (count int, native, ordered bool) {
	l := e.enter()
	defer e.exit(l)
	a := e.atomicsEP()
	if a == nil {
		return 0, false, false
	}
	return a.AtomicCount(f, t, op), a.NativeAtomics(), a.AtomicsOrdered()
}

// StartRemoteAtomic starts an atomic at addr of world rank w's registration key (see
// transport.Atomics.StartAtomic). The buffers must stay as they are until FlushRemote(w).
func (e *Engine) StartRemoteAtomic(w int, key []byte, addr uint64, f transport.AtomicFamily, t transport.AtomicType,
	op transport.AtomicOp, src, compare, result []byte) error {
	l := e.enter()
	defer e.exit(l)
	if !e.AtomicsReach(w) {
		return transport.ErrNoRemoteMemory
	}
	return e.atomicsEP().StartAtomic(w, key, addr, f, t, op, src, compare, result)
}
