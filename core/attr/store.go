package attr

import (
	"cmp"
	"mpix/core/mpierr"
	"slices"
	"sync"
	"sync/atomic"
)

// Store is the attributes cached on one object. The zero value is an empty store; an
// object that never gets an attribute pays one pointer for it, and a query on it one
// atomic load.
//
// Callbacks run outside the lock. While an attribute's delete callback runs, the
// attribute is still there with its old value (the callback may read it), and other
// attempts to delete or replace it do nothing or fail rather than run the callback
// twice.
type Store struct {
	p atomic.Pointer[list]
}

type list struct {
	mu    sync.Mutex
	attrs []*entry // in the order they were first set
}

type entry struct {
	kv   *Keyval
	val  uintptr
	busy bool // a delete callback for this attribute is running
}

func (s *Store) list(create bool) *list {
	l := s.p.Load()
	if l == nil && create {
		s.p.CompareAndSwap(nil, new(list))
		l = s.p.Load()
	}
	return l
}

func (l *list) find(kv *Keyval) *entry {
	for _, e := range l.attrs {
		if e.kv == kv {
			return e
		}
	}
	return nil
}

func (l *list) remove(e *entry) {
	if i := slices.Index(l.attrs, e); i >= 0 {
		l.attrs = slices.Delete(l.attrs, i, i+1)
	}
}

// Len is the number of attributes in the store.
func (s *Store) Len() int {
	l := s.list(false)
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.attrs)
}

// Get returns the value of kv's attribute and whether it is set.
func (s *Store) Get(kv *Keyval) (uintptr, bool) {
	l := s.list(false)
	if l == nil {
		return 0, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.find(kv); e != nil {
		return e.val, true
	}
	return 0, false
}

// Set sets kv's attribute to val on the object whose handle is obj. A value already
// set is first given to kv's delete callback; if that fails, the old value stays and
// Set returns the callback's error.
func (s *Store) Set(kv *Keyval, obj int32, val uintptr) error {
	if kv.Predefined() {
		return errorf(mpierr.ErrKeyval, "predefined attribute %s cannot be set", kv)
	}
	l := s.list(true)
	l.mu.Lock()
	e := l.find(kv)
	switch {
	case e == nil:
		defer l.mu.Unlock()
		if !kv.tryRef() {
			return errorf(mpierr.ErrKeyval, "%s was freed", kv)
		}
		l.attrs = append(l.attrs, &entry{kv: kv, val: val})
		return nil
	case e.busy:
		l.mu.Unlock()
		return errorf(mpierr.ErrOther, "the attribute of %s is being deleted by another call", kv)
	case kv.del == nil:
		e.val = val
		l.mu.Unlock()
		return nil
	}
	e.busy = true
	old := e.val
	l.mu.Unlock()
	err := kv.del(kv, obj, old)
	l.mu.Lock()
	e.busy = false
	if err == nil {
		e.val = val
	}
	l.mu.Unlock()
	return err
}

// Delete removes kv's attribute from the object whose handle is obj, after its delete
// callback succeeds. Deleting an attribute that is not set does nothing.
func (s *Store) Delete(kv *Keyval, obj int32) error {
	if kv.Predefined() {
		return errorf(mpierr.ErrKeyval, "predefined attribute %s cannot be deleted", kv)
	}
	l := s.list(false)
	if l == nil {
		return nil
	}
	l.mu.Lock()
	e := l.find(kv)
	if e == nil || e.busy { // busy: a delete already under way (perhaps our caller's)
		l.mu.Unlock()
		return nil
	}
	e.busy = true
	l.mu.Unlock()
	return l.drop(e, obj)
}

// drop runs the delete callback of e, which the caller marked busy, and removes e if
// the callback succeeds.
func (l *list) drop(e *entry, obj int32) error {
	var err error
	if e.kv.del != nil {
		err = e.kv.del(e.kv, obj, e.val) // e.val cannot change while e is busy
	}
	l.mu.Lock()
	e.busy = false
	if err == nil {
		l.remove(e)
	}
	l.mu.Unlock()
	if err == nil {
		e.kv.release()
	}
	return err
}

// DeleteAll deletes every attribute of the object whose handle is obj, the most
// recently set first, as when the object is freed. It stops at the first delete
// callback that fails and returns its error; the attributes not yet deleted stay.
func (s *Store) DeleteAll(obj int32) error {
	l := s.list(false)
	if l == nil {
		return nil
	}
	for {
		l.mu.Lock()
		var e *entry
		for i := len(l.attrs) - 1; i >= 0; i-- {
			if !l.attrs[i].busy {
				e = l.attrs[i]
				break
			}
		}
		if e == nil {
			n := len(l.attrs)
			l.mu.Unlock()
			if n > 0 {
				return errorf(mpierr.ErrOther, "%d attributes are being deleted by another call", n)
			}
			return nil
		}
		e.busy = true
		l.mu.Unlock()
		if err := l.drop(e, obj); err != nil {
			return err
		}
	}
}

// CopyTo gives dst the attributes that the copy callbacks keep when the object obj is
// duplicated as newObj, calling them in the order their keyvals were created. If a
// callback fails, the attributes already copied are deleted again from dst (their
// delete callbacks run on newObj) and CopyTo returns the callback's error.
func (s *Store) CopyTo(dst *Store, obj, newObj int32) error {
	l := s.list(false)
	if l == nil {
		return nil
	}
	type pair struct {
		kv  *Keyval
		val uintptr
	}
	l.mu.Lock()
	snap := make([]pair, 0, len(l.attrs))
	for _, e := range l.attrs {
		if e.kv.copy != nil && e.kv.tryRef() { // the reference keeps kv alive through the callback
			snap = append(snap, pair{e.kv, e.val})
		}
	}
	l.mu.Unlock()
	slices.SortFunc(snap, func(a, b pair) int { return cmp.Compare(a.kv.serial, b.kv.serial) })
	for i, p := range snap {
		out, keep, err := p.kv.copy(p.kv, obj, p.val)
		if err != nil {
			for _, q := range snap[i:] {
				q.kv.release()
			}
			_ = dst.DeleteAll(newObj) // the copy failed; the first error is the one to report
			return err
		}
		if keep {
			dst.add(p.kv, out) // hands over the reference
		} else {
			p.kv.release()
		}
	}
	return nil
}

// add stores a copied attribute, taking over the caller's reference on kv.
func (s *Store) add(kv *Keyval, val uintptr) {
	l := s.list(true)
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.find(kv); e != nil {
		e.val = val
		kv.release()
		return
	}
	l.attrs = append(l.attrs, &entry{kv: kv, val: val})
}
