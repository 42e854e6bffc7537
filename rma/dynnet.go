package rma

import (
	"encoding/binary"
	"sync"
	"unsafe"
)

// Dynamic windows through the transport's one-sided access: each attached region is
// registered at MPI_Win_attach (when some peer reaches this process through its
// engine) and deregistered at MPI_Win_detach, and the state page is registered at
// creation. An origin fetches a region's key from the target's engine once (amKeys)
// and keeps it, but never trusts it blindly: before each operation it reads the
// target's region table generation with the transport (an fi_read of 8 bytes) and uses
// its cached keys only if the table has not changed since it fetched them. A key used
// after its region was detached and registered again would make the provider drop the
// connection, or write memory the region no longer has. Operations the cache cannot
// place (the table changing, memory not in one registered region) go as active
// messages, which the target checks against its table as ever.
//
// So an operation costs a read and a write, and the target's CPU does nothing: that is
// what the paper's Figure 5 asks of dynamic windows (progress while the target is
// busy), at the price of one more round trip than an allocated window's.

// attachedKeys is a dynamic window's registrations of its attached regions, by base.
// Its lock is never held while the engine's is taken, so the engine's amKeys handler
// may take it.
type attachedKeys struct {
	on      bool // the state page is registered: register the regions too
	mu      sync.Mutex
	regs    map[uint64]attachedReg // attached regions, by base
	handles map[uint64]attachedReg // memory handles' regions, by id (memhandle.go)
}

type attachedReg struct {
	size uint64
	key  []byte
	reg  any
}

// registerRegion registers an attached region, before it is published.
func (w *window) registerRegion(base unsafe.Pointer, size int64) {
	w.registerIn(&w.attached.regs, uint64(uintptr(base)), base, size, 0)
}

// deregisterRegion undoes registerRegion, once the region is out of the published table.
func (w *window) deregisterRegion(base uint64) { w.deregisterIn(&w.attached.regs, base) }

// registerIn registers size bytes at base for the transport, when peers reach this
// process that way (the state page is registered), and files the registration in m
// under k. It returns the key, or nil (origins then use active messages), also when
// the key is longer than maxKey (0: any length).
func (w *window) registerIn(m *map[uint64]attachedReg, k uint64, base unsafe.Pointer, size int64, maxKey int) []byte {
	if !w.attached.on || size == 0 {
		return nil
	}
	key, reg, err := w.comm.Engine().RegisterRemote(base, size)
	if err != nil {
		return nil
	}
	if maxKey > 0 && len(key) > maxKey {
		w.comm.Engine().DeregisterRemote(reg)
		return nil
	}
	a := &w.attached
	a.mu.Lock()
	if *m == nil {
		*m = map[uint64]attachedReg{}
	}
	(*m)[k] = attachedReg{uint64(size), key, reg}
	a.mu.Unlock()
	return key
}

// deregisterIn undoes registerIn.
func (w *window) deregisterIn(m *map[uint64]attachedReg, k uint64) {
	a := &w.attached
	a.mu.Lock()
	r, ok := (*m)[k]
	delete(*m, k)
	a.mu.Unlock()
	if ok {
		w.comm.Engine().DeregisterRemote(r.reg)
	}
}

// deregisterRegions undoes every registerRegion, when the window goes.
func (w *window) deregisterRegions() {
	a := &w.attached
	a.mu.Lock()
	regs, handles := a.regs, a.handles
	a.regs, a.handles = nil, nil
	a.mu.Unlock()
	for _, r := range regs {
		w.comm.Engine().DeregisterRemote(r.reg)
	}
	for _, r := range handles {
		w.comm.Engine().DeregisterRemote(r.reg)
	}
}

// keyAnswer is the target's answer to amKeys for [addr, addr+n) (through memory
// handle mh, when not 0: that handle's region): the table's generation, then the
// registered region holding it and its key; nothing but the generation when no
// registered region holds it.
func (w *window) keyAnswer(addr uint64, n int64, mh uint64) []byte {
	out := make([]byte, 8, 24+64)
	var rbuf [16]region
	rs, gen := w.own.regionsGen(rbuf[:0])
	binary.LittleEndian.PutUint64(out, gen)
	i := regionOf(rs, addr, uint64(n))
	if mh != 0 {
		i = -1
		for j := range rs {
			if rs[j].id == mh && covers(rs[j:j+1], addr, uint64(n)) {
				i = j
			}
		}
	}
	if i < 0 || rs[i].id != mh {
		return out
	}
	a := &w.attached
	a.mu.Lock()
	r, ok := a.regs[rs[i].base]
	if mh != 0 {
		r, ok = a.handles[mh]
	}
	a.mu.Unlock()
	if !ok || r.size != rs[i].size {
		return out
	}
	out = binary.LittleEndian.AppendUint64(out, rs[i].base)
	out = binary.LittleEndian.AppendUint64(out, r.size)
	return append(out, r.key...)
}

// keyCache is an origin's keys of one target's regions, good at generation gen.
type keyCache struct {
	mu   sync.Mutex
	gen  uint64
	keys []keyedRegion
}

type keyedRegion struct {
	base, size uint64
	key        []byte
}

// find is the key of the cached region holding every run, or nil.
func (c *keyCache) find(runs []run) []byte {
	for _, k := range c.keys {
		rs := []region{{base: k.base, size: k.size}}
		all := true
		for _, x := range runs {
			if !covers(rs, x.addr, uint64(x.n)) {
				all = false
				break
			}
		}
		if all {
			return k.key
		}
	}
	return nil
}

// regionKey returns the key to reach runs of dynamic target tg with the transport,
// checked against the target's generation read just now, or nil: active messages.
func (w *window) regionKey(tg *target, runs []run) []byte {
	if tg.stateKey == nil || len(runs) == 0 {
		return nil
	}
	gen, ok := w.readGen(tg)
	if !ok {
		return nil
	}
	c := tg.dyn
	c.mu.Lock()
	if c.gen != gen {
		c.gen, c.keys = gen, nil
	}
	key := c.find(runs)
	c.mu.Unlock()
	if key != nil {
		return key
	}
	k, kgen, ok := w.fetchKey(tg, runs[0], 0)
	if !ok || kgen != gen {
		return nil
	}
	c.mu.Lock()
	if c.gen == gen {
		c.keys = append(c.keys, k)
	}
	key = c.find(runs)
	c.mu.Unlock()
	return key
}

// readGen reads tg's region table generation with the transport; not ok while the
// target is changing its table, or when the read fails.
func (w *window) readGen(tg *target) (uint64, bool) {
	e := w.comm.Engine()
	g := make([]byte, 8)
	if e.StartRemote(false, tg.world, tg.stateKey, tg.stateAddr+offRegionGen, g) != nil || e.FlushRemote(tg.world) != nil {
		return 0, false
	}
	gen := binary.LittleEndian.Uint64(g)
	return gen, gen&1 == 0
}

// handleKey is regionKey for a memory-handle window: the key that came in the handle,
// used while the owner's table stays as it was when the owner confirmed the key.
func (w *Win) handleKey(p path, runs []run) []byte {
	m := w.mh
	gen, ok := w.readGen(p.tg)
	if !ok {
		return nil
	}
	c := m.cache
	c.mu.Lock()
	good := c.gen == gen && c.keys != nil
	c.mu.Unlock()
	if good {
		return m.rkey
	}
	k, kgen, ok := w.fetchKey(p.tg, runs[0], uint64(m.id))
	if !ok || kgen != gen || string(k.key) != string(m.rkey) {
		return nil // released, forged, or changing: active messages, which the owner checks
	}
	c.mu.Lock()
	c.gen, c.keys = gen, []keyedRegion{k}
	c.mu.Unlock()
	return m.rkey
}

// fetchKey asks tg's engine for the registered region holding x (of memory handle mh,
// when not 0).
func (w *window) fetchKey(tg *target, x run, mh uint64) (keyedRegion, uint64, bool) {
	a := &amOp{want: 1}
	id := w.am.add(a)
	if err := w.sendMH(tg, amKeys, id, mh, 0, 0, request([]run{x}, 0, 0)); err != nil {
		w.am.table.remove(id)
		return keyedRegion{}, 0, false
	}
	w.comm.Engine().WaitOn(a.done.Load)
	p := a.raw
	if a.err != 0 || len(p) < 8 {
		return keyedRegion{}, 0, false
	}
	gen := binary.LittleEndian.Uint64(p)
	if len(p) <= 24 {
		return keyedRegion{}, gen, false
	}
	return keyedRegion{binary.LittleEndian.Uint64(p[8:]), binary.LittleEndian.Uint64(p[16:]), append([]byte(nil), p[24:]...)}, gen, true
}

// dynamicPath sets p's key for a dynamic window's (or memory-handle window's) engine
// target, when the transport reaches runs there (not for ordered handles or notifying operations, which stay on
// the ordered channel of active messages).
func (w *Win) dynamicPath(p *path, runs []run, id int) {
	if w.flavor != FlavorDynamic || p.tg.stateKey == nil || w.info.ordered || id >= 0 || len(runs) == 0 {
		return
	}
	if w.mh != nil {
		if w.mh.rkey != nil {
			p.key = w.handleKey(*p, runs)
		}
		return
	}
	p.key = w.regionKey(p.tg, runs)
}
