/* Helpers for the point-to-point tests: deterministic data patterns. */
#ifndef P2P_UTIL_H
#define P2P_UTIL_H
#include "mpix_test.h"

static inline unsigned char pat(long i, int seed) { return (unsigned char)(i * 131 + seed * 17 + 1); }

static inline void fill(unsigned char *b, long n, int seed)
{
    for (long i = 0; i < n; i++)
        b[i] = pat(i, seed);
}

/* check returns the first wrong index, or -1. */
static inline long check(const unsigned char *b, long n, int seed)
{
    for (long i = 0; i < n; i++)
        if (b[i] != pat(i, seed))
            return i;
    return -1;
}
#endif
