/* constructors: every datatype constructor (int, large-count and MPI-1 forms) gives the
 * size, bounds and true bounds MPI-4.1 defines, records its exact arguments for
 * MPI_Type_get_envelope/get_contents(_c), and rejects bad arguments with MPICH's error
 * classes. Also dup, resized, names, commit and free with reference counting. */
#include <stdint.h>
#include "mpix_test.h"

/* expect checks size, lb, extent, true lb and true extent. */
static void expect(const char *what, MPI_Datatype t, int size, MPI_Aint lb, MPI_Aint ext, MPI_Aint tlb, MPI_Aint text)
{
    int s;
    MPI_Aint l, e, tl, te;
    CHECK_OK(MPI_Type_size(t, &s));
    CHECK_OK(MPI_Type_get_extent(t, &l, &e));
    CHECK_OK(MPI_Type_get_true_extent(t, &tl, &te));
    CHECK(s == size && l == lb && e == ext && tl == tlb && te == text,
          "%s: size %d lb %ld extent %ld true %ld+%ld; want %d %ld %ld %ld+%ld", what, s, (long)l, (long)e,
          (long)tl, (long)te, size, (long)lb, (long)ext, (long)tlb, (long)text);
}

/* envelope checks the int envelope and returns the contents in the given arrays. */
static void envelope(const char *what, MPI_Datatype t, int comb, int ni, int na, int nd, int *ints, MPI_Aint *addrs,
                     MPI_Datatype *types)
{
    int gi, ga, gd, gc;
    CHECK_OK(MPI_Type_get_envelope(t, &gi, &ga, &gd, &gc));
    CHECK(gc == comb && gi == ni && ga == na && gd == nd, "%s: envelope %d %d %d combiner %d", what, gi, ga, gd, gc);
    CHECK_OK(MPI_Type_get_contents(t, ni, na, nd, ints, addrs, types));
    MPI_Count ci, ca, cl, cd;
    CHECK_OK(MPI_Type_get_envelope_c(t, &ci, &ca, &cl, &cd, &gc));
    CHECK(gc == comb && ci == ni && ca == na && cl == 0 && cd == nd, "%s: envelope_c", what);
}

/* envelope_c checks a large-count type: the int queries refuse it. */
static void envelope_c(const char *what, MPI_Datatype t, int comb, MPI_Count ni, MPI_Count nl, MPI_Count nd, int *ints,
                       MPI_Count *counts, MPI_Datatype *types)
{
    MPI_Count ci, ca, cl, cd;
    int gc, x;
    CHECK_OK(MPI_Type_get_envelope_c(t, &ci, &ca, &cl, &cd, &gc));
    CHECK(gc == comb && ci == ni && ca == 0 && cl == nl && cd == nd, "%s: envelope_c %ld %ld %ld %ld combiner %d", what,
          (long)ci, (long)ca, (long)cl, (long)cd, gc);
    CHECK_OK(MPI_Type_get_contents_c(t, ni, 0, nl, nd, ints, NULL, counts, types));
    CHECK_CLASS(MPI_Type_get_envelope(t, &x, &x, &x, &x), MPI_ERR_VALUE_TOO_LARGE);
    CHECK_CLASS(MPI_Type_get_contents(t, 100, 100, 100, ints, NULL, types), MPI_ERR_VALUE_TOO_LARGE);
}

#define SAME(a, b, n, what)                                                     \
    do {                                                                        \
        for (int i_ = 0; i_ < (n); i_++)                                        \
            CHECK((a)[i_] == (b)[i_], "%s: entry %d is %ld, want %ld", what, i_, \
                  (long)(a)[i_], (long)(b)[i_]);                                \
    } while (0)

int main(int argc, char **argv)
{
    MPI_Datatype t, t2, types[8];
    int ints[32];
    MPI_Aint addrs[8];
    MPI_Count counts[32];

    CHECK_OK(MPI_Init(&argc, &argv));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    /* contiguous */
    CHECK_OK(MPI_Type_contiguous(3, MPI_INT, &t));
    expect("contiguous", t, 12, 0, 12, 0, 12);
    envelope("contiguous", t, MPI_COMBINER_CONTIGUOUS, 1, 0, 1, ints, addrs, types);
    CHECK(ints[0] == 3 && types[0] == MPI_INT, "contiguous contents");
    CHECK_OK(MPI_Type_free(&t));
    CHECK(t == MPI_DATATYPE_NULL, "free sets MPI_DATATYPE_NULL");
    CHECK_OK(MPI_Type_contiguous_c((MPI_Count)3, MPI_DOUBLE, &t));
    expect("contiguous_c", t, 24, 0, 24, 0, 24);
    envelope_c("contiguous_c", t, MPI_COMBINER_CONTIGUOUS, 0, 1, 1, ints, counts, types);
    CHECK(counts[0] == 3 && types[0] == MPI_DOUBLE, "contiguous_c contents");
    CHECK_OK(MPI_Type_free(&t));

    /* vector and hvector, negative strides */
    CHECK_OK(MPI_Type_vector(3, 2, 4, MPI_INT, &t));
    expect("vector", t, 24, 0, 40, 0, 40);
    envelope("vector", t, MPI_COMBINER_VECTOR, 3, 0, 1, ints, addrs, types);
    CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 4 && types[0] == MPI_INT, "vector contents");
    CHECK_OK(MPI_Type_free(&t));
    CHECK_OK(MPI_Type_vector_c(3, 1, -2, MPI_INT, &t));
    expect("vector_c", t, 12, -16, 20, -16, 20);
    envelope_c("vector_c", t, MPI_COMBINER_VECTOR, 0, 3, 1, ints, counts, types);
    CHECK(counts[0] == 3 && counts[1] == 1 && counts[2] == -2, "vector_c contents");
    CHECK_OK(MPI_Type_free(&t));
    CHECK_OK(MPI_Type_create_hvector(2, 1, -5, MPI_INT, &t));
    expect("hvector", t, 8, -5, 9, -5, 9);
    envelope("hvector", t, MPI_COMBINER_HVECTOR, 2, 1, 1, ints, addrs, types);
    CHECK(ints[0] == 2 && ints[1] == 1 && addrs[0] == -5, "hvector contents");
    CHECK_OK(MPI_Type_free(&t));
    CHECK_OK(MPI_Type_create_hvector_c(2, 3, 100, MPI_CHAR, &t));
    expect("hvector_c", t, 6, 0, 103, 0, 103);
    envelope_c("hvector_c", t, MPI_COMBINER_HVECTOR, 0, 3, 1, ints, counts, types);
    CHECK(counts[2] == 100, "hvector_c stride");
    CHECK_OK(MPI_Type_free(&t));
    CHECK_OK(MPI_Type_hvector(2, 1, 16, MPI_DOUBLE, &t)); /* MPI-1 name */
    expect("MPI_Type_hvector", t, 16, 0, 24, 0, 24);
    envelope("MPI_Type_hvector", t, MPI_COMBINER_HVECTOR, 2, 1, 1, ints, addrs, types);
    CHECK_OK(MPI_Type_free(&t));

    /* indexed family, negative displacements */
    {
        int bl[2] = {2, 1}, d[2] = {3, -1};
        MPI_Aint ad[2] = {0, 5};
        MPI_Count cbl[2] = {1, 2}, cd[2] = {8, 0};
        CHECK_OK(MPI_Type_indexed(2, bl, d, MPI_INT, &t));
        expect("indexed", t, 12, -4, 24, -4, 24);
        envelope("indexed", t, MPI_COMBINER_INDEXED, 5, 0, 1, ints, addrs, types);
        int want[5] = {2, 2, 1, 3, -1};
        SAME(ints, want, 5, "indexed contents");
        CHECK_OK(MPI_Type_free(&t));
        CHECK_OK(MPI_Type_indexed_c(2, cbl, cd, MPI_INT, &t));
        expect("indexed_c", t, 12, 0, 36, 0, 36);
        envelope_c("indexed_c", t, MPI_COMBINER_INDEXED, 0, 5, 1, ints, counts, types);
        MPI_Count wantc[5] = {2, 1, 2, 8, 0};
        SAME(counts, wantc, 5, "indexed_c contents");
        CHECK_OK(MPI_Type_free(&t));
        CHECK_OK(MPI_Type_create_hindexed(2, (int[]){1, 1}, ad, MPI_INT, &t));
        expect("hindexed", t, 8, 0, 9, 0, 9);
        envelope("hindexed", t, MPI_COMBINER_HINDEXED, 3, 2, 1, ints, addrs, types);
        CHECK(ints[0] == 2 && addrs[1] == 5, "hindexed contents");
        CHECK_OK(MPI_Type_free(&t));
        CHECK_OK(MPI_Type_hindexed(2, (int[]){1, 1}, ad, MPI_INT, &t)); /* MPI-1 name */
        expect("MPI_Type_hindexed", t, 8, 0, 9, 0, 9);
        CHECK_OK(MPI_Type_free(&t));
        CHECK_OK(MPI_Type_create_hindexed_c(2, cbl, cd, MPI_INT, &t));
        expect("hindexed_c", t, 12, 0, 12, 0, 12);
        envelope_c("hindexed_c", t, MPI_COMBINER_HINDEXED, 0, 5, 1, ints, counts, types);
        CHECK_OK(MPI_Type_free(&t));
        CHECK_OK(MPI_Type_create_indexed_block(3, 2, (int[]){0, 4, -3}, MPI_SHORT, &t));
        expect("indexed_block", t, 12, -6, 18, -6, 18);
        envelope("indexed_block", t, MPI_COMBINER_INDEXED_BLOCK, 5, 0, 1, ints, addrs, types);
        CHECK(ints[0] == 3 && ints[1] == 2 && ints[4] == -3, "indexed_block contents");
        CHECK_OK(MPI_Type_free(&t));
        CHECK_OK(MPI_Type_create_indexed_block_c(1, 1, (MPI_Count[]){1}, MPI_SHORT, &t));
        expect("indexed_block_c", t, 2, 2, 2, 2, 2);
        envelope_c("indexed_block_c", t, MPI_COMBINER_INDEXED_BLOCK, 0, 3, 1, ints, counts, types);
        CHECK_OK(MPI_Type_free(&t));
        CHECK_OK(MPI_Type_create_hindexed_block(2, 1, ad, MPI_INT, &t));
        expect("hindexed_block", t, 8, 0, 9, 0, 9);
        envelope("hindexed_block", t, MPI_COMBINER_HINDEXED_BLOCK, 2, 2, 1, ints, addrs, types);
        CHECK_OK(MPI_Type_free(&t));
        CHECK_OK(MPI_Type_create_hindexed_block_c(1, 2, (MPI_Count[]){-8}, MPI_INT, &t));
        expect("hindexed_block_c", t, 8, -8, 8, -8, 8);
        envelope_c("hindexed_block_c", t, MPI_COMBINER_HINDEXED_BLOCK, 0, 3, 1, ints, counts, types);
        CHECK(counts[2] == -8, "hindexed_block_c contents");
        CHECK_OK(MPI_Type_free(&t));
    }

    /* struct: C struct padding, markers, zero blocks */
    {
        struct { double d; char c; } s;
        MPI_Aint base, ad[3];
        MPI_Get_address(&s, &base);
        MPI_Get_address(&s.c, &ad[1]);
        ad[0] = 0;
        ad[1] = MPI_Aint_diff(ad[1], base);
        CHECK(ad[1] == 8, "offsetof c = %ld", (long)ad[1]);
        CHECK_OK(MPI_Type_create_struct(2, (int[]){1, 1}, ad, (MPI_Datatype[]){MPI_DOUBLE, MPI_CHAR}, &t));
        expect("struct", t, 9, 0, (MPI_Aint)sizeof s, 0, 9);
        envelope("struct", t, MPI_COMBINER_STRUCT, 3, 2, 2, ints, addrs, types);
        CHECK(types[0] == MPI_DOUBLE && types[1] == MPI_CHAR && addrs[1] == 8, "struct contents");
        CHECK_OK(MPI_Type_free(&t));
        CHECK_OK(MPI_Type_struct(3, (int[]){1, 1, 1}, (MPI_Aint[]){-4, 0, 20}, (MPI_Datatype[]){MPI_LB, MPI_INT, MPI_UB}, &t));
        expect("MPI_Type_struct LB/UB", t, 4, -4, 24, 0, 4);
        CHECK_OK(MPI_Type_free(&t));
        CHECK_OK(MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 5}, (MPI_Datatype[]){MPI_INT, MPI_INT}, &t));
        expect("struct of one type", t, 8, 0, 9, 0, 9); /* not padded, as MPICH */
        CHECK_OK(MPI_Type_free(&t));
        CHECK_OK(MPI_Type_create_struct_c(2, (MPI_Count[]){0, 1}, (MPI_Count[]){0, 8}, (MPI_Datatype[]){MPI_DOUBLE, MPI_CHAR}, &t));
        expect("struct_c zero block", t, 1, 8, 1, 8, 1);
        envelope_c("struct_c", t, MPI_COMBINER_STRUCT, 0, 5, 2, ints, counts, types);
        CHECK(counts[0] == 2 && counts[1] == 0 && counts[4] == 8 && types[1] == MPI_CHAR, "struct_c contents");
        CHECK_OK(MPI_Type_free(&t));
    }

    /* resized (negative extent allowed), dup */
    CHECK_OK(MPI_Type_create_resized(MPI_DOUBLE, -4, 16, &t));
    expect("resized", t, 8, -4, 16, 0, 8);
    envelope("resized", t, MPI_COMBINER_RESIZED, 0, 2, 1, ints, addrs, types);
    CHECK(addrs[0] == -4 && addrs[1] == 16, "resized contents");
    CHECK_OK(MPI_Type_dup(t, &t2));
    expect("dup", t2, 8, -4, 16, 0, 8);
    envelope("dup", t2, MPI_COMBINER_DUP, 0, 0, 1, ints, addrs, types);
    CHECK(types[0] == t, "dup contents: the old handle");
    CHECK_OK(MPI_Type_free(&types[0])); /* get_contents handed out a reference */
    CHECK_OK(MPI_Type_free(&t2));
    CHECK_OK(MPI_Type_free(&t));
    CHECK_OK(MPI_Type_create_resized_c(MPI_INT, -3, -4, &t));
    expect("resized_c", t, 4, -3, -4, 0, 4);
    envelope_c("resized_c", t, MPI_COMBINER_RESIZED, 0, 2, 1, ints, counts, types);
    CHECK_OK(MPI_Type_free(&t));

    /* subarray, C and Fortran order */
    CHECK_OK(MPI_Type_create_subarray(2, (int[]){4, 5}, (int[]){2, 3}, (int[]){1, 2}, MPI_ORDER_C, MPI_INT, &t));
    expect("subarray C", t, 24, 0, 80, 28, 32);
    envelope("subarray", t, MPI_COMBINER_SUBARRAY, 8, 0, 1, ints, addrs, types);
    {
        int want[8] = {2, 4, 5, 2, 3, 1, 2, MPI_ORDER_C};
        SAME(ints, want, 8, "subarray contents");
    }
    CHECK_OK(MPI_Type_free(&t));
    CHECK_OK(MPI_Type_create_subarray(2, (int[]){4, 5}, (int[]){2, 3}, (int[]){1, 2}, MPI_ORDER_FORTRAN, MPI_INT, &t));
    expect("subarray Fortran", t, 24, 0, 80, 36, 40);
    CHECK_OK(MPI_Type_free(&t));
    CHECK_OK(MPI_Type_create_subarray_c(1, (MPI_Count[]){10}, (MPI_Count[]){4}, (MPI_Count[]){3}, MPI_ORDER_C, MPI_DOUBLE, &t));
    expect("subarray_c", t, 32, 0, 80, 24, 32);
    envelope_c("subarray_c", t, MPI_COMBINER_SUBARRAY, 2, 3, 1, ints, counts, types);
    CHECK(ints[0] == 1 && ints[1] == MPI_ORDER_C && counts[0] == 10 && counts[1] == 4 && counts[2] == 3, "subarray_c contents");
    CHECK_OK(MPI_Type_free(&t));

    /* darray: block, cyclic, none, default arguments */
    CHECK_OK(MPI_Type_create_darray(4, 1, 1, (int[]){10}, (int[]){MPI_DISTRIBUTE_BLOCK}, (int[]){MPI_DISTRIBUTE_DFLT_DARG},
                                    (int[]){4}, MPI_ORDER_C, MPI_INT, &t));
    expect("darray block", t, 12, 0, 40, 12, 12);
    envelope("darray", t, MPI_COMBINER_DARRAY, 8, 0, 1, ints, addrs, types);
    {
        int want[8] = {4, 1, 1, 10, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_DFLT_DARG, 4, MPI_ORDER_C};
        SAME(ints, want, 8, "darray contents");
    }
    CHECK_OK(MPI_Type_free(&t));
    CHECK_OK(MPI_Type_create_darray(2, 1, 1, (int[]){9}, (int[]){MPI_DISTRIBUTE_CYCLIC}, (int[]){2}, (int[]){2},
                                    MPI_ORDER_C, MPI_INT, &t));
    expect("darray cyclic(2)", t, 16, 0, 36, 8, 24);
    CHECK_OK(MPI_Type_free(&t));
    CHECK_OK(MPI_Type_create_darray_c(2, 1, 2, (MPI_Count[]){3, 4}, (int[]){MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_CYCLIC},
                                      (int[]){MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, (int[]){1, 2},
                                      MPI_ORDER_FORTRAN, MPI_CHAR, &t));
    expect("darray_c none x cyclic", t, 6, 0, 12, 3, 9);
    envelope_c("darray_c", t, MPI_COMBINER_DARRAY, 10, 2, 1, ints, counts, types);
    CHECK(ints[0] == 2 && ints[1] == 1 && ints[2] == 2 && ints[9] == MPI_ORDER_FORTRAN && counts[1] == 4, "darray_c contents");
    CHECK_OK(MPI_Type_free(&t));

    /* get_contents hands out derived types that the user frees; the originals stay valid. */
    {
        MPI_Datatype inner, outer, got[1];
        CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &inner));
        CHECK_OK(MPI_Type_vector(2, 1, 3, inner, &outer));
        MPI_Datatype inner_handle = inner;
        CHECK_OK(MPI_Type_free(&inner)); /* outer still holds it */
        CHECK_OK(MPI_Type_get_contents(outer, 3, 0, 1, ints, addrs, got));
        CHECK(got[0] == inner_handle, "contents returns the inner handle");
        expect("inner after free", got[0], 8, 0, 8, 0, 8);
        CHECK_OK(MPI_Type_commit(&outer));
        CHECK_OK(MPI_Type_free(&got[0]));
        CHECK_OK(MPI_Type_free(&outer));
        int s;
        CHECK_CLASS(MPI_Type_size(inner_handle, &s), MPI_ERR_TYPE); /* all references gone */
        CHECK_CLASS(MPI_Type_free(&inner_handle), MPI_ERR_TYPE);
    }

    /* names */
    {
        char name[MPI_MAX_OBJECT_NAME], longname[300];
        int len;
        CHECK_OK(MPI_Type_contiguous(1, MPI_INT, &t));
        CHECK_OK(MPI_Type_get_name(t, name, &len));
        CHECK(len == 0 && name[0] == 0, "derived types start unnamed");
        CHECK_OK(MPI_Type_set_name(t, "row"));
        CHECK_OK(MPI_Type_get_name(t, name, &len));
        CHECK(len == 3 && strcmp(name, "row") == 0, "name %s", name);
        memset(longname, 'x', sizeof longname - 1);
        longname[sizeof longname - 1] = 0;
        CHECK_OK(MPI_Type_set_name(t, longname)); /* truncated, as the standard says */
        CHECK_OK(MPI_Type_get_name(t, name, &len));
        CHECK(len == MPI_MAX_OBJECT_NAME - 1 && strlen(name) == MPI_MAX_OBJECT_NAME - 1, "long name len %d", len);
        CHECK_OK(MPI_Type_dup(t, &t2));
        CHECK_OK(MPI_Type_get_name(t2, name, &len));
        CHECK(len == 0, "dup does not copy the name");
        CHECK_CLASS(MPI_Type_set_name(t, NULL), MPI_ERR_ARG);
        CHECK_OK(MPI_Type_free(&t2));
        CHECK_OK(MPI_Type_free(&t));
    }

    /* commit: dup of a committed type is committed; commit twice is fine */
    CHECK_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &t));
    CHECK_OK(MPI_Type_commit(&t));
    CHECK_OK(MPI_Type_commit(&t));
    CHECK_OK(MPI_Type_dup(t, &t2));
    {
        int buf[4] = {1, 2, 3, 4}, pos = 0;
        char packed[8];
        CHECK_OK(MPI_Pack(buf, 1, t2, packed, 8, &pos, MPI_COMM_WORLD)); /* needs a committed type */
        CHECK(pos == 8, "pack dup position %d", pos);
    }
    CHECK_OK(MPI_Type_free(&t2));
    CHECK_OK(MPI_Type_free(&t));

    /* errors: negative counts are MPI_ERR_COUNT, bad handles MPI_ERR_TYPE, others MPI_ERR_ARG */
    CHECK_CLASS(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_contiguous_c(-1, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_contiguous(1, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Type_contiguous(1, MPI_INT, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_vector(-1, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_vector(1, -1, 1, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_vector_c(1, -1, 1, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_create_hvector(1, -1, 1, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_hvector(-1, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_indexed(2, (int[]){1, -1}, (int[]){0, 1}, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_indexed(-1, NULL, NULL, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_indexed(1, NULL, (int[]){0}, MPI_INT, &t), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_create_hindexed(2, (int[]){1, -1}, (MPI_Aint[]){0, 1}, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_hindexed(1, (int[]){1}, NULL, MPI_INT, &t), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_create_indexed_block(1, -1, (int[]){0}, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_create_hindexed_block(-1, 1, NULL, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_create_struct(2, (int[]){1, -1}, (MPI_Aint[]){0, 1}, (MPI_Datatype[]){MPI_INT, MPI_INT}, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 1}, (MPI_Datatype[]){MPI_INT, MPI_DATATYPE_NULL}, &t), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Type_create_struct(1, (int[]){1}, (MPI_Aint[]){0}, NULL, &t), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_struct(-1, NULL, NULL, NULL, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_create_struct_c(1, (MPI_Count[]){-1}, (MPI_Count[]){0}, (MPI_Datatype[]){MPI_INT}, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_create_subarray(2, (int[]){4, 4}, (int[]){2, 2}, (int[]){0, 3}, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_create_subarray(1, (int[]){4}, (int[]){2}, (int[]){0}, 77, MPI_INT, &t), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_create_subarray(0, NULL, NULL, NULL, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_create_subarray_c(1, (MPI_Count[]){4}, (MPI_Count[]){0}, (MPI_Count[]){0}, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_create_darray(2, 2, 1, (int[]){10}, (int[]){MPI_DISTRIBUTE_BLOCK}, (int[]){5}, (int[]){2},
                                       MPI_ORDER_C, MPI_INT, &t), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Type_create_darray(2, 0, 1, (int[]){10}, (int[]){MPI_DISTRIBUTE_BLOCK}, (int[]){2}, (int[]){2},
                                       MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_create_darray(2, 0, 1, (int[]){10}, (int[]){99}, (int[]){1}, (int[]){2}, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_create_darray(3, 0, 1, (int[]){10}, (int[]){MPI_DISTRIBUTE_CYCLIC}, (int[]){1}, (int[]){2},
                                       MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_create_darray_c(1, 0, 1, (MPI_Count[]){4}, (int[]){MPI_DISTRIBUTE_CYCLIC}, (int[]){-3}, (int[]){1},
                                         MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_create_resized(MPI_DATATYPE_NULL, 0, 4, &t), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Type_create_resized_c(MPI_DATATYPE_NULL, 0, 4, &t), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Type_dup(MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Type_contiguous_c((MPI_Count)1 << 62, MPI_DOUBLE, &t), MPI_ERR_ARG); /* size overflows */
    /* contents: arrays too small */
    CHECK_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &t));
    CHECK_CLASS(MPI_Type_get_contents(t, 2, 0, 1, ints, addrs, types), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_get_contents(t, 3, 0, 0, ints, addrs, types), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_get_contents_c(t, 3, 0, 0, 1, NULL, NULL, NULL, types), MPI_ERR_ARG);
    CHECK_OK(MPI_Type_free(&t));
    CHECK_CLASS(MPI_Type_free(&t), MPI_ERR_TYPE);

    CHECK_OK(MPI_Finalize());
    printf("constructors ok\n");
    return 0;
}
