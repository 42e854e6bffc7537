package core

import (
	"runtime"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// liteFixture plays shm/lite.c's part: a lite state on the receiving engine of a
// two-rank world, with receives "posted in C" by post.
type liteFixture struct {
	cs   []*Comm
	l    *liteState
	bufs [][]byte
}

func newLiteFixture(t *testing.T) *liteFixture {
	cs := world(2, 64, 64, false)
	cs[1].Handle = comms.Add(cs[1])
	f := &liteFixture{cs: cs, l: new(liteState)}
	e := cs[1].eng
	e.Shared().Lite = unsafe.Pointer(f.l)
	saved := engines
	engines = []*Engine{e} // lite handles name the VCI by index (its Index, 0)
	t.Cleanup(func() {
		engines = saved
		e.Shared().Lite = nil
		comms.Remove(cs[1].Handle)
		runtime.KeepAlive(f)
	})
	return f
}

// post appends a receive to the C list as mpix_lite_Irecv does, and returns its handle.
func (f *liteFixture) post(source, tag int, size int) int32 {
	l := f.l
	slot := l.Used
	l.Used++
	buf := make([]byte, size)
	f.bufs = append(f.bufs, buf)
	q := &l.Req[slot]
	*q = liteReq{Ctx: f.cs[1].ContextID, Source: int32(source), SrcWorld: int32(source), Tag: int32(tag),
		Count: int32(size), Comm: f.cs[1].Handle, Dtype: 0x4c00010d, Buf: ptr(buf), Capacity: int64(size)}
	if l.PostedTail != 0 {
		l.Req[l.PostedTail-1].Next = slot + 1
	} else {
		l.PostedHead = slot + 1
	}
	l.PostedTail = slot + 1
	atomic.StoreUint32(&q.State, litePosted)
	return int32(liteTag | slot)
}

func TestLiteAbsorbKeepsPostingOrder(t *testing.T) {
	bt := testByteType(t)
	tests := []struct {
		name  string
		tags  []int // the C receives' tags, in posting order
		goTag int   // a receive posted in Go after them (source MPI_ANY_SOURCE)
		sends []int // tags of the messages rank 0 sends, payload = index
		want  []int // message index each receive gets: C ones in order, then Go's
	}{
		{"C first, then Go", []int{5, AnyTag}, 5, []int{5, 5, 5}, []int{0, 1, 2}},
		{"a later C receive matches first by tag", []int{6, 5}, AnyTag, []int{5, 6, 7}, []int{1, 0, 2}},
		{"Go's wildcard waits behind C", []int{AnyTag}, AnyTag, []int{9, 8}, []int{0, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newLiteFixture(t)
			var hs []int32
			for _, tag := range tc.tags {
				hs = append(hs, f.post(0, tag, 1))
			}
			goBuf := make([]byte, 1)
			goReq, err := Irecv(ptr(goBuf), 1, bt, AnySource, tc.goTag, f.cs[1])
			require.NoError(t, err)
			for i, tag := range tc.sends {
				require.NoError(t, Send(ptr([]byte{byte(i)}), 1, bt, 1, tag, f.cs[0], ModeStandard))
			}
			waitBoth(f.cs, goReq)
			for i, h := range hs {
				r, err := LookupRequest(h)
				require.NoError(t, err)
				require.True(t, r.Done(), "C receive %d", i)
				require.Equal(t, byte(tc.want[i]), f.bufs[i][0], "C receive %d", i)
				require.Equal(t, uint32(liteGo), f.l.Req[i].State)
				st := Wait(r)
				require.Equal(t, tc.sends[tc.want[i]], st.Tag)
				Recycle(r)
				require.Equal(t, uint32(liteFree), f.l.Req[i].State, "slot %d back to C", i)
			}
			require.Equal(t, byte(tc.want[len(hs)]), goBuf[0])
			require.Zero(t, f.l.PostedHead)
			// Every slot is on the returned stack for C to reuse.
			n := 0
			for s := atomic.LoadUint32(&f.l.Returned); s != 0; s = f.l.Req[s-1].Next {
				n++
			}
			require.Equal(t, len(hs), n)
		})
	}
}

func TestLiteLookup(t *testing.T) {
	f := newLiteFixture(t)
	// Completed in C: Go reports the status C wrote, and the slot goes back.
	h := f.post(0, 3, 4)
	q := &f.l.Req[0]
	f.l.PostedHead, f.l.PostedTail = 0, 0 // C's send took it off the list
	q.StBytes, q.StTag = 4, 3
	atomic.StoreUint32(&q.State, liteDone)
	r, err := LookupRequest(h)
	require.NoError(t, err)
	again, err := LookupRequest(h) // forwarded: the same request, no second conversion
	require.NoError(t, err)
	require.Same(t, r, again)
	ok, st := Test(r)
	require.True(t, ok)
	require.Equal(t, Status{Source: 0, Tag: 3, Bytes: 4}, st)
	require.Equal(t, uint32(liteFree), q.State)

	// A freed slot, a slot out of range and an unknown VCI are invalid handles.
	for _, bad := range []int32{h, int32(liteTag | liteSlots), int32(liteTag | 5<<12)} {
		_, err := LookupRequest(bad)
		require.Error(t, err, "handle 0x%x", uint32(bad))
	}

	// A receive whose communicator is gone completes with MPI_ERR_COMM and is not
	// posted in Go.
	h = f.post(0, 1, 1)
	f.l.Req[f.l.Used-1].Comm = 0x44000123
	r, err = LookupRequest(h)
	require.NoError(t, err)
	require.True(t, r.Done())
	require.Equal(t, ErrComm, r.status.Error)
	require.Empty(t, f.cs[1].eng.posted)
}
