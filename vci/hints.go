package vci

import (
	"strconv"
	"strings"
)

// Communicator hints that steer the mapping of point-to-point traffic onto VCIs
// (ICS'20 §2.1 and §5; MPI-4.0 §7.4.4; MPICH's VCI keys).
//
// They take effect where a communicator is made with them: MPI_Comm_dup_with_info,
// MPI_Comm_idup_with_info, MPI_Comm_dup (which copies the parent's hints),
// MPI_Comm_split_type, MPI_Comm_create_from_group and MPIX_Comm_create_endpoints.
// MPI_Comm_set_info records them (MPI_Comm_get_info shows them, and communicators
// duplicated from it inherit them) but does not move a live communicator to other
// VCIs: a message sent before the call travels on the old VCI and would never meet
// a receive posted on the new one, and MPI_Comm_set_info does not synchronize.
//
//   - mpi_assert_no_any_source, mpi_assert_no_any_tag: the receiver will name the
//     source (the tag) in every receive and probe, so both sides know it and a
//     message from communicator rank s with tag t can travel on VCI f(s, t) of a set
//     of VCIs agreed at creation: f uses s, t or both, whichever the hints fix. A
//     stream then carries every message a receive could match, so MPI's order
//     (non-overtaking among messages that match the same receive) still holds.
//     While spreading, a receive or probe with the excluded wildcard fails with
//     MPI_ERR_RANK or MPI_ERR_TAG instead of silently missing messages.
//   - mpi_assert_allow_overtaking alone does not spread: a receive with wildcards is
//     matched by one VCI's queues, so a message sent round-robin on another VCI would
//     never meet it. Matching across VCIs would need the very shared lock VCIs exist
//     to avoid. The hint is accepted and reported.
//   - mpi_assert_new_vci: every communicator already gets a VCI of its own while the
//     pool has one free on all members; accepted and reported.
//   - vci, sender_vci, receiver_vci (MPICH): the communicator uses this VCI (modulo
//     the pool size) if every member asked for the same one and no single-thread
//     communicator owns it anywhere; otherwise the hint is ignored. VCI v of one
//     process talks to VCI v of the others, so the sending and receiving VCIs cannot
//     differ: receiver_vci wins, then vci, then sender_vci. MPI_Comm_get_info reports
//     the VCI in use under the keys given.
//   - mpix_assert_single_thread: one thread at a time uses the communicator and its
//     requests (including MPI_Test/Wait*/Request_get_status* on them). If this
//     process can give it VCIs no other communicator uses, they run without their
//     lock, and global progress by other threads leaves them alone. So the
//     communicator progresses only inside calls on it or its requests: a program
//     that relies on another thread's wait to progress it (the paper's Figure 9)
//     must not use the hint. MPI_Comm_get_info reports "true" only if the hint took
//     effect on this process.
//
// mpix_vcis (output only) is the number of VCIs the communicator's point-to-point
// traffic spreads over.
const (
	HintNoAnySource     = "mpi_assert_no_any_source"
	HintNoAnyTag        = "mpi_assert_no_any_tag"
	HintAllowOvertaking = "mpi_assert_allow_overtaking"
	HintNewVCI          = "mpi_assert_new_vci"
	HintVCI             = "vci"
	HintSenderVCI       = "sender_vci"
	HintReceiverVCI     = "receiver_vci"
	HintSingleThread    = "mpix_assert_single_thread"
	HintNumVCIs         = "mpix_vcis"
)

// What a spread communicator's VCI depends on.
const (
	SpreadSource = 1
	SpreadTag    = 2
)

// Hints are the VCI-related hints of one process for a communicator it creates.
type Hints struct {
	Spread   uint8 // SpreadSource|SpreadTag
	Explicit int   // VCI asked for by vci/sender_vci/receiver_vci; -1 for none
	Single   bool
}

// NoHints is a communicator made without hints.
var NoHints = Hints{Explicit: -1}

// ParseHints reads the hints from an info object's get.
func ParseHints(get func(key string) (string, bool)) Hints {
	h := NoHints
	isTrue := func(key string) bool { // "true" (any case) is true, anything else false
		v, ok := get(key)
		return ok && strings.EqualFold(strings.TrimSpace(v), "true")
	}
	if isTrue(HintNoAnySource) {
		h.Spread |= SpreadSource
	}
	if isTrue(HintNoAnyTag) {
		h.Spread |= SpreadTag
	}
	for _, k := range []string{HintReceiverVCI, HintVCI, HintSenderVCI} {
		// A VCI index: a non-negative integer, or no hint.
		v, ok := get(k)
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 0 {
			h.Explicit = n
			break
		}
	}
	h.Single = isTrue(HintSingleThread)
	return h
}

// Spread is the index, in a set of n VCIs a communicator spreads over (by says how:
// SpreadSource, SpreadTag or both), of the VCI of messages from communicator rank src
// with tag tag. Sender and receiver both know src and tag (the hints exclude the
// wildcards that would hide them), so both compute the same VCI.
func Spread(by uint8, src, tag, n int) int {
	k := 0
	switch by {
	case SpreadSource:
		k = src
	case SpreadTag:
		k = tag
	default:
		k = src + tag
	}
	return int(uint(k) % uint(n))
}
