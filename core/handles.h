/* The request handles' kinds, for the C paths: which part of the library made a
 * request, told by the handle's top bits, so that C can route a Wait or Test without
 * entering Go. MPICH's encoding (core/handle.go): bits 30-31 say builtin (01) or user
 * object (10), bits 26-29 the object kind (0xb: request). The Go side of this table
 * is core/handle.go (RequestKindOf); the two are compared at load time (core.FastLayout,
 * shm.CheckLayout), and a mismatch turns the C paths off with a message. */
#ifndef MPIX_CORE_HANDLES_H
#define MPIX_CORE_HANDLES_H

#include <stdint.h>

#define MPIX_REQ_KIND_MASK 0xfc000000u /* object type and kind */
#define MPIX_REQ_GO 0xac000000u        /* a Go request (core/request.go) */
#define MPIX_REQ_THREADCOMM 0xec000000u /* threadcomm/request.c: type bits 11 */
/* The pre-completed send (core.CompletedSend): what MPI_Isend returns for a send that
 * completed at once; no table holds it and nothing frees it. */
#define MPIX_REQUEST_COMPLETED_SEND ((MPI_Request)0x6c000001)
/* Lite requests (shm/lite.c): MPIX_LITE_TAG | VCI index << 12 | slot, in the builtin
 * range, which no table holds. */
#define MPIX_LITE_TAG 0x6e000000u
#define MPIX_LITE_MASK 0xfe000000u

enum mpix_request_kind {
    MPIX_REQKIND_OTHER,          /* MPI_REQUEST_NULL or not a request */
    MPIX_REQKIND_GO,
    MPIX_REQKIND_THREADCOMM,
    MPIX_REQKIND_LITE,
    MPIX_REQKIND_COMPLETED_SEND,
};

static inline enum mpix_request_kind mpix_request_kind(uint32_t h)
{
    if ((h & MPIX_REQ_KIND_MASK) == MPIX_REQ_GO)
        return MPIX_REQKIND_GO;
    if ((h & MPIX_REQ_KIND_MASK) == MPIX_REQ_THREADCOMM)
        return MPIX_REQKIND_THREADCOMM;
    if ((h & MPIX_LITE_MASK) == MPIX_LITE_TAG)
        return MPIX_REQKIND_LITE;
    if (h == (uint32_t)MPIX_REQUEST_COMPLETED_SEND)
        return MPIX_REQKIND_COMPLETED_SEND;
    return MPIX_REQKIND_OTHER;
}

#endif
