package part

import (
	"runtime"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// The δ timer of the timer strategy ([PA] §IV-D). The paper's first thread of a group
// sleeps through δ and then sends what is ready. mpix does not put a user thread to
// sleep (with fewer threads than partitions it would hold back its own next
// partitions: a round of 4 partitions on 2 threads took δ longer): the first
// MPI_Pready arms the group's deadline and returns, and one timer thread per process
// fires the groups whose δ has run out. Go's timers wake about a millisecond late when
// the process is idle, so the thread sleeps with nanosleep, which keeps δ's
// microseconds. Later MPI_Pready calls, waits and tests of the request check the
// deadlines too. The thread also polls for the receiver's clear-to-send while
// partitions wait for it, so they leave when it comes, not when the user's threads next
// enter MPI.
var timer struct {
	mu      sync.Mutex
	reqs    map[*sendReq]struct{}
	wake    chan struct{}
	started bool
}

// watchDeadlines hands s, which has armed a group, to the timer thread.
func watchDeadlines(s *sendReq) {
	timer.mu.Lock()
	if !timer.started {
		timer.started = true
		timer.reqs = map[*sendReq]struct{}{}
		timer.wake = make(chan struct{}, 1)
		go runTimer()
	}
	timer.reqs[s] = struct{}{}
	timer.mu.Unlock()
	select {
	case timer.wake <- struct{}{}:
	default:
	}
}

// runTimer is the timer thread: it sleeps until the earliest armed deadline and fires
// what has run out; with nothing armed it waits for watchDeadlines.
func runTimer() {
	runtime.LockOSThread()
	for {
		timer.mu.Lock()
		next := int64(0)
		var reqs []*sendReq
		for s := range timer.reqs {
			d := s.earliest()
			if d == 0 {
				delete(timer.reqs, s)
				continue
			}
			reqs = append(reqs, s)
			if next == 0 || d < next {
				next = d
			}
		}
		timer.mu.Unlock()
		if next == 0 {
			<-timer.wake
			continue
		}
		if wait := next - time.Now().UnixNano(); wait > 0 {
			wait = min(wait, int64(time.Millisecond)) // a deadline armed meanwhile may be earlier
			ts := unix.NsecToTimespec(wait)
			unix.Nanosleep(&ts, nil)
		}
		for _, s := range reqs {
			s.expire(s.round.Load(), nil)
			if s.npend.Load() > 0 {
				s.eng.TryProgress() // the receiver's clear-to-send: its handler sends the queue
				s.drain()
			}
		}
	}
}

// queuedPoll is how often the timer thread polls for the receiver's clear-to-send
// while runs wait for it.
const queuedPoll = 20 * time.Microsecond

// earliest is when s next needs the timer thread (Unix ns), 0 if never: the earliest
// armed deadline of its current round, or soon while runs wait in its queue.
func (s *sendReq) earliest() int64 {
	e := int64(0)
	if s.npend.Load() > 0 {
		e = time.Now().Add(queuedPoll).UnixNano()
	}
	if s.armed.Load() == 0 {
		return e
	}
	for g := range s.deadline {
		if d := s.deadline[g].Load(); d != 0 && (e == 0 || d < e) {
			e = d
		}
	}
	return e
}
