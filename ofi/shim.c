//go:build cgo && !mpix_noofi

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"
#include "sigguard.h"

#include <dlfcn.h>
#include <pthread.h>

// Signal handlers around libfabric: loading, opening and closing providers runs their
// libraries' code, and some install handlers of their own (psm2's SIGSEGV handler).
// The entries that run it keep the process's handlers with the guard of sigguard.h.

// fab_mu serializes the entries that run libfabric's setup and teardown: load's
// writes to fab, and the guarded regions around them.
static pthread_mutex_t fab_mu = PTHREAD_MUTEX_INITIALIZER;

// The libfabric functions mpix calls that are exported symbols (the rest of the API
// is inline calls through the objects' operation tables).
static struct {
	void *lib;
	struct fi_info *(*dupinfo)(const struct fi_info *info);
	int (*fabric)(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context);
	void (*freeinfo)(struct fi_info *info);
	int (*getinfo)(uint32_t version, const char *node, const char *service, uint64_t flags,
		       const struct fi_info *hints, struct fi_info **info);
	const char *(*strerror)(int errnum);
	char err[256];
} fab;

// load opens libfabric once; 0 on success.
static int load(void)
{
	if (fab.lib)
		return 0;
	void *lib = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(fab.err, sizeof fab.err, "libfabric is not installed (%s)", dlerror());
		return MPIX_OFI_ENOLIB;
	}
	fab.dupinfo = dlsym(lib, "fi_dupinfo");
	fab.fabric = dlsym(lib, "fi_fabric");
	fab.freeinfo = dlsym(lib, "fi_freeinfo");
	fab.getinfo = dlsym(lib, "fi_getinfo");
	fab.strerror = dlsym(lib, "fi_strerror");
	if (!fab.dupinfo || !fab.fabric || !fab.freeinfo || !fab.getinfo || !fab.strerror) {
		snprintf(fab.err, sizeof fab.err, "libfabric.so.1 lacks fi_getinfo and friends");
		dlclose(lib);
		return MPIX_OFI_ENOLIB;
	}
	fab.lib = lib;
	return 0;
}

// From here on the libfabric names resolve to the loaded functions.
#define fi_dupinfo(i) fab.dupinfo(i)
#define fi_fabric(a, f, c) fab.fabric(a, f, c)
#define fi_freeinfo(i) fab.freeinfo(i)
#define fi_getinfo(v, n, s, f, h, i) fab.getinfo(v, n, s, f, h, i)
#define fi_strerror(e) fab.strerror(e)

const char *mpix_ofi_strerror(int code)
{
	pthread_mutex_lock(&fab_mu);
	const char *msg;
	if (code == MPIX_OFI_ENOLIB || code == -MPIX_OFI_ENOLIB)
		msg = fab.err;
	else
		msg = fab.lib ? fi_strerror(code < 0 ? -code : code) : "libfabric not loaded";
	pthread_mutex_unlock(&fab_mu);
	return msg;
}

void mpix_ofi_freeinfo(struct fi_info *info)
{
	fi_freeinfo(info);
}

struct fi_info *mpix_ofi_dupinfo(const struct fi_info *info)
{
	return fi_dupinfo(info);
}

// mpix_ofi_getinfo asks for reliable datagram endpoints that send and receive
// untagged messages in send-after-send order, from provider prov (NULL: any); with
// rma, also for RMA reads and writes in both directions (fi_read, fi_write, and peers'
// on registered memory), and with rma & 2 for atomics on it as well (FI_ATOMIC).
static int getinfo(const char *prov, int rma, struct fi_info **out)
{
	int loaded = load();
	if (loaded)
		return loaded;
	struct fi_info *hints = fi_dupinfo(NULL); // fi_allocinfo, through the loaded library
	if (!hints)
		return -FI_ENOMEM;
	hints->caps = FI_MSG;
	if (rma & 3)
		hints->caps |= FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
	if (rma & 2)
		hints->caps |= FI_ATOMIC;
	// We hand every operation an fi_context2, so both context modes are fine.
	hints->mode = FI_CONTEXT | FI_CONTEXT2;
	hints->ep_attr->type = FI_EP_RDM;
	hints->tx_attr->msg_order = FI_ORDER_SAS;
	hints->rx_attr->msg_order = FI_ORDER_SAS;
	// One VCI owns the endpoint and serializes calls on it; each endpoint has its own
	// domain.
	// Categories that share one domain between VCIs (MPIX_EP_SHARING) ask for a
	// thread-safe one (rma & MPIX_OFI_THREAD_SAFE).
	hints->domain_attr->threading = (rma & MPIX_OFI_THREAD_SAFE) ? FI_THREAD_SAFE : FI_THREAD_DOMAIN;
	hints->domain_attr->av_type = FI_AV_TABLE;
	// The registration modes we can live with: we register our bounce and receive
	// buffers when asked (FI_MR_LOCAL), bind them to the endpoint when asked
	// (FI_MR_ENDPOINT), and they are ordinary allocated memory. For RMA, the key
	// published for a registration carries the provider's key (raw when it says
	// FI_MR_RAW) and the registration's address, so that origins address it
	// absolutely (FI_MR_VIRT_ADDR) or by offset, whichever the provider wants.
	hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_ALLOCATED | FI_MR_PROV_KEY |
				      FI_MR_VIRT_ADDR | FI_MR_ENDPOINT;
	if (rma & 3)
		hints->domain_attr->mr_mode |= FI_MR_RAW;
	if (prov) {
		hints->fabric_attr->prov_name = strdup(prov);
		if (!hints->fabric_attr->prov_name) {
			fi_freeinfo(hints);
			return -FI_ENOMEM;
		}
	}
	int rc = fi_getinfo(MPIX_OFI_API_VERSION, NULL, NULL, 0, hints, out);
	fi_freeinfo(hints);
	return rc;
}

static void scq_read(mpix_ofi *s, struct fid_cq *cq, int recv);

// mpix_ofi_mrs counts the memory registrations open in this process (MPI_T's
// mpix_ep_mrs): reg adds them, and every fi_close of a registration below takes one off.
int64_t mpix_ofi_mrs;

static inline int counted_close(struct fid *f)
{
	int mr = f->fclass == FI_CLASS_MR;
	int rc = fi_close(f);
	if (rc == 0 && mr)
		__atomic_sub_fetch(&mpix_ofi_mrs, 1, __ATOMIC_RELAXED);
	return rc;
}
#define fi_close(f) counted_close(f)

static int post_recv(mpix_ofi *s, int32_t idx)
{
	s->rxops[idx].seq = s->post_seq;
	int rc = (int)fi_recv(s->ep, s->rxmem + (size_t)idx * s->bufsize, s->bufsize, s->rxdesc,
			      FI_ADDR_UNSPEC, &s->rxops[idx].ctx);
	if (rc == 0)
		s->post_seq++;
	return rc;
}

// post_unposted posts the waiting receive buffers until the provider pushes back.
static int post_unposted(mpix_ofi *s)
{
	while (s->nunposted > 0) {
		int rc = post_recv(s, s->unposted[s->nunposted - 1]);
		if (rc == -FI_EAGAIN)
			return 0;
		if (rc)
			return rc;
		s->nunposted--;
	}
	return 0;
}

// mpix_ofi_next_key is the next key of s's domain for a registration whose key the
// application picks.
uint64_t mpix_ofi_next_key(mpix_ofi *s)
{
	return __atomic_fetch_add(&s->dom->next_key, 1, __ATOMIC_RELAXED);
}

static int reg(mpix_ofi *s, void *buf, size_t len, uint64_t access, uint64_t key,
	       struct fid_mr **mr, void **desc, const char **where)
{
	*mr = NULL;
	int rc = fi_mr_reg(s->domain, buf, len, access, 0, key, 0, mr, NULL);
	if (rc) {
		*where = "fi_mr_reg";
		return rc;
	}
	__atomic_add_fetch(&mpix_ofi_mrs, 1, __ATOMIC_RELAXED);
	if (s->info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
		rc = fi_mr_bind(*mr, &s->ep->fid, 0);
		if (rc) {
			*where = "fi_mr_bind";
			return rc;
		}
		rc = fi_mr_enable(*mr);
		if (rc) {
			*where = "fi_mr_enable";
			return rc;
		}
	}
	*desc = fi_mr_desc(*mr);
	return 0;
}

// mpix_ofi_open builds fabric, domain, CQs, AV and endpoint from info (which s takes
// over), allocates and registers the buffers and posts the receives. On failure it
// names the failing call in *where; mpix_ofi_close frees what was built.
static int open_ep(mpix_ofi *s, struct fi_info *info, size_t bufsize, int32_t ntx, int32_t nrx,
		  int32_t naddrs, mpix_ofi_dom *dom, mpix_ofi_stx *stx, const char **where)
{
	int rc;
	s->info = info;
	s->bufsize = bufsize;
	s->ntx = ntx;
	s->nrx = nrx;

	*where = "malloc";
	s->txmem = malloc((size_t)ntx * bufsize);
	s->rxmem = malloc((size_t)nrx * bufsize);
	s->injbuf = malloc(info->tx_attr->inject_size > 0 ? info->tx_attr->inject_size : 1);
	s->txops = calloc((size_t)ntx, sizeof(mpix_ofi_op));
	s->rxops = calloc((size_t)nrx, sizeof(mpix_ofi_op));
	s->unposted = calloc((size_t)nrx, sizeof(int32_t));
	s->addrs = calloc((size_t)naddrs, sizeof(fi_addr_t));
	s->ring_idx = malloc((size_t)nrx * sizeof(int32_t));
	s->ring_len = calloc((size_t)nrx, sizeof(uint32_t));
	s->ring_skip = calloc((size_t)nrx, 1);
	if (!s->txmem || !s->rxmem || !s->injbuf || !s->txops || !s->rxops || !s->unposted ||
	    !s->addrs || !s->ring_idx || !s->ring_len || !s->ring_skip)
		return -FI_ENOMEM;
	for (int32_t i = 0; i < nrx; i++)
		s->ring_idx[i] = -1;
	s->naddrs = naddrs;
	for (int32_t i = 0; i < naddrs; i++)
		s->addrs[i] = FI_ADDR_NOTAVAIL;
	for (int32_t i = 0; i < ntx; i++) {
		s->txops[i].index = i;
		s->txops[i].kind = MPIX_OFI_OP_SEND;
	}
	for (int32_t i = 0; i < nrx; i++) {
		s->rxops[i].index = i;
		s->rxops[i].kind = MPIX_OFI_OP_RECV;
	}
	// RMA needs the capability and both directions of access (FI_RMA alone implies
	// them all).
	const uint64_t rw = FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
	if ((info->caps & FI_RMA) && ((info->caps & rw) == rw || (info->caps & rw) == 0)) {
		s->rmaops = calloc(MPIX_OFI_RMA_OPS, sizeof(mpix_ofi_rmaop));
		s->rmafree = calloc(MPIX_OFI_RMA_OPS, sizeof(int32_t));
		s->rma_pending = calloc((size_t)naddrs, sizeof(int32_t));
		s->rma_err = calloc((size_t)naddrs, sizeof(int32_t));
		if (!s->rmaops || !s->rmafree || !s->rma_pending || !s->rma_err)
			return -FI_ENOMEM;
		for (int32_t i = 0; i < MPIX_OFI_RMA_OPS; i++) {
			s->rmaops[i].op.index = i;
			s->rmaops[i].op.kind = MPIX_OFI_OP_RMA;
			s->rmafree[i] = MPIX_OFI_RMA_OPS - 1 - i;
		}
		s->nrmafree = MPIX_OFI_RMA_OPS;
		s->rma = 1;
		s->atomic = (info->caps & FI_ATOMIC) != 0;
		// Remote CQ data needs a provider that carries it and does not consume a
		// posted receive buffer for it (FI_RX_CQ_DATA would break the ring's order).
		if (!(info->mode & FI_RX_CQ_DATA))
			s->cq_data_size = (int32_t)info->domain_attr->cq_data_size;
	}
	// The fabric and domain: this endpoint's own (dom NULL), or one that endpoints of
	// other VCIs share (MPIX_EP_SHARING), which counts its users.
	if (!dom) {
		*where = "malloc";
		if (!(dom = calloc(1, sizeof *dom)))
			return -FI_ENOMEM;
		// Keys the application picks (no FI_MR_PROV_KEY) must be unique in the
		// domain: every registration takes the next of the domain's counter.
		dom->next_key = 1;
		s->dom = dom;
		dom->refs = 1;
		*where = "fi_fabric";
		if ((rc = fi_fabric(info->fabric_attr, &dom->fabric, NULL)))
			return rc;
		*where = "fi_domain";
		if ((rc = fi_domain(dom->fabric, info, &dom->domain, NULL)))
			return rc;
	} else {
		s->dom = dom;
		dom->refs++;
	}
	s->fabric = dom->fabric;
	s->domain = dom->domain;

	for (int32_t i = 0; i < ntx; i++)
		s->txops[i].owner = s;
	for (int32_t i = 0; i < nrx; i++)
		s->rxops[i].owner = s;
	if (s->rmaops)
		for (int32_t i = 0; i < MPIX_OFI_RMA_OPS; i++)
			s->rmaops[i].op.owner = s;
	if (s->scq) {
		// Completions arrive through the shared CQs; remote CQ data would name no
		// endpoint, so these endpoints offer none (partitioned writes take messages).
		s->capinbox = ntx + nrx + MPIX_OFI_RMA_OPS;
		*where = "malloc";
		if (!(s->inbox = calloc((size_t)s->capinbox, sizeof *s->inbox)))
			return -FI_ENOMEM;
		s->cq_data_size = 0;
		pthread_mutex_lock(&s->scq->mu);
		s->scq->refs++;
		pthread_mutex_unlock(&s->scq->mu);
		s->txcq = s->scq->txcq;
		s->rxcq = s->scq->rxcq;
	} else {
		struct fi_cq_attr cq_attr;
		memset(&cq_attr, 0, sizeof cq_attr);
		cq_attr.format = FI_CQ_FORMAT_DATA;
		cq_attr.wait_obj = FI_WAIT_NONE;
		cq_attr.size = ntx < 128 ? 128 : (size_t)ntx;
		*where = "fi_cq_open (transmit)";
		if ((rc = fi_cq_open(s->domain, &cq_attr, &s->txcq, NULL)))
			return rc;
		cq_attr.size = nrx < 128 ? 128 : (size_t)nrx;
		*where = "fi_cq_open (receive)";
		if ((rc = fi_cq_open(s->domain, &cq_attr, &s->rxcq, NULL)))
			return rc;
	}

	struct fi_av_attr av_attr;
	memset(&av_attr, 0, sizeof av_attr);
	av_attr.type = FI_AV_TABLE;
	av_attr.count = (size_t)naddrs;
	*where = "fi_av_open";
	if ((rc = fi_av_open(s->domain, &av_attr, &s->av, NULL)))
		return rc;

	if (stx) // posts through a shared transmit context (MPIX_EP_SHARING)
		info->ep_attr->tx_ctx_cnt = FI_SHARED_CONTEXT;
	*where = "fi_endpoint";
	if ((rc = fi_endpoint(s->domain, info, &s->ep, NULL)))
		return rc;
	if (stx) {
		*where = "fi_ep_bind (shared transmit context)";
		if ((rc = fi_ep_bind(s->ep, &stx->stx->fid, 0)))
			return rc;
		s->stx = stx;
		stx->refs++;
	}
	*where = "fi_ep_bind (transmit CQ)";
	if ((rc = fi_ep_bind(s->ep, &s->txcq->fid, FI_TRANSMIT)))
		return rc;
	*where = "fi_ep_bind (receive CQ)";
	if ((rc = fi_ep_bind(s->ep, &s->rxcq->fid, FI_RECV)))
		return rc;
	*where = "fi_ep_bind (AV)";
	if ((rc = fi_ep_bind(s->ep, &s->av->fid, 0)))
		return rc;
	*where = "fi_enable";
	if ((rc = fi_enable(s->ep)))
		return rc;

	if (info->domain_attr->mr_mode & FI_MR_LOCAL) {
		if ((rc = reg(s, s->txmem, (size_t)ntx * bufsize, FI_SEND, mpix_ofi_next_key(s), &s->txmr,
			      &s->txdesc, where)))
			return rc;
		if ((rc = reg(s, s->rxmem, (size_t)nrx * bufsize, FI_RECV, mpix_ofi_next_key(s), &s->rxmr,
			      &s->rxdesc, where)))
			return rc;
	}

	for (int32_t i = 0; i < nrx; i++)
		s->unposted[i] = nrx - 1 - i;
	s->nunposted = nrx;
	*where = "fi_recv";
	return post_unposted(s);
}

// The exported entries that run providers' code (getinfo, open, close) hold fab_mu
// and keep the process's signal handlers from the providers.
int mpix_ofi_getinfo(const char *prov, int rma, struct fi_info **out)
{
	mpix_sigguard g;
	pthread_mutex_lock(&fab_mu);
	mpix_sigguard_save(&g);
	int rc = getinfo(prov, rma, out);
	mpix_sigguard_restore(&g);
	pthread_mutex_unlock(&fab_mu);
	return rc;
}

int mpix_ofi_open(mpix_ofi *s, struct fi_info *info, size_t bufsize, int32_t ntx, int32_t nrx, int32_t naddrs,
		  mpix_ofi_dom *dom, mpix_ofi_stx *stx, const char **where)
{
	mpix_sigguard g;
	pthread_mutex_lock(&fab_mu);
	mpix_sigguard_save(&g);
	int rc = open_ep(s, info, bufsize, ntx, nrx, naddrs, dom, stx, where);
	mpix_sigguard_restore(&g);
	pthread_mutex_unlock(&fab_mu);
	return rc;
}

static int close_fid(mpix_ofi *s, struct fid *f, const char *what, int rc)
{
	if (!f)
		return rc;
	int r = fi_close(f);
	if (r && !rc) {
		s->close_where = what;
		return r;
	}
	return rc;
}

// close_ep releases everything in the reverse order of open_ep and returns the first
// fi_close failure. s may be partly built.
static int close_ep(mpix_ofi *s)
{
	int rc = 0;
	// Closing the endpoint cancels the posted receives and outstanding sends.
	int eprc = s->ep ? fi_close(&s->ep->fid) : 0;
	if (s->rmaops)
		for (int32_t i = 0; i < MPIX_OFI_RMA_OPS; i++)
			for (int j = 0; j < 3; j++)
				if (s->rmaops[i].lmr[j])
					rc = close_fid(s, &s->rmaops[i].lmr[j]->fid, "fi_close (RMA local MR)", rc);
	rc = close_fid(s, s->rxmr ? &s->rxmr->fid : NULL, "fi_close (receive MR)", rc);
	rc = close_fid(s, s->txmr ? &s->txmr->fid : NULL, "fi_close (send MR)", rc);
	// A provider that binds MRs to the endpoint (FI_MR_ENDPOINT) may refuse to close
	// the endpoint before its MRs: try again now that they are gone.
	if (eprc == -FI_EBUSY)
		eprc = fi_close(&s->ep->fid);
	if (eprc && !rc) {
		rc = eprc;
		s->close_where = "fi_close (endpoint)";
	}
	if (s->scq && s->inbox) {
		// Completions of this endpoint's cancelled operations may still sit in the
		// shared CQs: read them now, dropping this endpoint's, filing the others'.
		pthread_mutex_lock(&s->scq->mu);
		s->closing = 1;
		scq_read(s, s->scq->txcq, 0);
		scq_read(s, s->scq->rxcq, 1);
		int last = --s->scq->refs == 0;
		pthread_mutex_unlock(&s->scq->mu);
		if (last) {
			rc = close_fid(s, &s->scq->rxcq->fid, "fi_close (shared receive CQ)", rc);
			rc = close_fid(s, &s->scq->txcq->fid, "fi_close (shared transmit CQ)", rc);
			pthread_mutex_destroy(&s->scq->mu);
			free(s->scq);
		}
		s->txcq = s->rxcq = NULL;
	}
	free(s->inbox);
	rc = close_fid(s, s->av ? &s->av->fid : NULL, "fi_close (AV)", rc);
	rc = close_fid(s, s->rxcq ? &s->rxcq->fid : NULL, "fi_close (receive CQ)", rc);
	rc = close_fid(s, s->txcq ? &s->txcq->fid : NULL, "fi_close (transmit CQ)", rc);
	if (s->stx && --s->stx->refs == 0) {
		rc = close_fid(s, &s->stx->stx->fid, "fi_close (shared transmit context)", rc);
		free(s->stx);
	}
	// The domain and fabric go with their last endpoint.
	if (s->dom && --s->dom->refs == 0) {
		rc = close_fid(s, s->dom->domain ? &s->dom->domain->fid : NULL, "fi_close (domain)", rc);
		rc = close_fid(s, s->dom->fabric ? &s->dom->fabric->fid : NULL, "fi_close (fabric)", rc);
		free(s->dom);
	}
	const char *where = s->close_where;
	free(s->rma_err);
	free(s->rma_pending);
	free(s->rmafree);
	free(s->rmaops);
	free(s->ring_skip);
	free(s->ring_len);
	free(s->ring_idx);
	free(s->addrs);
	free(s->unposted);
	free(s->rxops);
	free(s->txops);
	free(s->injbuf);
	free(s->rxmem);
	free(s->txmem);
	if (s->info)
		fi_freeinfo(s->info);
	memset(s, 0, sizeof *s);
	s->close_where = where;
	return rc;
}

// mpix_ofi_close is close_ep with the handlers kept (providers' finalizers may
// install theirs again).
int mpix_ofi_close(mpix_ofi *s)
{
	mpix_sigguard g;
	pthread_mutex_lock(&fab_mu);
	mpix_sigguard_save(&g);
	int rc = close_ep(s);
	mpix_sigguard_restore(&g);
	pthread_mutex_unlock(&fab_mu);
	return rc;
}

int mpix_ofi_getname(mpix_ofi *s, void *buf, size_t *len)
{
	return fi_getname(&s->ep->fid, buf, len);
}

// mpix_ofi_av_insert inserts world rank's address. addr is read during the call only.
int mpix_ofi_av_insert(mpix_ofi *s, int32_t rank, const void *addr)
{
	if (rank < 0 || rank >= s->naddrs)
		return -FI_EINVAL;
	fi_addr_t fa = FI_ADDR_NOTAVAIL;
	int n = fi_av_insert(s->av, addr, 1, &fa, 0, NULL);
	if (n < 0)
		return n;
	if (n != 1)
		return -FI_EADDRNOTAVAIL;
	s->addrs[rank] = fa;
	return 0;
}

// mpix_ofi_inject sends the first len bytes of injbuf to dst; the provider copies them
// before returning and reports no completion.
ssize_t mpix_ofi_inject(mpix_ofi *s, int32_t dst, size_t len)
{
	return fi_inject(s->ep, s->injbuf, len, s->addrs[dst]);
}

// mpix_ofi_send sends the first len bytes of send buffer idx to dst; the buffer comes
// back through the transmit CQ.
ssize_t mpix_ofi_send(mpix_ofi *s, int32_t dst, int32_t idx, size_t len)
{
	return fi_send(s->ep, s->txmem + (size_t)idx * s->bufsize, len, s->txdesc,
		       s->addrs[dst], &s->txops[idx].ctx);
}

static void note_error(mpix_ofi *s, struct fid_cq *cq, const char *what, int err, int prov_errno,
		       const void *err_data, int recv)
{
	if (s->err)
		return;
	s->err = err ? err : FI_EOTHER;
	s->err_recv = recv;
	const char *prov = cq ? fi_cq_strerror(cq, prov_errno, err_data, NULL, 0) : NULL;
	snprintf(s->errtext, sizeof s->errtext, "%s: %s%s%s", what, fi_strerror(s->err),
		 prov ? " (provider: " : "", prov ? prov : "");
	if (prov) {
		size_t n = strlen(s->errtext);
		if (n + 1 < sizeof s->errtext) {
			s->errtext[n] = ')';
			s->errtext[n + 1] = 0;
		}
	}
}

// complete_recv files a receive completion in the ring.
static void complete_recv(mpix_ofi *s, mpix_ofi_op *op, size_t len, int skip)
{
	size_t slot = (size_t)(op->seq % (uint64_t)s->nrx);
	s->ring_idx[slot] = op->index;
	s->ring_len[slot] = (uint32_t)len;
	s->ring_skip[slot] = (uint8_t)skip;
}

// file puts a completion read from a shared CQ in its endpoint's inbox (under the
// CQs' lock); a closing endpoint's are dropped.
static void file(mpix_ofi *s, mpix_ofi_op *op, size_t len, int err, const char *text, int recv)
{
	mpix_ofi *o = op->owner;
	if (!o || o->closing)
		return;
	if (o->ninbox == o->capinbox) { // cannot happen: each operation completes once
		if (!o->err) {
			o->err = FI_EOVERFLOW;
			snprintf(o->errtext, sizeof o->errtext, "shared CQ: inbox of %d completions overflowed", o->capinbox);
		}
		return;
	}
	mpix_ofi_ent *e = &o->inbox[o->ninbox++];
	e->op = op;
	e->len = len;
	e->err = err;
	e->recv = recv;
	snprintf(e->text, sizeof e->text, "%s", text ? text : "");
	(void)s;
}

// scq_read drains shared CQ cq (recv: the receive one) into its endpoints' inboxes;
// s is the endpoint whose call reads it (its cqe array is the buffer; errors that name
// no operation are its own).
static void scq_read(mpix_ofi *s, struct fid_cq *cq, int recv)
{
	for (;;) {
		ssize_t n = fi_cq_read(cq, s->cqe, MPIX_OFI_BATCH);
		if (n > 0) {
			for (ssize_t i = 0; i < n; i++)
				if (s->cqe[i].op_context)
					file(s, s->cqe[i].op_context, s->cqe[i].len, 0, NULL, recv);
			if (n < MPIX_OFI_BATCH)
				return;
			continue;
		}
		if (n == -FI_EAVAIL) {
			struct fi_cq_err_entry e;
			memset(&e, 0, sizeof e);
			ssize_t rc = fi_cq_readerr(cq, &e, 0);
			if (rc < 0) {
				if (rc != -FI_EAGAIN)
					note_error(s, NULL, "fi_cq_readerr (shared)", (int)-rc, 0, NULL, recv);
				return;
			}
			int err = e.err ? e.err : FI_EOTHER;
			if (!e.op_context) {
				note_error(s, cq, "completion (shared CQ)", err, e.prov_errno, e.err_data, recv);
				continue;
			}
			char text[192];
			const char *prov = fi_cq_strerror(cq, e.prov_errno, e.err_data, NULL, 0);
			snprintf(text, sizeof text, "%s%s%s%s", fi_strerror(err), prov ? " (provider: " : "",
				 prov ? prov : "", prov ? ")" : "");
			file(s, e.op_context, 0, err, text, recv);
			continue;
		}
		if (n != -FI_EAGAIN)
			note_error(s, NULL, "fi_cq_read (shared)", (int)-n, 0, NULL, recv);
		return;
	}
}

// release_local closes the local registrations of RMA operation r.
static void release_local(mpix_ofi_rmaop *r)
{
	for (int j = 0; j < 3; j++)
		if (r->lmr[j]) {
			fi_close(&r->lmr[j]->fid);
			r->lmr[j] = NULL;
		}
}

// rma_done ends RMA operation r: its slot goes back to the pool, its local
// registration is released, and its peer has one fewer in flight. err (a positive
// FI_* code, 0: none) is kept as the peer's error until Go collects it: a failed RMA
// operation fails the operations of its window, not the endpoint.
static void rma_done(mpix_ofi *s, mpix_ofi_rmaop *r, int err, const char *text)
{
	if (!r->busy)
		return;
	release_local(r);
	if (err && !s->rma_err[r->peer]) {
		s->rma_err[r->peer] = err;
		if (!s->rma_errtext[0])
			snprintf(s->rma_errtext, sizeof s->rma_errtext, "%s", text);
	}
	s->rma_pending[r->peer]--;
	s->rma_inflight--;
	r->busy = 0;
	s->rmafree[s->nrmafree++] = r->op.index;
}

// read_err takes one error completion off cq. It returns the op it names, or NULL.
static mpix_ofi_op *read_err(mpix_ofi *s, struct fid_cq *cq, const char *what)
{
	struct fi_cq_err_entry e;
	memset(&e, 0, sizeof e);
	ssize_t rc = fi_cq_readerr(cq, &e, 0);
	if (rc < 0) {
		if (rc != -FI_EAGAIN)
			note_error(s, NULL, "fi_cq_readerr", (int)-rc, 0, NULL, 0);
		return NULL;
	}
	mpix_ofi_op *op = e.op_context;
	if (op && op->kind == MPIX_OFI_OP_RMA) {
		char text[256];
		const char *prov = fi_cq_strerror(cq, e.prov_errno, e.err_data, NULL, 0);
		snprintf(text, sizeof text, "%s%s%s%s", fi_strerror(e.err ? e.err : FI_EOTHER),
			 prov ? " (provider: " : "", prov ? prov : "", prov ? ")" : "");
		rma_done(s, (mpix_ofi_rmaop *)op, e.err ? e.err : FI_EOTHER, text);
		return op;
	}
	int recv = op && op->kind == MPIX_OFI_OP_RECV;
	// A receive cancelled by closing the endpoint is no error.
	if (!(recv && e.err == FI_ECANCELED))
		note_error(s, cq, what, e.err, e.prov_errno, e.err_data, recv);
	return op;
}

// settle takes this endpoint's completions from its inbox (under the shared CQs'
// lock): send buffers into tx_idx (up to a batch; the rest wait for the next call),
// RMA operations done, receives into the ring.
static void settle(mpix_ofi *s)
{
	int32_t i = 0;
	for (; i < s->ninbox; i++) {
		mpix_ofi_ent *e = &s->inbox[i];
		mpix_ofi_op *op = e->op;
		if (op->kind == MPIX_OFI_OP_SEND) {
			if (s->ntxdone == MPIX_OFI_BATCH)
				break;
			s->tx_idx[s->ntxdone++] = op->index;
			if (e->err && !s->err) {
				s->err = e->err;
				snprintf(s->errtext, sizeof s->errtext, "send completion: %s", e->text);
			}
		} else if (op->kind == MPIX_OFI_OP_RMA) {
			rma_done(s, (mpix_ofi_rmaop *)op, e->err, e->text);
		} else {
			complete_recv(s, op, e->len, e->err != 0);
			if (e->err && e->err != FI_ECANCELED && !s->err) {
				s->err = e->err;
				s->err_recv = 1;
				snprintf(s->errtext, sizeof s->errtext, "receive completion: %s", e->text);
			}
		}
	}
	if (i > 0) {
		memmove(s->inbox, s->inbox + i, (size_t)(s->ninbox - i) * sizeof *s->inbox);
		s->ninbox -= i;
	}
}

// scq_progress reads the shared CQs and settles this endpoint's completions.
static void scq_progress(mpix_ofi *s)
{
	pthread_mutex_lock(&s->scq->mu);
	scq_read(s, s->scq->txcq, 0);
	scq_read(s, s->scq->rxcq, 1);
	settle(s);
	pthread_mutex_unlock(&s->scq->mu);
}

// mpix_ofi_progress_tx reads the transmit CQ (which also drives a manual-progress
// provider) and lists the send buffers it gave back in tx_idx. It returns their count.
// RMA completions, which arrive on the same CQ, are settled here in C.
int mpix_ofi_progress_tx(mpix_ofi *s)
{
	s->ntxdone = 0;
	if (s->scq) {
		scq_progress(s);
		return s->ntxdone;
	}
	ssize_t n = fi_cq_read(s->txcq, s->cqe, MPIX_OFI_BATCH);
	if (n > 0) {
		for (ssize_t i = 0; i < n; i++) {
			mpix_ofi_op *op = s->cqe[i].op_context;
			if (!op)
				continue;
			if (op->kind == MPIX_OFI_OP_SEND)
				s->tx_idx[s->ntxdone++] = op->index;
			else if (op->kind == MPIX_OFI_OP_RMA)
				rma_done(s, (mpix_ofi_rmaop *)op, 0, NULL);
		}
	} else if (n == -FI_EAVAIL) {
		mpix_ofi_op *op = read_err(s, s->txcq, "send completion");
		if (op && op->kind == MPIX_OFI_OP_SEND)
			s->tx_idx[s->ntxdone++] = op->index;
	} else if (n != -FI_EAGAIN) {
		note_error(s, NULL, "fi_cq_read (transmit)", (int)-n, 0, NULL, 0);
	}
	return s->ntxdone;
}


// mpix_ofi_poll posts waiting receive buffers, progresses the transmit side, reads the
// receive CQ, then lists in rx_idx/rx_len up to a batch of arrived messages, in
// posting order, and returns their count. The listed buffers stay unposted until
// mpix_ofi_repost.
int mpix_ofi_poll(mpix_ofi *s)
{
	int rc = post_unposted(s);
	if (rc)
		note_error(s, NULL, "fi_recv", -rc, 0, NULL, 1);
	mpix_ofi_progress_tx(s);
	s->nimm = 0;
	ssize_t n = s->scq ? -FI_EAGAIN : fi_cq_read(s->rxcq, s->cqe, MPIX_OFI_BATCH); // shared: settled above
	if (n > 0) {
		for (ssize_t i = 0; i < n; i++) {
			mpix_ofi_op *op = s->cqe[i].op_context;
			if ((s->cqe[i].flags & FI_REMOTE_CQ_DATA) && !(s->cqe[i].flags & FI_RECV)) {
				s->imm[s->nimm++] = s->cqe[i].data; // a peer's fi_writedata landed
				continue;
			}
			if (op && op->kind == MPIX_OFI_OP_RECV)
				complete_recv(s, op, s->cqe[i].len, 0);
		}
	} else if (n == -FI_EAVAIL) {
		mpix_ofi_op *op = read_err(s, s->rxcq, "receive completion");
		if (op && op->kind == MPIX_OFI_OP_RECV)
			complete_recv(s, op, 0, 1);
	} else if (n != -FI_EAGAIN) {
		note_error(s, NULL, "fi_cq_read (receive)", (int)-n, 0, NULL, 1);
	}

	int k = 0;
	int skipped = 0;
	while (k < MPIX_OFI_BATCH && s->next_seq < s->post_seq) {
		size_t slot = (size_t)(s->next_seq % (uint64_t)s->nrx);
		int32_t idx = s->ring_idx[slot];
		if (idx < 0)
			break;
		s->ring_idx[slot] = -1;
		s->next_seq++;
		if (s->ring_skip[slot]) {
			s->unposted[s->nunposted++] = idx;
			skipped = 1;
			continue;
		}
		s->rx_idx[k] = idx;
		s->rx_len[k] = s->ring_len[slot];
		k++;
	}
	if (skipped)
		post_unposted(s);
	return k;
}

// mpix_ofi_repost gives the n buffers of the last mpix_ofi_poll back to the provider.
int mpix_ofi_repost(mpix_ofi *s, int32_t n)
{
	for (int32_t i = 0; i < n; i++)
		s->unposted[s->nunposted++] = s->rx_idx[i];
	return post_unposted(s);
}

// ---- RMA ----

// mpix_ofi_mr_reg registers len bytes at buf for peers to read and write, and returns
// the key they need: the provider's 64-bit key in *key, or, when it asks for raw keys
// (FI_MR_RAW), up to *rawlen bytes in raw (*rawlen set to their length, 0 otherwise)
// and the base address fi_mr_map_raw wants in *rawbase.
int mpix_ofi_mr_reg(mpix_ofi *s, void *buf, size_t len, struct fid_mr **mr, uint64_t *key,
		    uint8_t *raw, size_t *rawlen, uint64_t *rawbase)
{
	if (!s->rma)
		return -FI_ENOSYS;
	const char *where;
	void *desc;
	uint64_t want = 0;
	if (!(s->info->domain_attr->mr_mode & FI_MR_PROV_KEY))
		want = mpix_ofi_next_key(s);
	int rc = reg(s, buf, len, FI_REMOTE_READ | FI_REMOTE_WRITE, want, mr, &desc, &where);
	if (rc) {
		if (*mr) {
			fi_close(&(*mr)->fid);
			*mr = NULL;
		}
		return rc;
	}
	*key = 0;
	*rawbase = 0;
	if (s->info->domain_attr->mr_mode & FI_MR_RAW) {
		rc = fi_mr_raw_attr(*mr, rawbase, raw, rawlen, 0);
		if (rc) {
			fi_close(&(*mr)->fid);
			*mr = NULL;
		}
		return rc;
	}
	*rawlen = 0;
	*key = fi_mr_key(*mr);
	return 0;
}

int mpix_ofi_mr_close(struct fid_mr *mr)
{
	return fi_close(&mr->fid);
}

// mpix_ofi_map_raw turns a peer's raw key into one this endpoint's operations take.
int mpix_ofi_map_raw(mpix_ofi *s, uint64_t base, uint8_t *raw, size_t len, uint64_t *key)
{
	return fi_mr_map_raw(s->domain, base, raw, len, key, 0);
}

int mpix_ofi_unmap_key(mpix_ofi *s, uint64_t key)
{
	return fi_mr_unmap_key(s->domain, key);
}

// taken marks slot r, just posted towards peer, in flight.
static void taken(mpix_ofi *s, mpix_ofi_rmaop *r, int32_t peer)
{
	s->nrmafree--;
	r->busy = 1;
	r->peer = peer;
	s->rma_pending[peer]++;
	s->rma_inflight++;
}

// mpix_ofi_rma posts one fi_write (write != 0) of len bytes from buf to peer's raddr
// under key, or one fi_read into buf. The completion comes on the transmit CQ; a write
// completes once its data is in the target's memory (FI_DELIVERY_COMPLETE). It returns
// -FI_EAGAIN when no slot is free or the provider's queue is full: progress, then retry.
ssize_t mpix_ofi_rma(mpix_ofi *s, int write, int32_t peer, void *buf, size_t len, uint64_t raddr,
		     uint64_t key, int with_data, uint64_t data)
{
	if (!s->rma)
		return -FI_ENOSYS;
	if (peer < 0 || peer >= s->naddrs || s->addrs[peer] == FI_ADDR_NOTAVAIL)
		return -FI_EINVAL;
	if (s->nrmafree == 0)
		return -FI_EAGAIN;
	int32_t slot = s->rmafree[s->nrmafree - 1];
	mpix_ofi_rmaop *r = &s->rmaops[slot];
	void *desc = NULL;
	if (s->info->domain_attr->mr_mode & FI_MR_LOCAL) {
		const char *where;
		uint64_t want = 0;
		if (!(s->info->domain_attr->mr_mode & FI_MR_PROV_KEY))
			want = mpix_ofi_next_key(s);
		int rc = reg(s, buf, len, write ? FI_WRITE : FI_READ, want, &r->lmr[0], &desc, &where);
		if (rc) {
			release_local(r);
			return rc;
		}
	}
	struct iovec iov = {.iov_base = buf, .iov_len = len};
	struct fi_rma_iov rma = {.addr = raddr, .len = len, .key = key};
	struct fi_msg_rma msg = {
		.msg_iov = &iov,
		.desc = &desc,
		.iov_count = 1,
		.addr = s->addrs[peer],
		.rma_iov = &rma,
		.rma_iov_count = 1,
		.context = &r->op.ctx,
		.data = data,
	};
	uint64_t wflags = FI_COMPLETION | FI_DELIVERY_COMPLETE;
	if (with_data)
		wflags |= FI_REMOTE_CQ_DATA;
	ssize_t rc = write ? fi_writemsg(s->ep, &msg, wflags) : fi_readmsg(s->ep, &msg, FI_COMPLETION);
	if (rc) {
		release_local(r);
		return rc;
	}
	taken(s, r, peer);
	return 0;
}


// dt_size is the size of one element of libfabric datatype dt, 0 for the ones mpix
// does not map MPI types onto.
static size_t dt_size(int dt)
{
	switch (dt) {
	case FI_INT8:
	case FI_UINT8:
		return 1;
	case FI_INT16:
	case FI_UINT16:
		return 2;
	case FI_INT32:
	case FI_UINT32:
	case FI_FLOAT:
		return 4;
	case FI_INT64:
	case FI_UINT64:
	case FI_DOUBLE:
		return 8;
	}
	return 0;
}

// mpix_ofi_atomic_valid is how many elements of libfabric datatype dt one atomic of
// family kind (MPIX_OFI_ATOMIC_*) with libfabric op applies to the target's memory, 0
// when the provider does not do that combination.
size_t mpix_ofi_atomic_valid(mpix_ofi *s, int kind, int dt, int op)
{
	if (!s->atomic)
		return 0;
	size_t count = 0;
	int rc;
	switch (kind) {
	case MPIX_OFI_ATOMIC_WRITE:
		rc = fi_atomicvalid(s->ep, (enum fi_datatype)dt, (enum fi_op)op, &count);
		break;
	case MPIX_OFI_ATOMIC_FETCH:
		rc = fi_fetch_atomicvalid(s->ep, (enum fi_datatype)dt, (enum fi_op)op, &count);
		break;
	default:
		rc = fi_compare_atomicvalid(s->ep, (enum fi_datatype)dt, (enum fi_op)op, &count);
	}
	return rc ? 0 : count;
}

// mpix_ofi_atomic posts one atomic of family kind on count elements of dt at peer's
// raddr under key: buf is the operand (none for FI_ATOMIC_READ), compare the comparand
// (MPIX_OFI_ATOMIC_COMPARE), result receives the target's elements from before (FETCH
// and COMPARE). A non-fetching atomic completes once applied at the target
// (FI_DELIVERY_COMPLETE); a fetching one once its result is here, which implies it.
// It returns -FI_EAGAIN when no slot is free or the provider's queue is full.
ssize_t mpix_ofi_atomic(mpix_ofi *s, int kind, int32_t peer, const void *buf, const void *compare, void *result,
			size_t count, int dt, int op, uint64_t raddr, uint64_t key)
{
	if (!s->atomic)
		return -FI_ENOSYS;
	if (peer < 0 || peer >= s->naddrs || s->addrs[peer] == FI_ADDR_NOTAVAIL || count == 0)
		return -FI_EINVAL;
	if (s->nrmafree == 0)
		return -FI_EAGAIN;
	size_t esize = dt_size(dt);
	if (esize == 0)
		return -FI_EINVAL;
	int32_t slot = s->rmafree[s->nrmafree - 1];
	mpix_ofi_rmaop *r = &s->rmaops[slot];
	void *desc[3] = {NULL, NULL, NULL};
	const void *bufs[3] = {buf, result, compare};
	if (s->info->domain_attr->mr_mode & FI_MR_LOCAL) {
		for (int j = 0; j < 3; j++) {
			if (!bufs[j])
				continue;
			const char *where;
			uint64_t want = 0;
			if (!(s->info->domain_attr->mr_mode & FI_MR_PROV_KEY))
				want = mpix_ofi_next_key(s);
			int rc = reg(s, (void *)bufs[j], count * esize, j == 1 ? FI_READ : FI_WRITE, want, &r->lmr[j], &desc[j],
				     &where);
			if (rc) {
				release_local(r);
				return rc;
			}
		}
	}
	// FI_ATOMIC_READ takes no operand, but providers still read the iov's count.
	struct fi_ioc ioc = {.addr = (void *)buf, .count = count};
	struct fi_ioc cmp = {.addr = (void *)compare, .count = count};
	struct fi_ioc res = {.addr = result, .count = count};
	struct fi_rma_ioc rma = {.addr = raddr, .count = count, .key = key};
	struct fi_msg_atomic msg = {
		.msg_iov = &ioc,
		.desc = &desc[0],
		.iov_count = 1,
		.addr = s->addrs[peer],
		.rma_iov = &rma,
		.rma_iov_count = 1,
		.datatype = (enum fi_datatype)dt,
		.op = (enum fi_op)op,
		.context = &r->op.ctx,
	};
	ssize_t rc;
	switch (kind) {
	case MPIX_OFI_ATOMIC_WRITE:
		rc = fi_atomicmsg(s->ep, &msg, FI_COMPLETION | FI_DELIVERY_COMPLETE);
		break;
	case MPIX_OFI_ATOMIC_FETCH:
		rc = fi_fetch_atomicmsg(s->ep, &msg, &res, &desc[1], 1, FI_COMPLETION);
		break;
	default:
		rc = fi_compare_atomicmsg(s->ep, &msg, &cmp, &desc[2], 1, &res, &desc[1], 1, FI_COMPLETION);
	}
	if (rc) {
		release_local(r);
		return rc;
	}
	taken(s, r, peer);
	return 0;
}

// mpix_ofi_dom_open opens a fabric and domain for endpoints to share (refs 0: each
// endpoint opened on it counts itself; the last to close closes it).
int mpix_ofi_dom_open(struct fi_info *info, mpix_ofi_dom **out)
{
	mpix_sigguard g;
	pthread_mutex_lock(&fab_mu);
	mpix_sigguard_save(&g);
	int rc = -FI_ENOMEM;
	mpix_ofi_dom *dom = calloc(1, sizeof *dom);
	if (dom) {
		dom->next_key = 1;
		rc = fi_fabric(info->fabric_attr, &dom->fabric, NULL);
		if (!rc)
			rc = fi_domain(dom->fabric, info, &dom->domain, NULL);
		if (rc) {
			if (dom->fabric)
				fi_close(&dom->fabric->fid);
			free(dom);
			dom = NULL;
		}
	}
	*out = dom;
	mpix_sigguard_restore(&g);
	pthread_mutex_unlock(&fab_mu);
	return rc;
}

// mpix_ofi_dom_close closes a shared domain no endpoint took.
int mpix_ofi_dom_close(mpix_ofi_dom *dom)
{
	if (!dom || dom->refs)
		return 0;
	int rc = fi_close(&dom->domain->fid);
	fi_close(&dom->fabric->fid);
	free(dom);
	return rc;
}

// mpix_ofi_stx_open opens a shared transmit context on dom, for endpoints opened later
// with it; the last of them to close closes it and frees stx.
int mpix_ofi_stx_open(mpix_ofi_dom *dom, struct fi_info *info, mpix_ofi_stx *stx)
{
	mpix_sigguard g;
	pthread_mutex_lock(&fab_mu);
	mpix_sigguard_save(&g);
	memset(stx, 0, sizeof *stx);
	int rc = fi_stx_context(dom->domain, info->tx_attr, &stx->stx, NULL);
	mpix_sigguard_restore(&g);
	pthread_mutex_unlock(&fab_mu);
	return rc;
}

// mpix_ofi_stx_close closes and frees a shared transmit context that no endpoint took.
int mpix_ofi_stx_close(mpix_ofi_stx *stx)
{
	if (stx->refs)
		return 0;
	int rc = stx->stx ? fi_close(&stx->stx->fid) : 0;
	free(stx);
	return rc;
}

// mpix_ofi_scq_open opens the transmit and receive CQs that the endpoints of several
// VCIs share, on dom, large enough for all their operations.
int mpix_ofi_scq_open(mpix_ofi_dom *dom, size_t txsize, size_t rxsize, mpix_ofi_scq **out)
{
	mpix_sigguard g;
	pthread_mutex_lock(&fab_mu);
	mpix_sigguard_save(&g);
	int rc = -FI_ENOMEM;
	mpix_ofi_scq *q = calloc(1, sizeof *q);
	if (q) {
		pthread_mutex_init(&q->mu, NULL);
		struct fi_cq_attr a;
		memset(&a, 0, sizeof a);
		a.format = FI_CQ_FORMAT_DATA;
		a.wait_obj = FI_WAIT_NONE;
		a.size = txsize;
		rc = fi_cq_open(dom->domain, &a, &q->txcq, NULL);
		if (!rc) {
			a.size = rxsize;
			rc = fi_cq_open(dom->domain, &a, &q->rxcq, NULL);
		}
		if (rc) {
			if (q->txcq)
				fi_close(&q->txcq->fid);
			pthread_mutex_destroy(&q->mu);
			free(q);
			q = NULL;
		}
	}
	*out = q;
	mpix_sigguard_restore(&g);
	pthread_mutex_unlock(&fab_mu);
	return rc;
}

// mpix_ofi_scq_close closes shared CQs no endpoint took.
int mpix_ofi_scq_close(mpix_ofi_scq *q)
{
	if (!q || q->refs)
		return 0;
	int rc = fi_close(&q->rxcq->fid);
	fi_close(&q->txcq->fid);
	pthread_mutex_destroy(&q->mu);
	free(q);
	return rc;
}
