/* Helpers shared by bench/rma.c and bench/rmaext.c (each program is one .c file that
 * bench/driver compiles on its own; this header sits beside them). */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* iterations is the size's base count (proportionally fewer above 4 KiB) cut to what
 * fits the budget at per seconds a unit, and at least least. */
static inline long iterations(long size, long base, double per, double budget, long least)
{
    long it = size <= 4096 ? base : base * 4096 / size;
    if (per > 0 && budget / per < it)
        it = (long)(budget / per);
    return it < least ? least : it;
}

/* median sorts the n values of v and returns their median. */
static inline double median(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double x = v[j];
            v[j] = v[j - 1], v[j - 1] = x;
        }
    return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* human writes a size as the summary shows sizes ("8 B", "4 KiB", "1 MiB"). */
static inline const char *human(long size, char *out)
{
    if (size >= 1 << 20)
        sprintf(out, "%ld MiB", size >> 20);
    else if (size >= 1 << 10)
        sprintf(out, "%ld KiB", size >> 10);
    else
        sprintf(out, "%ld B", size);
    return out;
}

/* row prints a result line and flushes it at once. */
static inline void row(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    fflush(stdout);
    va_end(ap);
}

/* note_from prints a "note ..." line from rank 0: bench/driver shows it under the
 * table. The programs call it as note(...), with their rank. */
static inline void note_from(int rank, const char *fmt, ...)
{
    va_list ap;
    if (rank != 0)
        return;
    va_start(ap, fmt);
    printf("note ");
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
    va_end(ap);
}

/* parse_ints reads a comma-separated list of integers in [1, maxval] into out (at most
 * max of them) and returns how many, or 0 when the list is empty or malformed. */
static inline int parse_ints(const char *s, int *out, int max, long maxval)
{
    int n = 0;
    while (*s && n < max) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > maxval || (*end && *end != ','))
            return 0;
        out[n++] = (int)v;
        s = *end == ',' ? end + 1 : end;
    }
    return n;
}

#endif
