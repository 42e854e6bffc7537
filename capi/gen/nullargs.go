package main

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// Addresses MPI forbids to be NULL, checked as MPICH checks them (its binding
// generator, maint/local_python/binding_c.py): a status (MPI_STATUS_IGNORE is
// (MPI_Status *)1 in MPICH's ABI, so NULL is never "ignore") and, with a positive
// count, the request, status and index arrays of the completion calls give
// MPI_ERR_ARG; a point-to-point buffer that is NULL with a positive count gives
// MPI_ERR_BUFFER unless its datatype's absolute displacements make MPI_BOTTOM valid
// (MPIR_ERRTEST_USERBUFFER; core.CheckUserBuffer). The Go export checks each one;
// the shim sends a call that fails any of them past the C fast path to Go (one
// branch, false on every valid call but a NULL buffer with a derived datatype), so
// that no fast path ever dereferences such an address.

// nullCheck is one address check of a procedure.
type nullCheck struct {
	c     string // C condition over the shim's parameters, true when Go must look
	goIf  string // Go condition, true when the call is in error
	class string // the error class (Go expression)
	msg   string // the message (a Go format)
	arg   string // the message's argument (Go), if any
}

// completionArrays are the procedures whose arrays of requests, statuses and indices
// MPICH checks against NULL when the count is positive.
var completionArrays = regexp.MustCompile(`^MPI_((Wait|Test)(all|any|some)|Startall|Request_get_status_(all|any|some))$`)

// statusConverters take a status in another language's layout: their own rules apply.
var statusConverters = regexp.MustCompile(`_(c2f|f2c|f082c|c2f08|f082f|f2f08)$`)

// isP2P reports whether f is a point-to-point procedure (a peer or a matched message),
// whose buffer MPICH checks wherever the call is made.
func isP2P(f *Proc) bool {
	if strings.HasPrefix(f.Name, "MPI_T_") {
		return false
	}
	for _, p := range f.Params {
		if (strings.HasPrefix(p.Kind, "RANK") && (p.Name == "dest" || p.Name == "source")) || p.Kind == "MESSAGE" {
			return true
		}
	}
	return false
}

// nullChecks lists f's address checks in parameter order.
func nullChecks(f *Proc) []nullCheck {
	var out []nullCheck
	ps := f.CallParams()
	count := ""
	for _, p := range ps {
		if p.Kind == "ARRAY_LENGTH_NNI" && p.Levels() == 0 {
			count = p.Name
			break
		}
	}
	for i, p := range ps {
		switch {
		case p.Kind == "STATUS" && !p.Array && !statusConverters.MatchString(f.Name) && !isTool(f.Name):
			out = append(out, nullCheck{
				c:     p.Name + " == NULL",
				goIf:  goIdentOf(p) + " == nil",
				class: "core.ErrArg",
				msg:   p.Name + " must not be NULL (MPI_STATUS_IGNORE ignores it)",
			})
		case p.Array && count != "" && completionArrays.MatchString(f.Name) &&
			(p.Kind == "REQUEST" || p.Kind == "STATUS" || p.Kind == "INDEX"):
			out = append(out, nullCheck{
				c:     fmt.Sprintf("(%s > 0) & (%s == NULL)", count, p.Name),
				goIf:  fmt.Sprintf("%s > 0 && %s == nil", goIdent(count), goIdentOf(p)),
				class: "core.ErrArg",
				msg:   fmt.Sprintf("%s must not be NULL when %s is positive", p.Name, count),
			})
		case p.Kind == "BUFFER" && i+2 < len(ps) && strings.Contains(ps[i+1].Kind, "NUM_ELEM") &&
			ps[i+2].Kind == "DATATYPE" && isP2P(f):
			n, t := ps[i+1], ps[i+2]
			out = append(out, nullCheck{
				c: fmt.Sprintf("(%s == NULL) & (%s > 0)", p.Name, n.Name),
				goIf: fmt.Sprintf("%s == nil && %s > 0 && core.NullBufferIsError(%sObj)",
					goIdentOf(p), goIdentOf(n), goIdentOf(t)),
				class: "core.ErrBuffer",
				msg:   fmt.Sprintf("%s is NULL with %s %%d", p.Name, n.Name),
				arg:   "int64(" + goIdentOf(n) + ")",
			})
		}
	}
	return out
}

// goIdent is the Go name of the C parameter name.
func goIdent(name string) string { return goIdentOf(Param{Name: name}) }

// shimGuard is the C condition under which the shim skips f's fast path ("" when f
// has no address to check).
func shimGuard(f *Proc) string {
	var cs []string
	for _, c := range nullChecks(f) {
		cs = append(cs, "("+c.c+")")
	}
	return strings.Join(cs, " | ")
}

// emitNullChecks writes f's checks into its Go export; raise renders the statement that
// reports an error.
func emitNullChecks(b *bytes.Buffer, f *Proc, raise func(err string) string) {
	for _, c := range nullChecks(f) {
		err := fmt.Sprintf("core.Errorf(%s, %q)", c.class, c.msg)
		if c.arg != "" {
			err = fmt.Sprintf("core.Errorf(%s, %q, %s)", c.class, c.msg, c.arg)
		}
		fmt.Fprintf(b, "\tif %s {\n\t\t%s\n\t}\n", c.goIf, raise(err))
	}
}

// takesBuffer reports whether f takes a user buffer: its export has a fault in user
// memory panic (catchFaults in capi/errors.go) instead of crashing the process.
func takesBuffer(f *Proc) bool {
	for _, p := range f.Params {
		if strings.Contains(p.Kind, "BUFFER") {
			return true
		}
	}
	return false
}
