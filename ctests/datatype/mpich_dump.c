/* mpich_dump: prints what the datatype queries and the pack engine report for a
 * battery of types: bounds, envelopes and contents, packed and external32 bytes,
 * counts from statuses. compare_mpich.sh builds it with MPICH's mpicc and diffs its
 * output under MPICH and under mpix, so mpix matches MPICH wherever MPICH follows the
 * standard (the cases where MPICH 4.0 is wrong or crashes are left out). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

static unsigned char src[4096];
static int no_elements; /* MPICH 4.0's MPI_Get_elements crashes on structs, darrays... */
static int no_true_bounds; /* ...and counts empty blocks in some darrays' true bounds */

static int is_predefined(MPI_Datatype t)
{
    int ni, na, nd, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    return comb == MPI_COMBINER_NAMED;
}

static void show_contents(MPI_Datatype t, int depth)
{
    int ni, na, nd, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    printf("%*scombiner %d ints", depth * 2, "", comb);
    if (comb == MPI_COMBINER_NAMED) {
        printf(" (named 0x%x)\n", (unsigned)t);
        return;
    }
    int *ints = malloc(sizeof(int) * (ni + 1));
    MPI_Aint *addrs = malloc(sizeof(MPI_Aint) * (na + 1));
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (nd + 1));
    MPI_Type_get_contents(t, ni, na, nd, ints, addrs, types);
    for (int i = 0; i < ni; i++)
        printf(" %d", ints[i]);
    printf(" addrs");
    for (int i = 0; i < na; i++)
        printf(" %ld", (long)addrs[i]);
    printf("\n");
    for (int i = 0; i < nd; i++) {
        show_contents(types[i], depth + 1);
        if (!is_predefined(types[i]))
            MPI_Type_free(&types[i]);
    }
    free(ints);
    free(addrs);
    free(types);
}

/* show prints one type; origin is where in src the type map starts. */
static void show(const char *name, MPI_Datatype t, int count, int origin)
{
    int size;
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_commit(&t);
    MPI_Type_size(t, &size);
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Type_get_true_extent(t, &tlb, &text);
    if (no_true_bounds)
        tlb = text = -1;
    printf("== %s: size %d lb %ld extent %ld true_lb %ld true_extent %ld\n", name, size, (long)lb, (long)ext,
           (long)tlb, (long)text);
    show_contents(t, 1);
    int psize;
    MPI_Pack_size(count, t, MPI_COMM_WORLD, &psize);
    unsigned char *out = calloc(psize + 1, 1);
    int pos = 0;
    MPI_Pack(src + origin, count, t, out, psize, &pos, MPI_COMM_WORLD);
    printf("  packed %d:", pos);
    for (int i = 0; i < pos; i++)
        printf("%02x", out[i]);
    printf("\n");
    /* unpack into a clean buffer and print the checksum of where it landed */
    unsigned char *dst = calloc(sizeof src, 1);
    pos = 0;
    MPI_Unpack(out, psize, &pos, dst + origin, count, t, MPI_COMM_WORLD);
    unsigned long sum = 0;
    for (size_t i = 0; i < sizeof src; i++)
        sum = sum * 31 + dst[i];
    printf("  unpacked sum %lx\n", sum);
    /* counts from statuses: whole elements, and every basic element boundary of the first */
    MPI_Status st;
    int n, e;
    MPI_Status_set_elements(&st, MPI_BYTE, psize);
    MPI_Get_count(&st, t, &n);
    e = -1;
    if (!no_elements)
        MPI_Get_elements(&st, t, &e);
    printf("  count %d elements %d\n", n, e);
    free(out);
    free(dst);
}

static void show_ext32(const char *name, MPI_Datatype t, int count, int origin)
{
    MPI_Aint size, pos = 0;
    MPI_Type_commit(&t);
    MPI_Pack_external_size("external32", count, t, &size);
    unsigned char *out = calloc(size + 1, 1);
    MPI_Pack_external("external32", src + origin, count, t, out, size, &pos);
    printf("== %s external32 %ld:", name, (long)pos);
    for (int i = 0; i < pos; i++)
        printf("%02x", out[i]);
    printf("\n");
    free(out);
}

int main(int argc, char **argv)
{
    MPI_Datatype t, u, v, w;
    char name[64];
    MPI_Init(&argc, &argv);
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (unsigned char)(i * 7 + 3);

    MPI_Type_contiguous(3, MPI_INT, &t);
    show("contiguous", t, 2, 0);
    MPI_Type_vector(3, 2, 4, MPI_INT, &v);
    show("vector", v, 2, 0);
    MPI_Type_vector(3, 1, -2, MPI_DOUBLE, &t);
    show("vector negative stride", t, 2, 512);
    MPI_Type_create_hvector(2, 3, 7, MPI_SHORT, &t);
    show("hvector", t, 3, 0);
    MPI_Type_indexed(3, (int[]){2, 1, 3}, (int[]){4, -3, -1}, MPI_INT, &t);
    show("indexed", t, 2, 512);
    MPI_Type_create_hindexed(2, (int[]){1, 2}, (MPI_Aint[]){40, -9}, MPI_INT, &t);
    show("hindexed", t, 2, 512);
    MPI_Type_create_indexed_block(3, 2, (int[]){5, 0, 2}, MPI_SHORT, &t);
    show("indexed_block", t, 2, 0);
    MPI_Type_create_hindexed_block(2, 2, (MPI_Aint[]){3, 30}, MPI_CHAR, &t);
    show("hindexed_block", t, 2, 0);
    MPI_Type_create_resized(v, -8, 64, &w);
    show("resized vector", w, 3, 512);
    MPI_Type_create_resized(MPI_DOUBLE, 0, -8, &t);
    MPI_Type_contiguous(3, t, &u);
    show("contiguous of negative extent", u, 1, 512);
    MPI_Type_dup(w, &t);
    show("dup", t, 2, 512);

    /* structs: padding as MPICH does it */
    no_elements = 1;
    struct { int bl; MPI_Aint d; MPI_Datatype t; } s[][3] = {
        {{1, 0, MPI_DOUBLE}, {1, 8, MPI_CHAR}, {0, 0, 0}},
        {{1, 0, MPI_INT}, {1, 5, MPI_INT}, {0, 0, 0}},
        {{1, 0, MPI_INT}, {1, 5, MPI_CHAR}, {0, 0, 0}},
        {{1, 0, MPI_INT}, {2, 5, MPI_INT}, {1, 20, MPI_CHAR}},
        {{1, 0, MPI_INT}, {1, 5, MPI_INT}, {0, 20, MPI_CHAR}},
        {{1, 0, MPI_INT}, {1, 5, MPI_INT32_T}, {0, 0, 0}},
        {{1, 0, MPI_INT}, {1, 5, MPI_FLOAT}, {0, 0, 0}},
        {{1, 0, MPI_LONG_DOUBLE}, {1, 16, MPI_CHAR}, {0, 0, 0}},
        {{1, 0, MPI_C_DOUBLE_COMPLEX}, {1, 16, MPI_CHAR}, {0, 0, 0}},
        {{1, 0, MPI_C_FLOAT_COMPLEX}, {1, 8, MPI_CHAR}, {0, 0, 0}},
        {{1, 0, MPI_DOUBLE_INT}, {1, 16, MPI_CHAR}, {0, 0, 0}},
        {{1, -8, MPI_DOUBLE}, {1, 0, MPI_CHAR}, {0, 0, 0}},
        {{1, 3, MPI_DOUBLE}, {1, 11, MPI_CHAR}, {0, 0, 0}},
        {{0, 0, MPI_DOUBLE}, {1, 8, MPI_CHAR}, {0, 0, 0}},
        {{2, 0, MPI_SHORT}, {1, 6, MPI_DOUBLE}, {3, 16, MPI_CHAR}},
    };
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        int n = s[i][2].t ? 3 : 2;
        int bl[3] = {s[i][0].bl, s[i][1].bl, s[i][2].bl};
        MPI_Aint d[3] = {s[i][0].d, s[i][1].d, s[i][2].d};
        MPI_Datatype ty[3] = {s[i][0].t, s[i][1].t, s[i][2].t};
        MPI_Type_create_struct(n, bl, d, ty, &t);
        snprintf(name, sizeof name, "struct %zu", i);
        show(name, t, 2, 512);
    }
    {
        MPI_Datatype c2, dupi, v1, v2, ri, r16, r5;
        MPI_Type_contiguous(2, MPI_INT, &c2);
        MPI_Type_dup(MPI_INT, &dupi);
        MPI_Type_vector(2, 1, 2, MPI_INT, &v1);
        MPI_Type_vector(2, 1, 2, MPI_INT, &v2);
        MPI_Type_create_resized(MPI_INT, 0, 4, &ri);
        MPI_Type_create_resized(MPI_INT, 0, 16, &r16);
        MPI_Type_create_resized(MPI_INT, 0, 5, &r5);
        MPI_Datatype pairs[][2] = {{c2, MPI_INT}, {MPI_INT, dupi}, {v1, v2}, {v1, v1}, {MPI_INT, ri}, {r16, MPI_DOUBLE},
                                   {r5, MPI_CHAR}};
        MPI_Aint offs[] = {9, 5, 13, 13, 5, 100, 5};
        for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
            MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, offs[i]}, pairs[i], &t);
            snprintf(name, sizeof name, "struct of derived %zu", i);
            show(name, t, 2, 0);
        }
        MPI_Type_struct(3, (int[]){1, 1, 1}, (MPI_Aint[]){-4, 0, 20}, (MPI_Datatype[]){MPI_LB, MPI_INT, MPI_UB}, &t);
        show("MPI_Type_struct LB UB", t, 2, 512);
        MPI_Type_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 3}, (MPI_Datatype[]){MPI_DOUBLE, MPI_UB}, &t);
        show("MPI_Type_struct UB inside", t, 2, 512);
    }
    /* nested: vector of struct of indexed, resized with gaps on both sides */
    MPI_Type_indexed(3, (int[]){2, 1, 3}, (int[]){4, -3, -1}, MPI_INT, &t);
    MPI_Type_create_struct(3, (int[]){1, 2, 1}, (MPI_Aint[]){-24, 8, 40}, (MPI_Datatype[]){t, MPI_DOUBLE, MPI_CHAR}, &u);
    MPI_Type_create_resized(u, -40, 96, &w);
    MPI_Type_vector(3, 2, -3, w, &t);
    show("nested", t, 1, 2048);

    /* subarrays */
    for (int order = MPI_ORDER_C; order <= MPI_ORDER_FORTRAN; order++) {
        int sizes[3] = {4, 5, 3}, subs[3] = {2, 3, 2}, starts[3] = {1, 2, 1};
        for (int nd = 1; nd <= 3; nd++) {
            MPI_Type_create_subarray(nd, sizes, subs, starts, order, MPI_INT, &t);
            snprintf(name, sizeof name, "subarray order %d ndims %d", order, nd);
            show(name, t, 2, 0);
        }
        MPI_Type_create_subarray(2, sizes, subs, starts, order, w, &t);
        snprintf(name, sizeof name, "subarray of resized, order %d", order);
        show(name, t, 1, 2048);
    }
    /* darrays over several grids */
    int gs[3] = {7, 5, 4};
    int dists[4][3] = {{MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE},
                       {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
                       {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK},
                       {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC}};
    int dargs[4][3] = {{MPI_DISTRIBUTE_DFLT_DARG, 2, MPI_DISTRIBUTE_DFLT_DARG},
                       {MPI_DISTRIBUTE_DFLT_DARG, 3, 3},
                       {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG, 2},
                       {4, MPI_DISTRIBUTE_DFLT_DARG, 1}};
    int ps[4][3] = {{2, 2, 1}, {3, 2, 2}, {1, 3, 2}, {2, 1, 3}};
    no_true_bounds = 1;
    for (int k = 0; k < 4; k++)
        for (int order = MPI_ORDER_C; order <= MPI_ORDER_FORTRAN; order++) {
            int size = ps[k][0] * ps[k][1] * ps[k][2];
            for (int rank = 0; rank < size; rank++) {
                MPI_Type_create_darray(size, rank, 3, gs, dists[k], dargs[k], ps[k], order, MPI_DOUBLE, &t);
                snprintf(name, sizeof name, "darray %d order %d rank %d", k, order, rank);
                show(name, t, 1, 0);
            }
        }
    /* external32 of basic types MPICH converts correctly */
    MPI_Datatype ext[] = {MPI_CHAR, MPI_SHORT, MPI_INT, MPI_LONG, MPI_UNSIGNED_LONG, MPI_LONG_LONG, MPI_FLOAT, MPI_DOUBLE,
                          MPI_C_BOOL, MPI_AINT, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX, MPI_INTEGER,
                          MPI_REAL8, MPI_INT16_T, MPI_UINT64_T};
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
        snprintf(name, sizeof name, "basic %zu", i);
        show_ext32(name, ext[i], 3, 64);
    }
    show_ext32("vector", v, 2, 0);
    MPI_Finalize();
    return 0;
}
