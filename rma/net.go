package rma

import (
	"encoding/binary"

	"mpix/core"
)

// Puts and gets through the transport's one-sided access (transport.RemoteMemory:
// ofi's fi_write and fi_read), for targets otherwise reached by active messages
// (reachAM): another node, or every peer under MPIX_SHM=0.
//
// At creation each process whose memory peers reach through their engines registers
// its window memory (created, allocated and shared windows; a dynamic window's state
// page, and its regions at attach: dynnet.go) with its window engine's endpoint, and
// publishes the key:
// its length rides in the card, the bytes go round in a second allgather. An origin
// takes a target's key when the target's window runs on the same VCI (the key belongs
// to that VCI's endpoint) and its engine reaches the target through the endpoint that
// offers the access. The target's memory stays registered until MPI_Win_free, after
// its last barrier, so a key is never used once its registration is gone.
//
// The origin checks the target range first (targetRuns), as for every path; the
// transport checks the access against the key again. Put and get then post one
// operation per run and return: the data moves while the caller goes on, and
// MPI_Win_flush (and every call that completes operations) waits for them. Request
// forms, and gets into non-contiguous origin buffers, wait at once. Locks, flushes of
// active messages and accumulates keep going through the target's engine, except the
// accumulates a window does with the provider's atomics (netatomic.go).

// netRuns bounds the runs an operation may have to go through the transport when its
// runs are short: one message of the active-message path carries them all.
const (
	netRuns   = 8
	netMinRun = 512
)

// register registers this process's window memory for one-sided access and returns
// the key to publish, or nil.
func (w *window) register() []byte {
	base, size := w.base, w.size
	if w.flavor == FlavorDynamic {
		// Its regions are registered as they are attached (dynnet.go); the state page
		// is registered here, for origins to check their keys against its table.
		base, size = w.own.p, stateSize
	}
	if size == 0 || base == nil {
		return nil
	}
	key, reg, err := w.comm.Engine().RegisterRemote(base, size)
	if err != nil {
		return nil // the transport has no one-sided access: active messages
	}
	w.reg = reg
	w.attached.on = w.flavor == FlavorDynamic
	return key
}

// deregister undoes register.
func (w *window) deregister() {
	if w.reg != nil {
		w.comm.Engine().DeregisterRemote(w.reg)
		w.reg = nil
	}
}

// exchangeKeys gathers every rank's key (cards say their lengths; a rank without one
// gets nil). All ranks take part, or none when no rank has a key.
func exchangeKeys(c *core.Comm, cards []int64, mine []byte) ([][]byte, error) {
	keys := make([][]byte, c.Size)
	longest := int64(0)
	for r := 0; r < c.Size; r++ {
		longest = max(longest, cards[r*cardLen+cardKeyLen])
	}
	if longest == 0 {
		return keys, nil
	}
	words := int((longest + 7) / 8)
	buf := make([]byte, words*8)
	copy(buf, mine)
	packed := make([]int64, words)
	for i := range packed {
		packed[i] = int64(binary.LittleEndian.Uint64(buf[8*i:]))
	}
	all, err := allgather(c, packed)
	if err != nil {
		return nil, err
	}
	for r := 0; r < c.Size; r++ {
		n := cards[r*cardLen+cardKeyLen]
		if n <= 0 || n > longest {
			continue
		}
		b := make([]byte, words*8)
		for i := 0; i < words; i++ {
			binary.LittleEndian.PutUint64(b[8*i:], uint64(all[r*words+i]))
		}
		keys[r] = b[:n]
	}
	return keys, nil
}

// viaNet reports whether an operation over runs to p's target goes through the
// transport: the target published a key, and the runs are few or long.
func (w *window) viaNet(p path, runs []run) bool {
	if p.key == nil {
		return false
	}
	return len(runs) <= netRuns || totalLen(runs) >= netMinRun*int64(len(runs))
}

// start posts one transport operation per run, over consecutive pieces of data.
func (w *window) start(p path, write bool, runs []run, data []byte) error {
	return w.startRuns(p, runs, "one-sided operation", func(e *core.Engine, x run, off int64) error {
		return e.StartRemote(write, p.tg.world, p.key, x.addr, data[off:off+x.n])
	})
}

// startRuns posts one transport operation per non-empty run (post gets the run and its
// offset in the operation's data) and counts them as outstanding for flushNet.
func (w *window) startRuns(p path, runs []run, what string, post func(e *core.Engine, x run, off int64) error) error {
	rank := w.rankOf(p.tg)
	defer w.am.pend.mark(p.by, rank, netKind) // after posting, as pending.go says
	e := w.comm.Engine()
	off := int64(0)
	for _, x := range runs {
		if x.n > 0 {
			if err := post(e, x, off); err != nil {
				return core.Errorf(core.ErrOther, "%s to rank %d: %v", what, rank, err)
			}
		}
		off += x.n
	}
	return nil
}

func (w *window) netPut(p path, runs []run, data []byte, wantReq bool) (*core.Request, error) {
	if err := w.start(p, true, runs, data); err != nil {
		return nil, err
	}
	if wantReq {
		if err := w.flushNet(w.rankOf(p.tg), scope{thread: p.by}); err != nil {
			return nil, err
		}
	}
	return w.done(wantReq), nil
}

func (w *window) netGet(p path, runs []run, o Buf, wantReq bool) (*core.Request, error) {
	dst, finish := o.into()
	if err := w.start(p, false, runs, dst); err != nil {
		return nil, err
	}
	if wantReq || !o.Type.Contiguous() {
		if err := w.flushNet(w.rankOf(p.tg), scope{thread: p.by}); err != nil {
			return nil, err
		}
		finish()
	}
	return w.done(wantReq), nil
}

// flushNet completes the transport operations to rank that sc covers. The transport
// completes by peer, not by thread, so this waits for other threads' operations to
// rank too (the path is single-threaded for now: viaNet).
func (w *window) flushNet(rank int, sc scope) error {
	n, all := w.am.pend.due(sc, rank, netKind)
	if n == 0 {
		return nil
	}
	defer w.am.pend.covered(sc, rank, netKind, n, all) // (failed ones too: reported once)
	if err := w.comm.Engine().FlushRemote(w.targets[rank].world); err != nil {
		return core.Errorf(core.ErrOther, "a one-sided operation to rank %d failed: %v", rank, err)
	}
	return nil
}
