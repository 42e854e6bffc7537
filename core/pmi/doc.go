// Package pmi is how an MPI process talks to its launcher (process
// manager): one Client interface (connect.go) that the runtime boots
// through, whatever the protocol, and a PMI-1 server for launchers.
//
// ConnectAs picks the protocol from the environment, or as MPIX_PMI says:
//
//   - PMIx (srun --mpi=pmix, Open MPI's mpirun): package pmix, which calls
//     libpmix through cgo and registers itself here (RegisterPMIx);
//   - PMI-2 (srun --mpi=pmi2, whose plugin sets PMI_FD and PMI_JOBID; Hydra
//     too on request): v2.go, length-prefixed "cmd=...;" messages;
//   - PMI-1 (mpixexec, Hydra): v1.go, described below.
//
// The PMI-1 client finds its launcher the same way MPICH's "simple PMI"
// does, so an mpix process runs under our own mpixexec and under MPICH's
// Hydra (mpiexec.hydra), which also launches across nodes:
//
//   - PMI_FD: an inherited, already connected socket; PMI_RANK and PMI_SIZE
//     give the rank and the job size.
//   - PMI_PORT=host:port and PMI_ID: the client connects over TCP and learns
//     its rank and size from the launcher (the "initack" handshake below).
//   - neither: the process is a singleton (rank 0 of 1) with an in-process
//     key-value space.
//
// Every client also says which ranks share this process's node
// (LocalRanks): from the launcher's PMI_process_mapping under PMI-1 and
// PMI-2 (mapping.go), from PMIX_LOCAL_PEERS under PMIx.
//
// The server (Server) is the launcher's side: it serves a job of N ranks over
// one connection per rank, keeps the job's key-value space (KVS), implements
// the barrier that publishes it, and reports what the ranks do (init,
// finalize, abort) to its owner.
//
// # Wire protocol
//
// Every message is one line ending in '\n' made of space-separated key=value
// pairs, the first of which is cmd=NAME. Requests and their answers:
//
//	cmd=init pmi_version=1 pmi_subversion=1
//	    cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0
//	cmd=get_maxes
//	    cmd=maxes rc=0 kvsname_max=256 keylen_max=64 vallen_max=1024
//	cmd=get_appnum                       cmd=appnum appnum=0
//	cmd=get_my_kvsname                   cmd=my_kvsname kvsname=NAME
//	cmd=get_universe_size                cmd=universe_size size=N
//	cmd=put kvsname=NAME key=K value=V   cmd=put_result rc=0 msg=success
//	cmd=barrier_in                       cmd=barrier_out
//	cmd=get kvsname=NAME key=K           cmd=get_result rc=0 msg=success value=V
//	                                     (rc=-1 msg=key_K_not_found value=unknown)
//	cmd=abort exitcode=C [message=M]     (no answer; the caller exits)
//	cmd=finalize                         cmd=finalize_ack
//
// In PMI_PORT mode the client first sends "cmd=initack pmiid=ID" and the
// server answers with four lines: "cmd=initack", "cmd=set size=N",
// "cmd=set rank=R" and "cmd=set debug=0".
//
// # Values
//
// The wire cannot carry a space, a newline or (safely) '=' inside a value, so
// the client encodes every value it puts and decodes every value it gets
// with EncodeValue and DecodeValue: bytes outside a safe printable set
// become %XX. Text without special characters passes unchanged, so values
// written by other software (Hydra's PMI_process_mapping, for example) read
// back as they are. An encoded value must fit in the server's vallen_max
// minus one byte (1023 bytes with Hydra); Client.MaxValueLen gives the raw
// length that always fits whatever the content.
//
// # Hydra quirks (mpiexec.hydra 4.0.2, checked by experiment)
//
//   - "maxes" carries no rc, and neither do "appnum", "my_kvsname" and
//     "universe_size"; absent rc means success.
//   - "universe_size" is -1 when no universe size is known (the fork
//     launcher); the client then reports the job size.
//   - A put becomes visible to get only after the next barrier, even to the
//     rank that put it: the proxy holds puts until barrier_in. Our server
//     and the singleton client keep the same rule, so code that forgets the
//     fence fails everywhere, not only under Hydra.
//   - A value longer than vallen_max-1 (1023) bytes is cut silently, and a
//     key of keylen_max (64) bytes or more is not found; the client refuses
//     such puts instead.
//   - Hydra's proxy answers a get from its cache without checking the KVS
//     name; our server answers rc=-1 for a wrong name.
//   - An unknown command makes Hydra kill the whole job.
//   - Hydra also answers PMI-2 when the first line asks for version 2, but
//     its kvs-fence is no barrier (it answers at once; a kvs-get waits for
//     its key), and it does not know PMI-2's abort (it ends the job with
//     status 255 instead). The PMI-2 client makes Fence a barrier itself.
//   - In PMI_PORT mode (mpiexec.hydra -pmi-port) Hydra sets only PMI_PORT,
//     whose host is the node's host name, and PMI_ID, not PMI_RANK or
//     PMI_SIZE.
//   - Hydra takes the exit code from "abort" and prints no message of its
//     own; MPICH 4.0 sends only exitcode, newer MPICH adds message=.
//   - Hydra predefines the key PMI_process_mapping, e.g. "(vector,(0,1,1))"
//     for two ranks started by the fork launcher on a host it counts as one
//     core (the block list wraps around); our server predefines it as
//     "(vector,(0,1,N))": N ranks on one node.
package pmi
