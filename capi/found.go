package main

import (
	"strings"

	"mpix/core/cvar"
	"mpix/ofi"
	"mpix/transport"
)

// What this mpix finds on the machine, as read-only MPI_T control variables
// (core/cvar's NewInfo): mpixinfo prints them, and any MPI_T tool can read them.
// They are registered here, above the transports, since the transports do not import
// core; each is computed on its first read, never at MPI_Init.
var (
	_ = cvar.NewInfo("mpix_transports",
		"the transports this library was built with, node-local first (shared memory reaches the processes of a node, libfabric every process, verbs every process under MPIX_NETMOD=verbs)",
		func() string {
			var names []string
			for _, f := range transport.Fabrics() {
				names = append(names, f.Name())
			}
			return strings.Join(names, ", ")
		})
	_ = cvar.NewInfo("mpix_ofi_providers",
		"the libfabric providers on this machine that offer what mpix needs (reliable datagrams, ordered messages); none: libfabric carries no messages here",
		func() string {
			names, err := ofi.Available()
			return listOrNone(names, err)
		})
	_ = cvar.NewInfo("mpix_verbs_devices",
		"the RDMA devices libibverbs finds on this machine, which libfabric's verbs provider can use",
		func() string {
			names, err := ofi.VerbsDevices()
			return listOrNone(names, err)
		})
)

// listOrNone is names separated by spaces, or "none" with the reason if there is one.
func listOrNone(names []string, err error) string {
	switch {
	case err != nil:
		return "none (" + err.Error() + ")"
	case len(names) == 0:
		return "none"
	}
	return strings.Join(names, " ")
}
