//go:build cgo && !mpix_noverbs

// The C half of package verbs: libibverbs (rdma-core) loaded with dlopen, so that mpix
// starts fast and runs where it is not installed. Every exported libibverbs function
// is reached through the table in verbs.c; the inline ones of <infiniband/verbs.h>
// (thread and parent domains, posting, polling) go through the context's operations
// and need no symbol.

#ifndef MPIX_VERBS_H
#define MPIX_VERBS_H

#include <stdint.h>

#define MPIX_VB_MAXPORTS 4

// One device and its ports, as ibv_query_device and ibv_query_port report them.
typedef struct mpix_vb_dev {
	char name[64];
	uint64_t guid;
	int32_t nports;
	int32_t max_qp, max_cq, max_mr, max_pd, max_qp_wr, max_cqe;
	int32_t port_state[MPIX_VB_MAXPORTS];  // IBV_PORT_*
	int32_t lid[MPIX_VB_MAXPORTS];
	int32_t link_layer[MPIX_VB_MAXPORTS];  // IBV_LINK_LAYER_*
	int32_t active_mtu[MPIX_VB_MAXPORTS];  // IBV_MTU_*
} mpix_vb_dev;

// mpix_vb_devices fills up to max devices and returns how many there are, or -1 with
// the reason in err when libibverbs cannot be loaded.
int mpix_vb_devices(mpix_vb_dev *out, int max, char *err, int errlen);

// A set of resources made from an epshare plan (transport/epshare): contexts, one PD
// each, thread domains with their parent domains (in context 0), a CQ per QP entry of
// cq, and RC QPs.
typedef struct mpix_vb_res mpix_vb_res;

// mpix_vb_open opens device dev (port) and creates nctx contexts, ntd TDs, ncq CQs
// and nqp RC QPs: QP i in context qp_ctx[i], on TD qp_td[i] (-1: none) and CQ qp_cq[i]
// (CQs live in their first QP's context), each moved to INIT. qpn[i] receives the QP
// numbers. On failure it returns -errno and names the failing call in err, having
// released what it made.
int mpix_vb_open(const char *dev, int port, int nctx, int ntd, int ncq, int nqp, const int32_t *qp_ctx,
		 const int32_t *qp_td, const int32_t *qp_cq, int depth, uint32_t *qpn, mpix_vb_res **out,
		 char *err, int errlen);

// mpix_vb_connect moves QP i to RTR and RTS towards the remote QP (lid or, when lid is
// 0, gid; its QP number and first PSN), with path MTU mtu and this side's first PSN.
int mpix_vb_connect(mpix_vb_res *r, int i, uint16_t lid, const uint8_t *gid, uint32_t rqpn, uint32_t rpsn,
		    int mtu, uint32_t psn, char *err, int errlen);

// mpix_vb_close releases everything, in reverse order of creation.
int mpix_vb_close(mpix_vb_res *r);

#endif
