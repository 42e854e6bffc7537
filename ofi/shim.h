//go:build cgo && !mpix_noofi

// The C half of package ofi: every libfabric call goes through the small functions
// declared here, so that the Go side makes one cgo call per Send and a couple per Poll
// and never hands a Go pointer to libfabric for asynchronous use. All buffers that
// libfabric reads or writes after a call returns live in C memory owned by mpix_ofi.

#ifndef MPIX_OFI_SHIM_H
#define MPIX_OFI_SHIM_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_atomic.h>

// The libfabric API version mpix is written against.
#define MPIX_OFI_API_VERSION FI_VERSION(1, 14)

// Completions read from a CQ per call.
#define MPIX_OFI_BATCH 64

// RMA operations in flight per endpoint (fi_write and fi_read), beside the sends.
#define MPIX_OFI_RMA_OPS 64

// What a posted operation is; completions on the transmit CQ are told apart by it.
enum { MPIX_OFI_OP_SEND = 0, MPIX_OFI_OP_RECV = 1, MPIX_OFI_OP_RMA = 2 };

struct mpix_ofi;

// One posted operation (a send from a bounce buffer, a pre-posted receive, or an RMA
// operation). Its address is the operation context; the fi_context2 must come first,
// since providers that ask for FI_CONTEXT or FI_CONTEXT2 use the memory it points to.
typedef struct mpix_ofi_op {
	struct fi_context2 ctx;
	int32_t index; // buffer index in its pool (RMA: slot in the RMA pool)
	int32_t kind;  // MPIX_OFI_OP_*
	uint64_t seq;  // receive buffers: position in posting order
	struct mpix_ofi *owner; // the endpoint that posted it (a shared CQ routes by it)
} mpix_ofi_op;

// Completion queues that the endpoints of several VCIs share (MPIX_EP_SHARING=static):
// whoever polls reads them under mu and files each completion in the inbox of the
// endpoint whose operation it is; each endpoint then settles its own.
typedef struct mpix_ofi_scq {
	struct fid_cq *txcq, *rxcq;
	pthread_mutex_t mu;
	int32_t refs;
} mpix_ofi_scq;

// A completion read from a shared CQ, waiting in its endpoint's inbox.
typedef struct mpix_ofi_ent {
	mpix_ofi_op *op;
	size_t len;
	int32_t err;  // 0, or the FI_* code of an error completion
	int32_t recv; // from the receive CQ
	char text[192];
} mpix_ofi_ent;

// An RMA operation in flight: its peer, whose pending count its completion lowers, and
// the registrations of its local buffers when the provider wants them (FI_MR_LOCAL): one
// for a write or read; an atomic's operand, result and comparand.
typedef struct mpix_ofi_rmaop {
	mpix_ofi_op op; // first: its address is the context
	int32_t peer;
	int32_t busy;
	struct fid_mr *lmr[3];
} mpix_ofi_rmaop;

// A fabric and domain, an endpoint's own or shared by the endpoints of several VCIs
// (MPIX_EP_SHARING): the last endpoint to close closes them. next_key numbers the
// registrations whose keys mpix picks, unique in the domain.
typedef struct mpix_ofi_dom {
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	int32_t refs;
	uint64_t next_key;
} mpix_ofi_dom;

// A shared transmit context (fi_stx_context) and the number of endpoints bound to it.
typedef struct mpix_ofi_stx {
	struct fid_stx *stx;
	int32_t refs;
} mpix_ofi_stx;

// getinfo's flag for a thread-safe domain (beside RMA 1 and atomics 2).
#define MPIX_OFI_THREAD_SAFE 4

typedef struct mpix_ofi {
	struct fi_info *info;
	mpix_ofi_dom *dom;
	mpix_ofi_stx *stx;
	// Shared CQs (set before mpix_ofi_open; NULL: the endpoint's own), and this
	// endpoint's inbox of completions read from them (capacity: every operation it
	// can have outstanding, each completing once); closing: drop what arrives for it.
	mpix_ofi_scq *scq;
	mpix_ofi_ent *inbox;
	int32_t ninbox, capinbox;
	int32_t closing;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_cq *txcq;
	struct fid_cq *rxcq;
	struct fid_av *av;
	struct fid_ep *ep;
	struct fid_mr *txmr;
	struct fid_mr *rxmr;
	void *txdesc; // local descriptors, NULL unless the provider wants FI_MR_LOCAL
	void *rxdesc;

	size_t bufsize;      // bytes per send or receive buffer
	int32_t ntx, nrx;    // buffers in each pool
	char *txmem;         // ntx * bufsize bytes of send bounce buffers
	char *rxmem;         // nrx * bufsize bytes of receive buffers
	char *injbuf;        // inject_size bytes: staging for fi_inject
	mpix_ofi_op *txops;  // one per send buffer
	mpix_ofi_op *rxops;  // one per receive buffer

	fi_addr_t *addrs;    // world rank -> fi_addr_t, after mpix_ofi_av_insert
	int32_t naddrs;

	// RMA (fi_write, fi_read), when the provider granted FI_RMA with remote read and
	// write: rma is 1, and the pool, the per-peer counts and errors exist.
	int32_t rma;
	int32_t atomic; // the provider also granted FI_ATOMIC (fi_atomic, fi_fetch_atomic, fi_compare_atomic)
	mpix_ofi_rmaop *rmaops;    // MPIX_OFI_RMA_OPS
	int32_t *rmafree;        // free slots (a stack)
	int32_t nrmafree;
	int32_t *rma_pending;    // per world rank: operations in flight
	int32_t *rma_err;        // per world rank: first error since last collected (FI_* code)
	int32_t rma_inflight;    // all peers
	char rma_errtext[256];   // the first RMA error's text not yet collected
	// Writes with remote CQ data (fi_writedata): how many bytes of data the provider
	// carries (0: none), and the data of the writes that landed here, collected by the
	// last mpix_ofi_poll (nimm of them).
	int32_t cq_data_size;
	int32_t nimm;
	uint64_t imm[MPIX_OFI_BATCH];

	int32_t *unposted;   // receive buffers waiting to be (re)posted
	int32_t nunposted;

	// Receive completions are handed out in the order the buffers were posted, which
	// is the order the provider matched messages to them (FI_ORDER_SAS keeps each
	// sender's messages in order on the way in). Completion order itself is not
	// guaranteed: tcp;ofi_rxm completes a small message that arrived after a large one
	// (rendezvous) first. Slot seq % nrx of the ring holds buffer seq's completion
	// until every earlier-posted buffer has been handed out.
	uint64_t post_seq;   // next posting position
	uint64_t next_seq;   // next position to hand out
	int32_t *ring_idx;   // buffer index, or -1: not completed yet
	uint32_t *ring_len;  // message length
	uint8_t *ring_skip;  // 1: completed in error, nothing to deliver

	// Results of the last mpix_ofi_poll / mpix_ofi_progress_tx.
	int32_t rx_idx[MPIX_OFI_BATCH];
	uint32_t rx_len[MPIX_OFI_BATCH];
	int32_t tx_idx[MPIX_OFI_BATCH];
	int32_t ntxdone;

	// The first error completion not yet collected by Go (err == 0: none).
	int err;
	int err_recv;
	char errtext[256];
	const char *close_where; // the fi_close that failed in mpix_ofi_close

	struct fi_cq_data_entry cqe[MPIX_OFI_BATCH];
} mpix_ofi;

int mpix_ofi_getinfo(const char *prov, int rma, struct fi_info **out);

// libfabric is loaded with dlopen on first use, not linked: loading it pulls in
// provider libraries (psm, infinipath) whose constructors take ~0.2 s, which jobs that
// only use shared memory should not pay. mpix_ofi_getinfo loads it and returns
// MPIX_OFI_ENOLIB when it cannot; the Go side reaches the library's exported
// functions only through these wrappers.
#define MPIX_OFI_ENOLIB (-100000)
const char *mpix_ofi_strerror(int code);
void mpix_ofi_freeinfo(struct fi_info *info);
struct fi_info *mpix_ofi_dupinfo(const struct fi_info *info);
int mpix_ofi_open(mpix_ofi *s, struct fi_info *info, size_t bufsize, int32_t ntx, int32_t nrx,
		  int32_t naddrs, mpix_ofi_dom *dom, mpix_ofi_stx *stx, const char **where);
uint64_t mpix_ofi_next_key(mpix_ofi *s);
int mpix_ofi_dom_open(struct fi_info *info, mpix_ofi_dom **out);
int mpix_ofi_dom_close(mpix_ofi_dom *dom);
int mpix_ofi_stx_open(mpix_ofi_dom *dom, struct fi_info *info, mpix_ofi_stx *stx);
extern int64_t mpix_ofi_mrs;
int mpix_ofi_stx_close(mpix_ofi_stx *stx);
int mpix_ofi_scq_open(mpix_ofi_dom *dom, size_t txsize, size_t rxsize, mpix_ofi_scq **out);
int mpix_ofi_scq_close(mpix_ofi_scq *q);
int mpix_ofi_close(mpix_ofi *s);
int mpix_ofi_getname(mpix_ofi *s, void *buf, size_t *len);
int mpix_ofi_av_insert(mpix_ofi *s, int32_t rank, const void *addr);
ssize_t mpix_ofi_inject(mpix_ofi *s, int32_t dst, size_t len);
ssize_t mpix_ofi_send(mpix_ofi *s, int32_t dst, int32_t idx, size_t len);
int mpix_ofi_progress_tx(mpix_ofi *s);
int mpix_ofi_poll(mpix_ofi *s);
int mpix_ofi_repost(mpix_ofi *s, int32_t n);

// RMA: registration of memory peers may read and write, raw keys, and the operations.
int mpix_ofi_mr_reg(mpix_ofi *s, void *buf, size_t len, struct fid_mr **mr, uint64_t *key,
		    uint8_t *raw, size_t *rawlen, uint64_t *rawbase);
int mpix_ofi_mr_close(struct fid_mr *mr);
int mpix_ofi_map_raw(mpix_ofi *s, uint64_t base, uint8_t *raw, size_t len, uint64_t *key);
int mpix_ofi_unmap_key(mpix_ofi *s, uint64_t key);
ssize_t mpix_ofi_rma(mpix_ofi *s, int write, int32_t peer, void *buf, size_t len, uint64_t raddr,
		     uint64_t key, int with_data, uint64_t data);

// Atomics (FI_ATOMIC): kind says which family, as the MPIX_OFI_ATOMIC_* below.
enum { MPIX_OFI_ATOMIC_WRITE = 0, MPIX_OFI_ATOMIC_FETCH = 1, MPIX_OFI_ATOMIC_COMPARE = 2 };
size_t mpix_ofi_atomic_valid(mpix_ofi *s, int kind, int dt, int op);
ssize_t mpix_ofi_atomic(mpix_ofi *s, int kind, int32_t peer, const void *buf, const void *compare, void *result,
			size_t count, int dt, int op, uint64_t raddr, uint64_t key);

#endif
