/* The C view of a VCI: the page a VCI shares with C fast paths (vci.Shared in
 * shared.go mirrors it; layout.go checks that both agree) and its lock, the same
 * algorithm as Go's Shared.Lock so that Go and C serialize on one word. Included by
 * every C data plane that works on a VCI (shm's fast path, threadcomm). */
#ifndef MPIX_VCI_H
#define MPIX_VCI_H

#include <linux/futex.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

/* vci.Shared: a VCI's lock and what the Go side holds. */
typedef struct mpix_vci_shared {
    uint32_t lock;       /* 0 free, 1 held, 2 held with sleepers (futex) */
    uint32_t idle;       /* MPIX_IDLE_* bits, written under lock */
    uint64_t locks;      /* acquisitions, counted under lock */
    uint32_t spin_limit; /* empty polls before a C wait hands over to Go */
    uint32_t owned;      /* 1: a single-thread communicator owns the VCI: no lock */
    uintptr_t shm;       /* mpix_shm_view *, or 0 */
    uint64_t fast_msgs;  /* messages sent or received here without Go, under lock */
    uint32_t index;      /* the VCI's index in the process (lite request handles) */
    uint32_t pad0;
    uintptr_t lite;      /* mpix_vci_lite *, made by C on first use, under lock; or 0 */
    char pad1[8];
} mpix_vci_shared;

#define MPIX_IDLE_RECV 1u /* no receive posted and no unmatched message in Go */
#define MPIX_IDLE_SEND 2u /* no send queued in Go */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* mpix_vci_lock is Go's Shared.Lock: a compare-and-swap when free, a short spin, then
 * a futex sleep with the word at 2 so that unlock knows to wake. */
static inline void mpix_vci_lock(mpix_vci_shared *v)
{
    uint32_t zero = 0;
    if (__atomic_compare_exchange_n(&v->lock, &zero, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return;
    for (int i = 0; i < 100; i++) {
        zero = 0;
        if (__atomic_load_n(&v->lock, __ATOMIC_RELAXED) == 0 &&
            __atomic_compare_exchange_n(&v->lock, &zero, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return;
        cpu_relax();
    }
    while (__atomic_exchange_n(&v->lock, 2, __ATOMIC_ACQUIRE) != 0)
        syscall(SYS_futex, &v->lock, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
}

static inline void mpix_vci_unlock(mpix_vci_shared *v)
{
    if (__atomic_exchange_n(&v->lock, 0, __ATOMIC_RELEASE) == 2)
        syscall(SYS_futex, &v->lock, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

#endif
