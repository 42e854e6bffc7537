//go:build cgo && !mpix_noverbs

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "verbs.h"

// The exported libibverbs functions mpix calls, loaded once.
static struct {
	void *lib;
	struct ibv_device **(*get_device_list)(int *n);
	void (*free_device_list)(struct ibv_device **list);
	const char *(*get_device_name)(struct ibv_device *dev);
	__be64 (*get_device_guid)(struct ibv_device *dev);
	struct ibv_context *(*open_device)(struct ibv_device *dev);
	int (*close_device)(struct ibv_context *ctx);
	int (*query_device)(struct ibv_context *ctx, struct ibv_device_attr *attr);
	int (*query_port)(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr);
	int (*query_gid)(struct ibv_context *ctx, uint8_t port, int index, union ibv_gid *gid);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *ctx);
	int (*dealloc_pd)(struct ibv_pd *pd);
	struct ibv_cq *(*create_cq)(struct ibv_context *ctx, int cqe, void *cq_context,
				    struct ibv_comp_channel *channel, int comp_vector);
	int (*destroy_cq)(struct ibv_cq *cq);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask);
	int (*destroy_qp)(struct ibv_qp *qp);
	char err[256];
} ib;

static pthread_mutex_t ib_mu = PTHREAD_MUTEX_INITIALIZER;

#define SYM(f, name)                                                                                   \
	do {                                                                                           \
		*(void **)&ib.f = dlsym(lib, name);                                                    \
		if (!ib.f) {                                                                           \
			snprintf(ib.err, sizeof ib.err, "libibverbs.so.1 lacks %s", name);             \
			dlclose(lib);                                                                  \
			return -1;                                                                     \
		}                                                                                      \
	} while (0)

// load opens libibverbs once (under ib_mu); 0 on success.
static int load(void)
{
	if (ib.lib)
		return 0;
	void *lib = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(ib.err, sizeof ib.err, "libibverbs is not installed (%s)", dlerror());
		return -1;
	}
	SYM(get_device_list, "ibv_get_device_list");
	SYM(free_device_list, "ibv_free_device_list");
	SYM(get_device_name, "ibv_get_device_name");
	SYM(get_device_guid, "ibv_get_device_guid");
	SYM(open_device, "ibv_open_device");
	SYM(close_device, "ibv_close_device");
	SYM(query_device, "ibv_query_device");
	SYM(query_port, "ibv_query_port");
	SYM(query_gid, "ibv_query_gid");
	SYM(alloc_pd, "ibv_alloc_pd");
	SYM(dealloc_pd, "ibv_dealloc_pd");
	SYM(create_cq, "ibv_create_cq");
	SYM(destroy_cq, "ibv_destroy_cq");
	SYM(create_qp, "ibv_create_qp");
	SYM(modify_qp, "ibv_modify_qp");
	SYM(destroy_qp, "ibv_destroy_qp");
	ib.lib = lib;
	return 0;
}

// query_port is ___ibv_query_port of <infiniband/verbs.h> without its reference to the
// exported symbol: the context's operation where the provider has it, else the library's.
static int query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(ctx, query_port);
	if (vctx)
		return vctx->query_port(ctx, port, attr, sizeof *attr);
	memset(attr, 0, sizeof *attr);
	return ib.query_port(ctx, port, attr);
}

int mpix_vb_devices(mpix_vb_dev *out, int max, char *err, int errlen)
{
	pthread_mutex_lock(&ib_mu);
	if (load()) {
		snprintf(err, (size_t)errlen, "%s", ib.err);
		pthread_mutex_unlock(&ib_mu);
		return -1;
	}
	int n = 0;
	struct ibv_device **list = ib.get_device_list(&n);
	if (!list)
		n = 0; // no devices, or no kernel support
	for (int i = 0; i < n && i < max; i++) {
		mpix_vb_dev *d = &out[i];
		memset(d, 0, sizeof *d);
		snprintf(d->name, sizeof d->name, "%s", ib.get_device_name(list[i]));
		d->guid = ib.get_device_guid(list[i]);
		struct ibv_context *ctx = ib.open_device(list[i]);
		if (!ctx)
			continue;
		struct ibv_device_attr a;
		if (ib.query_device(ctx, &a) == 0) {
			d->nports = a.phys_port_cnt;
			d->max_qp = a.max_qp;
			d->max_cq = a.max_cq;
			d->max_mr = a.max_mr;
			d->max_pd = a.max_pd;
			d->max_qp_wr = a.max_qp_wr;
			d->max_cqe = a.max_cqe;
		}
		for (int p = 0; p < d->nports && p < MPIX_VB_MAXPORTS; p++) {
			struct ibv_port_attr pa;
			if (query_port(ctx, (uint8_t)(p + 1), &pa) == 0) {
				d->port_state[p] = pa.state;
				d->lid[p] = pa.lid;
				d->link_layer[p] = pa.link_layer;
				d->active_mtu[p] = pa.active_mtu;
			}
		}
		ib.close_device(ctx);
	}
	if (list)
		ib.free_device_list(list);
	pthread_mutex_unlock(&ib_mu);
	return n;
}

struct mpix_vb_res {
	int port;
	int nctx, ntd, ncq, nqp;
	struct ibv_context **ctx;
	struct ibv_pd **pd;
	struct ibv_td **td;
	struct ibv_pd **parent; // per TD: its parent domain (PD + TD)
	struct ibv_cq **cq;
	struct ibv_qp **qp;
};

int mpix_vb_close(mpix_vb_res *r)
{
	if (!r)
		return 0;
	int rc = 0;
	for (int i = r->nqp - 1; i >= 0; i--)
		if (r->qp && r->qp[i] && ib.destroy_qp(r->qp[i]) && !rc)
			rc = -errno;
	for (int i = r->ncq - 1; i >= 0; i--)
		if (r->cq && r->cq[i] && ib.destroy_cq(r->cq[i]) && !rc)
			rc = -errno;
	for (int i = r->ntd - 1; i >= 0; i--) {
		if (r->parent && r->parent[i] && ib.dealloc_pd(r->parent[i]) && !rc)
			rc = -errno;
		if (r->td && r->td[i] && ibv_dealloc_td(r->td[i]) && !rc)
			rc = -errno;
	}
	for (int i = r->nctx - 1; i >= 0; i--) {
		if (r->pd && r->pd[i] && ib.dealloc_pd(r->pd[i]) && !rc)
			rc = -errno;
		if (r->ctx && r->ctx[i] && ib.close_device(r->ctx[i]) && !rc)
			rc = -errno;
	}
	free(r->qp);
	free(r->cq);
	free(r->parent);
	free(r->td);
	free(r->pd);
	free(r->ctx);
	free(r);
	return rc;
}

#define FAIL(what)                                                                                     \
	do {                                                                                           \
		rc = errno ? -errno : -EINVAL;                                                         \
		snprintf(err, (size_t)errlen, "%s: %s", what, strerror(-rc));                          \
		goto fail;                                                                             \
	} while (0)

static int open_res(const char *dev, int port, int nctx, int ntd, int ncq, int nqp, const int32_t *qp_ctx,
		    const int32_t *qp_td, const int32_t *qp_cq, int depth, uint32_t *qpn, mpix_vb_res **out,
		    char *err, int errlen)
{
	int rc = 0, n = 0;
	struct ibv_device **list = NULL;
	mpix_vb_res *r = calloc(1, sizeof *r);
	if (!r)
		return -ENOMEM;
	r->port = port;
	r->ctx = calloc((size_t)nctx, sizeof *r->ctx);
	r->pd = calloc((size_t)nctx, sizeof *r->pd);
	r->td = calloc((size_t)(ntd ? ntd : 1), sizeof *r->td);
	r->parent = calloc((size_t)(ntd ? ntd : 1), sizeof *r->parent);
	r->cq = calloc((size_t)ncq, sizeof *r->cq);
	r->qp = calloc((size_t)nqp, sizeof *r->qp);
	if (!r->ctx || !r->pd || !r->td || !r->parent || !r->cq || !r->qp) {
		errno = ENOMEM;
		FAIL("calloc");
	}
	list = ib.get_device_list(&n);
	struct ibv_device *d = NULL;
	for (int i = 0; list && i < n; i++)
		if (!strcmp(ib.get_device_name(list[i]), dev))
			d = list[i];
	if (!d) {
		errno = ENODEV;
		FAIL("ibv_get_device_list (no such device)");
	}
	for (int c = 0; c < nctx; c++, r->nctx++) {
		errno = 0;
		if (!(r->ctx[c] = ib.open_device(d)))
			FAIL("ibv_open_device");
		if (!(r->pd[c] = ib.alloc_pd(r->ctx[c])))
			FAIL("ibv_alloc_pd");
	}
	for (int t = 0; t < ntd; t++, r->ntd++) {
		struct ibv_td_init_attr ta = {0};
		errno = 0;
		if (!(r->td[t] = ibv_alloc_td(r->ctx[0], &ta)))
			FAIL("ibv_alloc_td");
		struct ibv_parent_domain_init_attr pa = {.pd = r->pd[0], .td = r->td[t]};
		if (!(r->parent[t] = ibv_alloc_parent_domain(r->ctx[0], &pa)))
			FAIL("ibv_alloc_parent_domain");
	}
	for (int q = 0; q < nqp; q++) {
		int c = qp_ctx[q], k = qp_cq[q];
		if (!r->cq[k]) {
			errno = 0;
			if (!(r->cq[k] = ib.create_cq(r->ctx[c], 2 * depth, NULL, NULL, 0)))
				FAIL("ibv_create_cq");
		}
		if (k >= r->ncq)
			r->ncq = k + 1;
	}
	for (int q = 0; q < nqp; q++, r->nqp++) {
		int c = qp_ctx[q], t = qp_td[q], k = qp_cq[q];
		struct ibv_qp_init_attr qa = {
			.send_cq = r->cq[k],
			.recv_cq = r->cq[k],
			.cap = {.max_send_wr = (uint32_t)depth, .max_recv_wr = (uint32_t)depth,
				.max_send_sge = 1, .max_recv_sge = 1, .max_inline_data = 60},
			.qp_type = IBV_QPT_RC,
		};
		errno = 0;
		if (!(r->qp[q] = ib.create_qp(t >= 0 ? r->parent[t] : r->pd[c], &qa)))
			FAIL("ibv_create_qp");
		qpn[q] = r->qp[q]->qp_num;
		struct ibv_qp_attr a = {
			.qp_state = IBV_QPS_INIT,
			.pkey_index = 0,
			.port_num = (uint8_t)port,
			.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
					   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
		};
		// RESET -> INIT: the mask verbs/qp.go's table requires.
		if ((rc = ib.modify_qp(r->qp[q], &a,
				       IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))) {
			errno = rc;
			FAIL("ibv_modify_qp (RESET -> INIT)");
		}
	}
	ib.free_device_list(list);
	*out = r;
	return 0;
fail:
	if (list)
		ib.free_device_list(list);
	mpix_vb_close(r);
	return rc;
}

int mpix_vb_open(const char *dev, int port, int nctx, int ntd, int ncq, int nqp, const int32_t *qp_ctx,
		 const int32_t *qp_td, const int32_t *qp_cq, int depth, uint32_t *qpn, mpix_vb_res **out,
		 char *err, int errlen)
{
	pthread_mutex_lock(&ib_mu);
	int rc;
	if (load()) {
		snprintf(err, (size_t)errlen, "%s", ib.err);
		rc = -ENOSYS;
	} else {
		rc = open_res(dev, port, nctx, ntd, ncq, nqp, qp_ctx, qp_td, qp_cq, depth, qpn, out, err, errlen);
	}
	pthread_mutex_unlock(&ib_mu);
	return rc;
}

int mpix_vb_connect(mpix_vb_res *r, int i, uint16_t lid, const uint8_t *gid, uint32_t rqpn, uint32_t rpsn,
		    int mtu, uint32_t psn, char *err, int errlen)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = (enum ibv_mtu)mtu,
		.dest_qp_num = rqpn,
		.rq_psn = rpsn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = {.dlid = lid, .sl = 0, .src_path_bits = 0, .port_num = (uint8_t)r->port},
	};
	if (lid == 0) { // RoCE: a global route to the GID
		a.ah_attr.is_global = 1;
		memcpy(a.ah_attr.grh.dgid.raw, gid, 16);
		a.ah_attr.grh.hop_limit = 1;
		a.ah_attr.grh.sgid_index = 0;
	}
	int rc = ib.modify_qp(r->qp[i], &a,
			      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				      IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (rc) {
		snprintf(err, (size_t)errlen, "ibv_modify_qp (INIT -> RTR): %s", strerror(rc));
		return -rc;
	}
	struct ibv_qp_attr s = {
		.qp_state = IBV_QPS_RTS,
		.sq_psn = psn,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.max_rd_atomic = 1,
	};
	rc = ib.modify_qp(r->qp[i], &s,
			  IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				  IBV_QP_MAX_QP_RD_ATOMIC);
	if (rc) {
		snprintf(err, (size_t)errlen, "ibv_modify_qp (RTR -> RTS): %s", strerror(rc));
		return -rc;
	}
	return 0;
}
