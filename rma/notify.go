package rma

import (
	"strconv"
	"strings"

	"mpix/core"
)

// Completion notification at the target ([RMA] sec. 5.1, with the names of the
// notified-RMA work it cites): a window from MPIX_Win_create_notify or
// MPIX_Win_allocate_notify has notification ids; MPIX_Put_notify and MPIX_Get_notify
// add an arrival to an id at the target once their data is in (or has been read
// from) its memory, and the target consumes arrivals with MPIX_Win_test_notify,
// MPIX_Win_wait_notify, or an ordinary request from MPIX_Win_iwait_notify, as the
// paper asks, which MPI_Wait and its family complete with any other requests.
//
// Arrivals are counters in the target's state page, one per id. An origin that
// reaches the target's memory itself does the operation and then increments the
// counter (a locked instruction: the data is visible before the count). Other origins
// send the operation as active messages and then amNotify, which the target's engine
// applies after it (messages on one VCI arrive in order). consumed counts what this
// process took, so test and wait are a compare-and-swap, and any thread may take.

// defaultNotifyIDs is mpix_win_notify_ids when the info does not say.
const defaultNotifyIDs = 64

// notifyIDs reads mpix_win_notify_ids (1..maxNotifyIDs).
func notifyIDs(in *core.Info) int {
	if in != nil {
		if v, ok, _ := in.Get("mpix_win_notify_ids"); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 1 && n <= maxNotifyIDs {
				return n
			}
		}
	}
	return defaultNotifyIDs
}

// checkNotify checks that the handle's window has notification id.
func (w *Win) checkNotify(id int, what string) error {
	if w.notifyIDs == 0 || w.mh != nil {
		return core.Errorf(core.ErrRMAFlavor, "%s needs a window from MPIX_Win_create_notify or MPIX_Win_allocate_notify", what)
	}
	if id < 0 || id >= w.notifyIDs {
		return core.Errorf(core.ErrArg, "%s: notification id %d is outside [0, %d) (mpix_win_notify_ids)", what, id, w.notifyIDs)
	}
	return nil
}

// arrive adds an arrival for id at p's target after an operation this process did
// itself (direct) or sent as active messages.
func (w *Win) arrive(p path, id int, direct bool) error {
	if direct && p.tg.st.p != nil {
		p.tg.st.notifyCounter(id).Add(1)
		return nil
	}
	err := w.send(p.tg, amNotify, 0, int64(id), 0, nil)
	w.am.pend.mark(p.by, w.rankOf(p.tg), amKind) // a flush reports a bad id
	return err
}

// PutNotify is MPIX_Put_notify.
func (w *Win) PutNotify(o Buf, t Target, id int) error {
	if err := w.checkNotify(id, "MPIX_Put_notify"); err != nil {
		return err
	}
	_, err := w.put(o, t, NoReq, id)
	return err
}

// GetNotify is MPIX_Get_notify.
func (w *Win) GetNotify(o Buf, t Target, id int) error {
	if err := w.checkNotify(id, "MPIX_Get_notify"); err != nil {
		return err
	}
	_, err := w.get(o, t, NoReq, id)
	return err
}

// take consumes one arrival of id, if there is one.
func (w *Win) take(id int) bool {
	arrived, c := w.own.notifyCounter(id), &w.consumed[id]
	for {
		n := c.Load()
		if int32(arrived.Load()-n) <= 0 {
			return false
		}
		if c.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// TestNotify is MPIX_Win_test_notify: one round of progress, then an arrival if one
// is there.
func (w *Win) TestNotify(id int) (bool, error) {
	if err := w.checkNotify(id, "MPIX_Win_test_notify"); err != nil {
		return false, err
	}
	if w.take(id) {
		return true, nil
	}
	core.Progress()
	return w.take(id), nil
}

// WaitNotify is MPIX_Win_wait_notify.
func (w *Win) WaitNotify(id int) error {
	if err := w.checkNotify(id, "MPIX_Win_wait_notify"); err != nil {
		return err
	}
	w.comm.Engine().WaitOn(func() bool { return w.take(id) })
	return nil
}

// IwaitNotify is MPIX_Win_iwait_notify: a request that completes once it has consumed
// an arrival of id.
func (w *Win) IwaitNotify(id int) (*core.Request, error) {
	if err := w.checkNotify(id, "MPIX_Win_iwait_notify"); err != nil {
		return nil, err
	}
	r := core.NewOpRequest(w.comm.Engine())
	if w.take(id) {
		r.Finish(0)
		return r, nil
	}
	w.iwaits.Add(1) // MPI_Win_free refuses while the watch reads the state page
	core.Watch(func() bool {
		if !w.take(id) {
			return false
		}
		w.iwaits.Add(-1)
		r.Finish(0)
		return true
	})
	return r, nil
}
