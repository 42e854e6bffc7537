/* The C side of ring.go's bounded multi-producer queue, which C's cell path (lite.c)
 * uses on the same shared memory as Go. */
#ifndef MPIX_SHM_RING_H
#define MPIX_SHM_RING_H

#include <stdint.h>
#include "fastabi.h"

/* The rings of ring.go (Vyukov's bounded queue, one consumer): pushes claim a
 * position by compare-and-swap on the shared tail and publish it with the slot's
 * sequence number; the consumer, under the VCI lock, takes the head. */
static inline int ring_push(uint64_t *tail, mpix_ring_slot *slots, uint64_t mask, uint64_t v)
{
    uint64_t pos = __atomic_load_n(tail, __ATOMIC_SEQ_CST);
    for (;;) {
        mpix_ring_slot *s = &slots[pos & mask];
        int64_t d = (int64_t)(__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) - pos);
        if (d == 0) {
            if (__atomic_compare_exchange_n(tail, &pos, pos + 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
                s->val = v;
                __atomic_store_n(&s->seq, pos + 1, __ATOMIC_RELEASE); /* publish */
                return 1;
            }
        } else if (d < 0) {
            return 0; /* full */
        } else {
            uint64_t next = __atomic_load_n(tail, __ATOMIC_SEQ_CST);
            if (next == pos)
                return 0; /* corrupt */
            pos = next;
        }
    }
}

static inline int ring_peek(const mpix_ring_slot *slots, uint64_t mask, uint64_t head, uint64_t *v)
{
    const mpix_ring_slot *s = &slots[head & mask];
    if (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != head + 1)
        return 0;
    *v = s->val;
    return 1;
}

static inline void ring_advance(mpix_ring_slot *slots, uint64_t mask, uint64_t *head)
{
    uint64_t h = *head;
    __atomic_store_n(&slots[h & mask].seq, h + mask + 1, __ATOMIC_RELEASE); /* the slot's next lap */
    *head = h + 1;
}

#endif
