package verbs

import (
	"fmt"
	"strings"
)

// The reliable-connected queue pair's state machine (InfiniBand spec §10.3,
// ibv_modify_qp(3)), as data: each transition names the attributes ibv_modify_qp must
// be given (its attr_mask). Bringing a new QP up is Reset -> Init -> RTR -> RTS; any
// state may go to Reset or Error.

// QPState is an ibv_qp_state.
type QPState int

const (
	Reset QPState = iota // IBV_QPS_RESET
	Init                 // IBV_QPS_INIT
	RTR                  // IBV_QPS_RTR: ready to receive
	RTS                  // IBV_QPS_RTS: ready to send
	SQD                  // IBV_QPS_SQD: send queue drained
	SQE                  // IBV_QPS_SQE: send queue error
	Error                // IBV_QPS_ERR
)

var stateNames = [...]string{"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"}

func (s QPState) String() string {
	if s < 0 || int(s) >= len(stateNames) {
		return fmt.Sprintf("QPState(%d)", int(s))
	}
	return stateNames[s]
}

// Attr is an ibv_qp_attr_mask bit.
type Attr uint32

const (
	AttrState           Attr = 1 << 0  // IBV_QP_STATE
	AttrCurState        Attr = 1 << 1  // IBV_QP_CUR_STATE
	AttrAccessFlags     Attr = 1 << 3  // IBV_QP_ACCESS_FLAGS
	AttrPKeyIndex       Attr = 1 << 4  // IBV_QP_PKEY_INDEX
	AttrPort            Attr = 1 << 5  // IBV_QP_PORT
	AttrAV              Attr = 1 << 7  // IBV_QP_AV
	AttrPathMTU         Attr = 1 << 8  // IBV_QP_PATH_MTU
	AttrTimeout         Attr = 1 << 9  // IBV_QP_TIMEOUT
	AttrRetryCnt        Attr = 1 << 10 // IBV_QP_RETRY_CNT
	AttrRNRRetry        Attr = 1 << 11 // IBV_QP_RNR_RETRY
	AttrRQPSN           Attr = 1 << 12 // IBV_QP_RQ_PSN
	AttrMaxQPRdAtomic   Attr = 1 << 13 // IBV_QP_MAX_QP_RD_ATOMIC
	AttrMinRNRTimer     Attr = 1 << 15 // IBV_QP_MIN_RNR_TIMER
	AttrSQPSN           Attr = 1 << 16 // IBV_QP_SQ_PSN
	AttrMaxDestRdAtomic Attr = 1 << 17 // IBV_QP_MAX_DEST_RD_ATOMIC
	AttrDestQPN         Attr = 1 << 20 // IBV_QP_DEST_QPN
)

var attrNames = []struct {
	a    Attr
	name string
}{
	{AttrState, "STATE"}, {AttrCurState, "CUR_STATE"}, {AttrAccessFlags, "ACCESS_FLAGS"},
	{AttrPKeyIndex, "PKEY_INDEX"}, {AttrPort, "PORT"}, {AttrAV, "AV"}, {AttrPathMTU, "PATH_MTU"},
	{AttrTimeout, "TIMEOUT"}, {AttrRetryCnt, "RETRY_CNT"}, {AttrRNRRetry, "RNR_RETRY"},
	{AttrRQPSN, "RQ_PSN"}, {AttrMaxQPRdAtomic, "MAX_QP_RD_ATOMIC"}, {AttrMinRNRTimer, "MIN_RNR_TIMER"},
	{AttrSQPSN, "SQ_PSN"}, {AttrMaxDestRdAtomic, "MAX_DEST_RD_ATOMIC"}, {AttrDestQPN, "DEST_QPN"},
}

func (a Attr) String() string {
	var s []string
	for _, n := range attrNames {
		if a&n.a != 0 {
			s = append(s, n.name)
		}
	}
	return strings.Join(s, "|")
}

// Transition is one ibv_modify_qp of an RC QP: from, to, the attributes it must set
// and those it may set as well.
type Transition struct {
	From, To QPState
	Required Attr
	Optional Attr
}

// rcTransitions are the RC transitions mpix uses (IB spec Table 91 / ibv_modify_qp(3)).
var rcTransitions = []Transition{
	{Reset, Init, AttrState | AttrPKeyIndex | AttrPort | AttrAccessFlags, 0},
	{Init, RTR, AttrState | AttrAV | AttrPathMTU | AttrDestQPN | AttrRQPSN | AttrMaxDestRdAtomic | AttrMinRNRTimer,
		AttrAccessFlags | AttrPKeyIndex},
	{RTR, RTS, AttrState | AttrSQPSN | AttrTimeout | AttrRetryCnt | AttrRNRRetry | AttrMaxQPRdAtomic,
		AttrCurState | AttrAccessFlags | AttrMinRNRTimer},
	{RTS, SQD, AttrState, 0},
	{SQD, RTS, AttrState, AttrCurState | AttrAccessFlags | AttrMinRNRTimer},
	{SQE, RTS, AttrState, AttrCurState | AttrAccessFlags},
}

// Lookup returns the transition from -> to of an RC QP. Reset and Error are reachable
// from every state with the state alone.
func Lookup(from, to QPState) (Transition, error) {
	if to == Reset || to == Error {
		return Transition{from, to, AttrState, 0}, nil
	}
	for _, t := range rcTransitions {
		if t.From == from && t.To == to {
			return t, nil
		}
	}
	return Transition{}, fmt.Errorf("verbs: an RC QP cannot go from %s to %s", from, to)
}

// Check reports whether mask is valid for the transition: every required attribute,
// nothing outside required and optional.
func (t Transition) Check(mask Attr) error {
	if miss := t.Required &^ mask; miss != 0 {
		return fmt.Errorf("verbs: %s -> %s needs %s", t.From, t.To, miss)
	}
	if extra := mask &^ (t.Required | t.Optional); extra != 0 {
		return fmt.Errorf("verbs: %s -> %s does not take %s", t.From, t.To, extra)
	}
	return nil
}

// BringUp is the sequence that takes a new RC QP to RTS.
func BringUp() []Transition {
	return []Transition{rcTransitions[0], rcTransitions[1], rcTransitions[2]}
}
