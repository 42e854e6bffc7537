package rma

// Ordered operations (mpi_win_order=true, [RMA] sec. 2.2): on an ordered handle,
// operations from this process (with thread scope: from the calling thread) to one
// target complete there in the order they were issued, with no flush between them.
//
//   - Operations this process performs itself (loads and stores into mapped memory,
//     process_vm_writev) complete in the call, in program order; x86 keeps stores in
//     order for every observer, and rma/fast.c adds a release fence elsewhere.
//   - Active messages to one target leave on one VCI and arrive in order
//     (FI_ORDER_SAS, which the ofi transport requires, and shm's rings), and the
//     target's engine applies them in arrival order: the channel orders them.
//   - The transport's one-sided writes and reads carry no order with the messages, so
//     an ordered handle sends everything to an engine's target as active messages
//     (Win.viaAM), and an operation that changes path first completes what is still
//     outstanding on the other (orderAM, orderDirect) — the fallback the paper allows
//     where the hardware cannot order.

// orderAM is called before an ordered handle's active message to p's target: the
// transport operations outstanding to it complete first.
func (w *Win) orderAM(p path) error {
	if !w.info.ordered {
		return nil
	}
	rank, sc := w.rankOf(p.tg), w.flushScope(p.by)
	if w.am.pend.has(sc, rank, netKind) {
		return w.flushNet(rank, sc)
	}
	return nil
}

// orderDirect is called before an ordered handle's operation that completes in the
// call: everything outstanding to p's target completes first.
func (w *Win) orderDirect(p path) error {
	if !w.info.ordered || p.tg.how != reachCMA && p.tg.how != reachAM && w.netAcc.types == 0 {
		return nil // mapped and self targets have nothing outstanding, but atomics through the transport
	}
	rank, sc := w.rankOf(p.tg), w.flushScope(p.by)
	if w.am.pend.has(sc, rank, amKind) || w.am.pend.has(sc, rank, netKind) {
		return w.flushTarget(rank, sc)
	}
	return nil
}
