/* predefined: every predefined datatype has MPICH's handle, size, bounds and name; the
 * pair types have their C struct layout; invalid handles are MPI_ERR_TYPE; predefined
 * types cannot be freed; handle conversion, MPI_Type_match_size,
 * MPI_Type_get_value_index and the cached Fortran 90 types. */
#include "mpix_test.h"

struct predef {
    MPI_Datatype t;
    const char *name;
    int size;
    MPI_Aint extent, true_extent;
};

#define P(t, size, ext, text) {t, #t, size, ext, text}

static const struct predef predefs[] = {
    P(MPI_CHAR, 1, 1, 1), P(MPI_SIGNED_CHAR, 1, 1, 1), P(MPI_UNSIGNED_CHAR, 1, 1, 1),
    P(MPI_BYTE, 1, 1, 1), P(MPI_WCHAR, 4, 4, 4), P(MPI_SHORT, 2, 2, 2),
    P(MPI_UNSIGNED_SHORT, 2, 2, 2), P(MPI_INT, 4, 4, 4), P(MPI_UNSIGNED, 4, 4, 4),
    P(MPI_LONG, 8, 8, 8), P(MPI_UNSIGNED_LONG, 8, 8, 8), P(MPI_LONG_LONG_INT, 8, 8, 8),
    P(MPI_UNSIGNED_LONG_LONG, 8, 8, 8), P(MPI_FLOAT, 4, 4, 4), P(MPI_DOUBLE, 8, 8, 8),
    P(MPI_LONG_DOUBLE, 16, 16, 16), P(MPI_INT8_T, 1, 1, 1), P(MPI_INT16_T, 2, 2, 2),
    P(MPI_INT32_T, 4, 4, 4), P(MPI_INT64_T, 8, 8, 8), P(MPI_UINT8_T, 1, 1, 1),
    P(MPI_UINT16_T, 2, 2, 2), P(MPI_UINT32_T, 4, 4, 4), P(MPI_UINT64_T, 8, 8, 8),
    P(MPI_C_BOOL, 1, 1, 1), P(MPI_C_DOUBLE_COMPLEX, 16, 16, 16),
    P(MPI_C_LONG_DOUBLE_COMPLEX, 32, 32, 32), P(MPI_AINT, 8, 8, 8), P(MPI_OFFSET, 8, 8, 8),
    P(MPI_COUNT, 8, 8, 8), P(MPI_CXX_BOOL, 1, 1, 1), P(MPI_CXX_FLOAT_COMPLEX, 8, 8, 8),
    P(MPI_CXX_DOUBLE_COMPLEX, 16, 16, 16), P(MPI_CXX_LONG_DOUBLE_COMPLEX, 32, 32, 32),
    P(MPI_PACKED, 1, 1, 1), P(MPI_LB, 0, 0, 0), P(MPI_UB, 0, 0, 0),
    P(MPI_FLOAT_INT, 8, 8, 8), P(MPI_DOUBLE_INT, 12, 16, 12), P(MPI_LONG_INT, 12, 16, 12),
    P(MPI_SHORT_INT, 6, 8, 8), P(MPI_LONG_DOUBLE_INT, 20, 32, 20), P(MPI_2INT, 8, 8, 8),
    P(MPI_CHARACTER, 1, 1, 1), P(MPI_LOGICAL, 4, 4, 4), P(MPI_INTEGER, 4, 4, 4),
    P(MPI_REAL, 4, 4, 4), P(MPI_DOUBLE_PRECISION, 8, 8, 8), P(MPI_COMPLEX, 8, 8, 8),
    P(MPI_DOUBLE_COMPLEX, 16, 16, 16), P(MPI_2INTEGER, 8, 8, 8), P(MPI_2REAL, 8, 8, 8),
    P(MPI_2DOUBLE_PRECISION, 16, 16, 16), P(MPI_INTEGER1, 1, 1, 1), P(MPI_INTEGER2, 2, 2, 2),
    P(MPI_INTEGER4, 4, 4, 4), P(MPI_INTEGER8, 8, 8, 8), P(MPI_REAL4, 4, 4, 4),
    P(MPI_REAL8, 8, 8, 8), P(MPI_REAL16, 16, 16, 16), P(MPI_COMPLEX8, 8, 8, 8),
    P(MPI_COMPLEX16, 16, 16, 16), P(MPI_COMPLEX32, 32, 32, 32), P(MPIX_C_FLOAT16, 2, 2, 2),
};

static void check_name(MPI_Datatype t, const char *want)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    CHECK_OK(MPI_Type_get_name(t, name, &len));
    CHECK(strcmp(name, want) == 0 && len == (int)strlen(want), "name of 0x%x is %s (%d), want %s", t, name, len, want);
}

int main(int argc, char **argv)
{
    int size, ni, na, nd, comb;
    MPI_Count csize, cni, cna, cnl, cnd;
    MPI_Aint lb, ext, tlb, text;
    MPI_Count clb, cext;
    MPI_Datatype t;

    CHECK_OK(MPI_Init(&argc, &argv));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    for (size_t i = 0; i < sizeof predefs / sizeof predefs[0]; i++) {
        const struct predef *p = &predefs[i];
        CHECK_OK(MPI_Type_size(p->t, &size));
        CHECK(size == p->size, "%s: size %d, want %d", p->name, size, p->size);
        CHECK_OK(MPI_Type_size_c(p->t, &csize));
        CHECK_OK(MPI_Type_size_x(p->t, &csize));
        CHECK(csize == p->size, "%s: size_x %ld", p->name, (long)csize);
        CHECK_OK(MPI_Type_get_extent(p->t, &lb, &ext));
        CHECK(lb == 0 && ext == p->extent, "%s: lb %ld extent %ld, want 0 %ld", p->name, (long)lb, (long)ext, (long)p->extent);
        CHECK_OK(MPI_Type_get_extent_x(p->t, &clb, &cext));
        CHECK(clb == 0 && cext == p->extent, "%s: extent_x", p->name);
        CHECK_OK(MPI_Type_get_extent_c(p->t, &clb, &cext));
        CHECK(clb == 0 && cext == p->extent, "%s: extent_c", p->name);
        CHECK_OK(MPI_Type_get_true_extent(p->t, &tlb, &text));
        CHECK(tlb == 0 && text == p->true_extent, "%s: true extent %ld", p->name, (long)text);
        CHECK_OK(MPI_Type_get_true_extent_c(p->t, &clb, &cext));
        CHECK(clb == 0 && cext == p->true_extent, "%s: true extent_c", p->name);
        CHECK_OK(MPI_Type_get_true_extent_x(p->t, &clb, &cext));
        CHECK(clb == 0 && cext == p->true_extent, "%s: true extent_x", p->name);
        CHECK_OK(MPI_Type_extent(p->t, &ext));
        CHECK(ext == p->extent, "%s: MPI_Type_extent", p->name);
        CHECK_OK(MPI_Type_lb(p->t, &lb));
        CHECK_OK(MPI_Type_ub(p->t, &ext));
        CHECK(lb == 0 && ext == p->extent, "%s: MPI_Type_lb/ub", p->name);
        CHECK_OK(MPI_Type_get_envelope(p->t, &ni, &na, &nd, &comb));
        CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0, "%s: envelope", p->name);
        CHECK_OK(MPI_Type_get_envelope_c(p->t, &cni, &cna, &cnl, &cnd, &comb));
        CHECK(comb == MPI_COMBINER_NAMED && cni + cna + cnl + cnd == 0, "%s: envelope_c", p->name);
        CHECK_CLASS(MPI_Type_get_contents(p->t, 0, 0, 0, NULL, NULL, NULL), MPI_ERR_TYPE);
        /* The builtin handles carry the size in bits 8-15. */
        if (((unsigned)p->t >> 30) == 1)
            CHECK(((p->t >> 8) & 0xff) == p->size, "%s: handle 0x%x does not encode its size", p->name, p->t);
        /* Committing a predefined type is allowed; freeing it is not. */
        t = p->t;
        CHECK_OK(MPI_Type_commit(&t));
        CHECK_CLASS(MPI_Type_free(&t), MPI_ERR_TYPE);
        CHECK(t == p->t, "%s: failed free changed the handle", p->name);
        CHECK(MPI_Type_f2c(MPI_Type_c2f(p->t)) == p->t, "%s: c2f/f2c", p->name);
    }
    /* Names: MPICH reports aliases under one name. */
    check_name(MPI_INT, "MPI_INT");
    check_name(MPI_LONG_LONG, "MPI_LONG_LONG_INT");
    check_name(MPI_C_COMPLEX, "MPI_C_COMPLEX");
    check_name(MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX");
    check_name(MPI_DOUBLE_INT, "MPI_DOUBLE_INT");
    check_name(MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION");
    check_name(MPI_UB, "MPI_UB");
    /* Names of predefined types can be changed (they are local to the process). */
    CHECK_OK(MPI_Type_set_name(MPI_SHORT, "my short"));
    check_name(MPI_SHORT, "my short");
    CHECK_OK(MPI_Type_set_name(MPI_SHORT, "MPI_SHORT"));

    /* Invalid handles. */
    CHECK_CLASS(MPI_Type_size(MPI_DATATYPE_NULL, &size), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Type_size((MPI_Datatype)0x4c0004ff, &size), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Type_size((MPI_Datatype)0x8c0fffff, &size), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Type_size((MPI_Datatype)MPI_COMM_WORLD, &size), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Type_get_extent(MPI_DATATYPE_NULL, &lb, &ext), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Type_get_name(MPI_DATATYPE_NULL, NULL, &size), MPI_ERR_TYPE);
    t = MPI_DATATYPE_NULL;
    CHECK_CLASS(MPI_Type_commit(&t), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Type_free(&t), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Type_commit(NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_free(NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_size(MPI_INT, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_extent(MPI_INT, NULL), MPI_ERR_ARG);

    /* MPI_Type_match_size returns the Fortran sized types. */
    CHECK_OK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t));
    CHECK(t == MPI_REAL8, "match real 8");
    CHECK_OK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 2, &t));
    CHECK(t == MPI_INTEGER2, "match integer 2");
    CHECK_OK(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 32, &t));
    CHECK(t == MPI_COMPLEX32, "match complex 32");
    CHECK_CLASS(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_match_size(99, 4, &t), MPI_ERR_ARG);

    /* MPI-4.1 MPI_Type_get_value_index. */
    CHECK_OK(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &t));
    CHECK(t == MPI_DOUBLE_INT, "value_index double,int = 0x%x", t);
    CHECK_OK(MPI_Type_get_value_index(MPI_INT, MPI_INT, &t));
    CHECK(t == MPI_2INT, "value_index int,int");
    CHECK_OK(MPI_Type_get_value_index(MPI_REAL, MPI_REAL, &t));
    CHECK(t == MPI_2REAL, "value_index real,real");
    CHECK_OK(MPI_Type_get_value_index(MPI_CHAR, MPI_INT, &t));
    CHECK(t == MPI_DATATYPE_NULL, "value_index char,int is not a pair type");
    CHECK_CLASS(MPI_Type_get_value_index(MPI_DATATYPE_NULL, MPI_INT, &t), MPI_ERR_TYPE);

    /* Fortran 90 parameterized types: cached, predefined, with their own combiner. */
    MPI_Datatype r1, r2, c, in;
    int ints[2];
    CHECK_OK(MPI_Type_create_f90_real(10, MPI_UNDEFINED, &r1));
    CHECK_OK(MPI_Type_create_f90_real(10, MPI_UNDEFINED, &r2));
    CHECK(r1 == r2, "f90 real types are cached");
    CHECK_OK(MPI_Type_size(r1, &size));
    CHECK(size == 8, "f90 real(10) size %d", size);
    CHECK_OK(MPI_Type_get_envelope(r1, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_F90_REAL && ni == 2 && na == 0 && nd == 0, "f90 real envelope");
    CHECK_OK(MPI_Type_get_contents(r1, 2, 0, 0, ints, NULL, NULL));
    CHECK(ints[0] == 10 && ints[1] == MPI_UNDEFINED, "f90 real contents %d %d", ints[0], ints[1]);
    CHECK_CLASS(MPI_Type_free(&r1), MPI_ERR_TYPE);
    CHECK_OK(MPI_Type_create_f90_complex(3, 30, &c));
    CHECK_OK(MPI_Type_size(c, &size));
    CHECK(size == 8, "f90 complex size %d", size);
    CHECK_OK(MPI_Type_create_f90_integer(9, &in));
    CHECK_OK(MPI_Type_get_envelope(in, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_F90_INTEGER && ni == 1, "f90 integer envelope");
    CHECK_OK(MPI_Type_size(in, &size));
    CHECK(size == 4, "f90 integer(9) size %d", size);
    CHECK_CLASS(MPI_Type_create_f90_integer(40, &in), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_create_f90_real(50, 10, &r1), MPI_ERR_ARG);

    CHECK_OK(MPI_Finalize());
    printf("predefined datatypes ok\n");
    return 0;
}
