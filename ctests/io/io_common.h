/* Helpers of the MPI-IO tests: a file name every rank agrees on, under $TMPDIR (or
 * the working directory), and plain POSIX reads of what the library wrote. */
#ifndef IO_COMMON_H
#define IO_COMMON_H
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mpix_test.h"

/* io_name fills name with "<dir>/mpix-io-<tag>-<pid of rank 0>", the same at every
 * rank of comm. */
static inline void io_name(char *name, size_t len, const char *tag, MPI_Comm comm)
{
    int pid = (int)getpid();
    MPI_Bcast(&pid, 1, MPI_INT, 0, comm);
    const char *dir = getenv("TMPDIR");
    if (dir == NULL || *dir == 0)
        dir = ".";
    snprintf(name, len, "%s/mpix-io-%s-%d", dir, tag, pid);
}

/* io_slurp reads the whole file with POSIX and returns its size (-1 if missing). */
static inline long io_slurp(const char *name, unsigned char *buf, long cap)
{
    int fd = open(name, O_RDONLY);
    if (fd < 0)
        return -1;
    long n = 0;
    for (;;) {
        ssize_t r = read(fd, buf + n, cap - n);
        if (r <= 0)
            break;
        n += r;
    }
    close(fd);
    return n;
}

static inline int io_exists(const char *name)
{
    struct stat st;
    return stat(name, &st) == 0;
}
#endif
