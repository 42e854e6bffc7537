/* strings.c -- Fortran CHARACTER arguments: blank-padded, with a hidden length, no
 * NUL. Input strings are trimmed copies; output strings are written by C into a
 * temporary and copied back blank-padded to the caller's length. */
#include <string.h>
#include "mpixf.h"

static char *copy(const char *f, size_t n)
{
    char *c = malloc(n + 1);
    if (c == NULL)
        return NULL;
    if (n > 0)
        memcpy(c, f, n);
    c[n] = '\0';
    return c;
}

char *mpixf_cstr(const char *f, size_t flen)
{
    if (f == NULL)
        return NULL;
    while (flen > 0 && f[flen - 1] == ' ')
        flen--;
    return copy(f, flen);
}

char *mpixf_cstr_info(const char *f, size_t flen)
{
    if (f == NULL)
        return NULL;
    while (flen > 0 && *f == ' ') {
        f++;
        flen--;
    }
    return mpixf_cstr(f, flen);
}

char *mpixf_obuf(size_t flen, size_t extra)
{
    char *c = calloc(flen + extra + 1, 1);
    return c;
}

void mpixf_fstr(char *c, char *f, size_t flen)
{
    if (c == NULL)
        return;
    size_t n = strnlen(c, flen);
    if (f != NULL) {
        memcpy(f, c, n);
        memset(f + n, ' ', flen - n);
    }
    free(c);
}

void mpixf_fstr_if(int copy, char *c, char *f, size_t flen)
{
    if (copy)
        mpixf_fstr(c, f, flen);
    else
        free(c);
}
