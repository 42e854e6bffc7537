/*
 * abi_dump.c -- print the ABI-relevant facts of whichever mpi.h it is
 * compiled against, one "NAME VALUE..." line per fact.
 *
 * compare.sh builds this twice, against include/mpi.h and against MPICH's
 * installed header, and diffs the two outputs.  Nothing here calls MPI or
 * links an MPI library: the few symbols the headers declare (MPIR_Dup_fn
 * and the data objects) are defined below with MPICH's exact C types, so
 * that compiling this file also proves each header declares them with
 * those types -- a mismatch is a compile error, not a diff line.
 *
 * Line formats (first field is always a unique name):
 *   NAME value sizeof          integer constant (also checked to be an
 *                              integer constant expression)
 *   NAME value typeok          pointer constant, as an integer; typeok is 1
 *                              when the macro has the expected pointer type
 *   NAME target typeok         predefined callback: NULL or the symbol it
 *                              designates
 *   sizeof(T) size align       type size and alignment (enum.TAG for enums)
 *   offsetof(T.f) off size     struct field
 *   type:LABEL 0|1             type identity / callback signature check
 *   str:NAME "text"            string constant
 *
 * Names that MPI-4.1 has but MPICH 4.0.2 lacks are printed only when the
 * header defines them (#ifdef), so the MPICH build still compiles; the
 * comparison allows exactly those via allowed_differences.txt.
 *
 * Build needs GNU C (typeof, __builtin_types_compatible_p, __alignof__).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <mpi.h>

/* ---------------------------------------------------------------------
 * Definitions of the symbols both headers declare.  The types are spelled
 * out concretely (int for MPI_Comm, int for MPI_Fint, the MPICH struct tag
 * for MPI_T handles) so they do not depend on the header under test.
 * --------------------------------------------------------------------- */

int MPIR_Dup_fn(int oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                void *attribute_val_out, int *flag)
{
    (void)oldcomm;
    (void)keyval;
    (void)extra_state;
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return 0;
}

static int unweighted_cell, weights_empty_cell;
int * const MPI_UNWEIGHTED = &unweighted_cell;
int * const MPI_WEIGHTS_EMPTY = &weights_empty_cell;

int *MPI_F_STATUS_IGNORE = 0;
int *MPI_F_STATUSES_IGNORE = 0;

MPI_F08_status MPIR_F08_MPI_STATUS_IGNORE_OBJ;
MPI_F08_status MPIR_F08_MPI_STATUSES_IGNORE_OBJ[1];
int MPIR_F08_MPI_IN_PLACE;
int MPIR_F08_MPI_BOTTOM;
MPI_F08_status *MPI_F08_STATUS_IGNORE = &MPIR_F08_MPI_STATUS_IGNORE_OBJ;
MPI_F08_status *MPI_F08_STATUSES_IGNORE = MPIR_F08_MPI_STATUSES_IGNORE_OBJ;

struct MPIR_T_pvar_handle_s * const MPI_T_PVAR_ALL_HANDLES =
    (struct MPIR_T_pvar_handle_s *)1;

/* --------------------------------------------------------------------- */

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)

#define SAME(a, b) __builtin_types_compatible_p(a, b)

/* Integer constant: value and size; the enum forces an integer constant
 * expression (usable in case labels, array sizes, #if-free contexts). */
#define K(name)                                                          \
    do {                                                                 \
        enum { CAT(ice_, __LINE__) = (name) ? 1 : 2 };                   \
        printf("%s %lld %u\n", #name, (long long)(name),                 \
               (unsigned)sizeof(name));                                  \
    } while (0)

/* Pointer constant */
#define P(name, type)                                                    \
    printf("%s %lld %d\n", #name, (long long)(intptr_t)(name),           \
           SAME(__typeof__(name), type))

/* Predefined callback */
typedef void (*any_fn)(void);
static const char *fn_target(any_fn p)
{
    if (p == 0)
        return "NULL";
    if (p == (any_fn)MPIR_Dup_fn)
        return "MPIR_Dup_fn";
    return "OTHER";
}
#define FN(name, type)                                                   \
    printf("%s %s %d\n", #name, fn_target((any_fn)(name)),               \
           SAME(__typeof__(name), type))

/* Types */
#define S(type)                                                          \
    printf("sizeof(%s) %u %u\n", #type, (unsigned)sizeof(type),          \
           (unsigned)__alignof__(type))
#define SE(tag)                                                          \
    printf("sizeof(enum.%s) %u %u\n", #tag, (unsigned)sizeof(enum tag), \
           (unsigned)__alignof__(enum tag))
#define O(type, field)                                                   \
    printf("offsetof(%s.%s) %u %u\n", #type, #field,                     \
           (unsigned)offsetof(type, field),                              \
           (unsigned)sizeof(((type *)0)->field))
#define T(label, a, b) printf("type:%s %d\n", label, SAME(a, b))

/* Data objects the headers declare: type and size */
#define D(name, type)                                                    \
    printf("object:%s %u %d\n", #name, (unsigned)sizeof(name),           \
           SAME(__typeof__(name), type))

#define STRC(name) printf("str:%s \"%s\"\n", #name, name)

static void version_and_limits(void)
{
    K(MPI_VERSION);
    K(MPI_SUBVERSION);

    K(MPI_MAX_PROCESSOR_NAME);
    K(MPI_MAX_LIBRARY_VERSION_STRING);
    K(MPI_MAX_ERROR_STRING);
    K(MPI_MAX_PORT_NAME);
    K(MPI_MAX_OBJECT_NAME);
    K(MPI_MAX_INFO_KEY);
    K(MPI_MAX_INFO_VAL);
    K(MPI_MAX_DATAREP_STRING);
    K(MPI_MAX_STRINGTAG_LEN);
    K(MPI_MAX_PSET_NAME_LEN);
}

static void types(void)
{
    S(MPI_Aint);
    S(MPI_Offset);
    S(MPI_Count);
    S(MPI_Fint);
    T("MPI_Aint=long", MPI_Aint, long);
    T("MPI_Offset=long", MPI_Offset, long);
    T("MPI_Count=long", MPI_Count, long);
    T("MPI_Fint=int", MPI_Fint, int);

    S(MPI_Comm);
    S(MPI_Group);
    S(MPI_Datatype);
    S(MPI_Op);
    S(MPI_Errhandler);
    S(MPI_Info);
    S(MPI_Request);
    S(MPI_Message);
    S(MPI_Win);
    S(MPI_Session);
    S(MPI_File);
    T("MPI_Comm=int", MPI_Comm, int);
    T("MPI_Group=int", MPI_Group, int);
    T("MPI_Datatype=int", MPI_Datatype, int);
    T("MPI_Op=int", MPI_Op, int);
    T("MPI_Errhandler=int", MPI_Errhandler, int);
    T("MPI_Info=int", MPI_Info, int);
    T("MPI_Request=int", MPI_Request, int);
    T("MPI_Message=int", MPI_Message, int);
    T("MPI_Win=int", MPI_Win, int);
    T("MPI_Session=int", MPI_Session, int);
    T("MPI_File=struct.ADIOI_FileD*", MPI_File, struct ADIOI_FileD *);
    S(MPIO_Request);
    T("MPIO_Request=MPI_Request", MPIO_Request, MPI_Request);

    S(MPI_Status);
    O(MPI_Status, count_lo);
    O(MPI_Status, count_hi_and_cancelled);
    O(MPI_Status, MPI_SOURCE);
    O(MPI_Status, MPI_TAG);
    O(MPI_Status, MPI_ERROR);
    S(MPI_F08_status);
    O(MPI_F08_status, count_lo);
    O(MPI_F08_status, count_hi_and_cancelled);
    O(MPI_F08_status, MPI_SOURCE);
    O(MPI_F08_status, MPI_TAG);
    O(MPI_F08_status, MPI_ERROR);
    T("MPI_F08_status.MPI_SOURCE=MPI_Fint",
      __typeof__(((MPI_F08_status *)0)->MPI_SOURCE), MPI_Fint);

    S(MPI_T_enum);
    S(MPI_T_cvar_handle);
    S(MPI_T_pvar_handle);
    S(MPI_T_pvar_session);
    S(MPI_T_event_registration);
    S(MPI_T_event_instance);
    S(MPI_T_cb_safety);
    S(MPI_T_source_order);
    T("MPI_T_enum=struct.MPIR_T_enum_s*", MPI_T_enum, struct MPIR_T_enum_s *);
    T("MPI_T_cvar_handle=struct.MPIR_T_cvar_handle_s*", MPI_T_cvar_handle,
      struct MPIR_T_cvar_handle_s *);
    T("MPI_T_pvar_handle=struct.MPIR_T_pvar_handle_s*", MPI_T_pvar_handle,
      struct MPIR_T_pvar_handle_s *);
    T("MPI_T_pvar_session=struct.MPIR_T_pvar_session_s*", MPI_T_pvar_session,
      struct MPIR_T_pvar_session_s *);
    T("MPI_T_event_registration=struct.MPIR_T_event_registration_s*",
      MPI_T_event_registration, struct MPIR_T_event_registration_s *);
    T("MPI_T_event_instance=struct.MPIR_T_event_instance_s*", MPI_T_event_instance,
      struct MPIR_T_event_instance_s *);
    T("MPI_T_cb_safety=enum.MPI_T_cb_safety", MPI_T_cb_safety, enum MPI_T_cb_safety);
    T("MPI_T_source_order=enum.MPI_T_source_order", MPI_T_source_order,
      enum MPI_T_source_order);

    /* enum tags (matter for C++ name mangling) */
    SE(MPIR_Topo_type);
    SE(MPIR_Combiner_enum);
    SE(MPIR_Win_flavor);
    SE(MPIR_Win_model);
    SE(MPIR_T_verbosity_t);
    SE(MPIR_T_bind_t);
    SE(MPIR_T_scope_t);
    SE(MPIR_T_pvar_class_t);

    S(MPIX_Grequest_class);
    T("MPIX_Grequest_class=int", MPIX_Grequest_class, int);

    STRC(MPI_AINT_FMT_DEC_SPEC);
    STRC(MPI_AINT_FMT_HEX_SPEC);
}

static void handles(void)
{
    K(MPI_COMM_NULL);
    K(MPI_COMM_WORLD);
    K(MPI_COMM_SELF);
    K(MPI_GROUP_NULL);
    K(MPI_GROUP_EMPTY);
    K(MPI_DATATYPE_NULL);
    K(MPI_OP_NULL);
    K(MPI_ERRHANDLER_NULL);
    K(MPI_ERRORS_ARE_FATAL);
    K(MPI_ERRORS_RETURN);
    K(MPI_ERRORS_ABORT);
    K(MPI_INFO_NULL);
    K(MPI_INFO_ENV);
    K(MPI_WIN_NULL);
    K(MPI_REQUEST_NULL);
    K(MPI_MESSAGE_NULL);
    K(MPI_MESSAGE_NO_PROC);
    K(MPI_SESSION_NULL);
    K(MPIO_REQUEST_NULL);
    P(MPI_FILE_NULL, MPI_File);
}

static void datatypes(void)
{
    K(MPI_CHAR);
    K(MPI_SIGNED_CHAR);
    K(MPI_UNSIGNED_CHAR);
    K(MPI_BYTE);
    K(MPI_WCHAR);
    K(MPI_SHORT);
    K(MPI_UNSIGNED_SHORT);
    K(MPI_INT);
    K(MPI_UNSIGNED);
    K(MPI_LONG);
    K(MPI_UNSIGNED_LONG);
    K(MPI_FLOAT);
    K(MPI_DOUBLE);
    K(MPI_LONG_DOUBLE);
    K(MPI_LONG_LONG_INT);
    K(MPI_UNSIGNED_LONG_LONG);
    K(MPI_LONG_LONG);
    K(MPI_PACKED);
    K(MPI_LB);
    K(MPI_UB);
    K(MPI_FLOAT_INT);
    K(MPI_DOUBLE_INT);
    K(MPI_LONG_INT);
    K(MPI_SHORT_INT);
    K(MPI_2INT);
    K(MPI_LONG_DOUBLE_INT);
    K(MPI_COMPLEX);
    K(MPI_DOUBLE_COMPLEX);
    K(MPI_LOGICAL);
    K(MPI_REAL);
    K(MPI_DOUBLE_PRECISION);
    K(MPI_INTEGER);
    K(MPI_2INTEGER);
    K(MPI_2REAL);
    K(MPI_2DOUBLE_PRECISION);
    K(MPI_CHARACTER);
    K(MPI_REAL4);
    K(MPI_REAL8);
    K(MPI_REAL16);
    K(MPI_COMPLEX8);
    K(MPI_COMPLEX16);
    K(MPI_COMPLEX32);
    K(MPI_INTEGER1);
    K(MPI_INTEGER2);
    K(MPI_INTEGER4);
    K(MPI_INTEGER8);
    K(MPI_INTEGER16);
#ifdef MPI_REAL2
    K(MPI_REAL2);
#endif
#ifdef MPI_COMPLEX4
    K(MPI_COMPLEX4);
#endif
    K(MPI_INT8_T);
    K(MPI_INT16_T);
    K(MPI_INT32_T);
    K(MPI_INT64_T);
    K(MPI_UINT8_T);
    K(MPI_UINT16_T);
    K(MPI_UINT32_T);
    K(MPI_UINT64_T);
    K(MPI_C_BOOL);
    K(MPI_C_FLOAT_COMPLEX);
    K(MPI_C_COMPLEX);
    K(MPI_C_DOUBLE_COMPLEX);
    K(MPI_C_LONG_DOUBLE_COMPLEX);
    K(MPIX_C_FLOAT16);
    K(MPI_AINT);
    K(MPI_OFFSET);
    K(MPI_COUNT);
    K(MPI_CXX_BOOL);
    K(MPI_CXX_FLOAT_COMPLEX);
    K(MPI_CXX_DOUBLE_COMPLEX);
    K(MPI_CXX_LONG_DOUBLE_COMPLEX);

    K(MPI_TYPECLASS_REAL);
    K(MPI_TYPECLASS_INTEGER);
    K(MPI_TYPECLASS_COMPLEX);
}

static void ops(void)
{
    K(MPI_MAX);
    K(MPI_MIN);
    K(MPI_SUM);
    K(MPI_PROD);
    K(MPI_LAND);
    K(MPI_BAND);
    K(MPI_LOR);
    K(MPI_BOR);
    K(MPI_LXOR);
    K(MPI_BXOR);
    K(MPI_MINLOC);
    K(MPI_MAXLOC);
    K(MPI_REPLACE);
    K(MPI_NO_OP);
}

static void attribute_keys(void)
{
    K(MPI_KEYVAL_INVALID);
    K(MPI_TAG_UB);
    K(MPI_HOST);
    K(MPI_IO);
    K(MPI_WTIME_IS_GLOBAL);
    K(MPI_UNIVERSE_SIZE);
    K(MPI_LASTUSEDCODE);
    K(MPI_APPNUM);
    K(MPI_WIN_BASE);
    K(MPI_WIN_SIZE);
    K(MPI_WIN_DISP_UNIT);
    K(MPI_WIN_CREATE_FLAVOR);
    K(MPI_WIN_MODEL);
}

static void error_classes(void)
{
    K(MPI_SUCCESS);
    K(MPI_ERR_BUFFER);
    K(MPI_ERR_COUNT);
    K(MPI_ERR_TYPE);
    K(MPI_ERR_TAG);
    K(MPI_ERR_COMM);
    K(MPI_ERR_RANK);
    K(MPI_ERR_ROOT);
    K(MPI_ERR_GROUP);
    K(MPI_ERR_OP);
    K(MPI_ERR_TOPOLOGY);
    K(MPI_ERR_DIMS);
    K(MPI_ERR_ARG);
    K(MPI_ERR_UNKNOWN);
    K(MPI_ERR_TRUNCATE);
    K(MPI_ERR_OTHER);
    K(MPI_ERR_INTERN);
    K(MPI_ERR_IN_STATUS);
    K(MPI_ERR_PENDING);
    K(MPI_ERR_REQUEST);
    K(MPI_ERR_ACCESS);
    K(MPI_ERR_AMODE);
    K(MPI_ERR_BAD_FILE);
    K(MPI_ERR_CONVERSION);
    K(MPI_ERR_DUP_DATAREP);
    K(MPI_ERR_FILE_EXISTS);
    K(MPI_ERR_FILE_IN_USE);
    K(MPI_ERR_FILE);
    K(MPI_ERR_INFO);
    K(MPI_ERR_INFO_KEY);
    K(MPI_ERR_INFO_VALUE);
    K(MPI_ERR_INFO_NOKEY);
    K(MPI_ERR_IO);
    K(MPI_ERR_NAME);
    K(MPI_ERR_NO_MEM);
    K(MPI_ERR_NOT_SAME);
    K(MPI_ERR_NO_SPACE);
    K(MPI_ERR_NO_SUCH_FILE);
    K(MPI_ERR_PORT);
    K(MPI_ERR_QUOTA);
    K(MPI_ERR_READ_ONLY);
    K(MPI_ERR_SERVICE);
    K(MPI_ERR_SPAWN);
    K(MPI_ERR_UNSUPPORTED_DATAREP);
    K(MPI_ERR_UNSUPPORTED_OPERATION);
    K(MPI_ERR_WIN);
    K(MPI_ERR_BASE);
    K(MPI_ERR_LOCKTYPE);
    K(MPI_ERR_KEYVAL);
    K(MPI_ERR_RMA_CONFLICT);
    K(MPI_ERR_RMA_SYNC);
    K(MPI_ERR_SIZE);
    K(MPI_ERR_DISP);
    K(MPI_ERR_ASSERT);
    K(MPI_ERR_RMA_RANGE);
    K(MPI_ERR_RMA_ATTACH);
    K(MPI_ERR_RMA_SHARED);
    K(MPI_ERR_RMA_FLAVOR);
    K(MPI_T_ERR_MEMORY);
    K(MPI_T_ERR_NOT_INITIALIZED);
    K(MPI_T_ERR_CANNOT_INIT);
    K(MPI_T_ERR_INVALID_INDEX);
    K(MPI_T_ERR_INVALID_ITEM);
    K(MPI_T_ERR_INVALID_HANDLE);
    K(MPI_T_ERR_OUT_OF_HANDLES);
    K(MPI_T_ERR_OUT_OF_SESSIONS);
    K(MPI_T_ERR_INVALID_SESSION);
    K(MPI_T_ERR_CVAR_SET_NOT_NOW);
    K(MPI_T_ERR_CVAR_SET_NEVER);
    K(MPI_T_ERR_PVAR_NO_STARTSTOP);
    K(MPI_T_ERR_PVAR_NO_WRITE);
    K(MPI_T_ERR_PVAR_NO_ATOMIC);
    K(MPI_T_ERR_INVALID_NAME);
    K(MPI_T_ERR_INVALID);
    K(MPI_ERR_SESSION);
    K(MPI_ERR_PROC_ABORTED);
    K(MPI_ERR_VALUE_TOO_LARGE);
    K(MPI_T_ERR_NOT_SUPPORTED);
#ifdef MPI_T_ERR_NOT_ACCESSIBLE
    K(MPI_T_ERR_NOT_ACCESSIBLE);
#endif
#ifdef MPI_ERR_ERRHANDLER
    K(MPI_ERR_ERRHANDLER);
#endif
    K(MPI_ERR_LASTCODE);
    K(MPIX_ERR_PROC_FAILED);
    K(MPIX_ERR_PROC_FAILED_PENDING);
    K(MPIX_ERR_REVOKED);
    K(MPIX_ERR_EAGAIN);
    K(MPIX_ERR_NOREQ);
}

static void special_values(void)
{
    K(MPI_ANY_SOURCE);
    K(MPI_ANY_TAG);
    K(MPI_PROC_NULL);
    K(MPI_ROOT);
    K(MPI_UNDEFINED);
    K(MPI_BSEND_OVERHEAD);

    P(MPI_BOTTOM, void *);
    P(MPI_IN_PLACE, void *);
#ifdef MPI_BUFFER_AUTOMATIC
    P(MPI_BUFFER_AUTOMATIC, void *);
#endif
    P(MPI_STATUS_IGNORE, MPI_Status *);
    P(MPI_STATUSES_IGNORE, MPI_Status *);
    P(MPI_ERRCODES_IGNORE, int *);
    P(MPI_ARGV_NULL, char **);
    P(MPI_ARGVS_NULL, char ***);

    K(MPI_F_STATUS_SIZE);
    K(MPI_F_SOURCE);
    K(MPI_F_TAG);
    K(MPI_F_ERROR);
}

static void data_objects(void)
{
    D(MPI_UNWEIGHTED, int * const);
    D(MPI_WEIGHTS_EMPTY, int * const);
    D(MPI_F_STATUS_IGNORE, MPI_Fint *);
    D(MPI_F_STATUSES_IGNORE, MPI_Fint *);
    D(MPI_F08_STATUS_IGNORE, MPI_F08_status *);
    D(MPI_F08_STATUSES_IGNORE, MPI_F08_status *);
    D(MPIR_F08_MPI_STATUS_IGNORE_OBJ, MPI_F08_status);
    D(MPIR_F08_MPI_STATUSES_IGNORE_OBJ, MPI_F08_status[1]);
    D(MPIR_F08_MPI_IN_PLACE, int);
    D(MPIR_F08_MPI_BOTTOM, int);
    D(MPI_T_PVAR_ALL_HANDLES, MPI_T_pvar_handle const);
}

static void enumerations(void)
{
    K(MPI_THREAD_SINGLE);
    K(MPI_THREAD_FUNNELED);
    K(MPI_THREAD_SERIALIZED);
    K(MPI_THREAD_MULTIPLE);

    K(MPI_IDENT);
    K(MPI_CONGRUENT);
    K(MPI_SIMILAR);
    K(MPI_UNEQUAL);

    K(MPI_GRAPH);
    K(MPI_CART);
    K(MPI_DIST_GRAPH);

    K(MPI_COMM_TYPE_SHARED);
    K(MPI_COMM_TYPE_HW_GUIDED);
    K(MPI_COMM_TYPE_HW_UNGUIDED);
    K(MPIX_COMM_TYPE_NEIGHBORHOOD);
#ifdef MPI_COMM_TYPE_RESOURCE_GUIDED
    K(MPI_COMM_TYPE_RESOURCE_GUIDED);
#endif

    K(MPI_COMBINER_NAMED);
    K(MPI_COMBINER_DUP);
    K(MPI_COMBINER_CONTIGUOUS);
    K(MPI_COMBINER_VECTOR);
    K(MPI_COMBINER_HVECTOR_INTEGER);
    K(MPI_COMBINER_HVECTOR);
    K(MPI_COMBINER_INDEXED);
    K(MPI_COMBINER_HINDEXED_INTEGER);
    K(MPI_COMBINER_HINDEXED);
    K(MPI_COMBINER_INDEXED_BLOCK);
    K(MPI_COMBINER_STRUCT_INTEGER);
    K(MPI_COMBINER_STRUCT);
    K(MPI_COMBINER_SUBARRAY);
    K(MPI_COMBINER_DARRAY);
    K(MPI_COMBINER_F90_REAL);
    K(MPI_COMBINER_F90_COMPLEX);
    K(MPI_COMBINER_F90_INTEGER);
    K(MPI_COMBINER_RESIZED);
    K(MPI_COMBINER_HINDEXED_BLOCK);
#ifdef MPI_COMBINER_VALUE_INDEX
    K(MPI_COMBINER_VALUE_INDEX);
#endif

    K(MPI_ORDER_C);
    K(MPI_ORDER_FORTRAN);
    K(MPI_DISTRIBUTE_BLOCK);
    K(MPI_DISTRIBUTE_CYCLIC);
    K(MPI_DISTRIBUTE_NONE);
    K(MPI_DISTRIBUTE_DFLT_DARG);

    K(MPI_WIN_FLAVOR_CREATE);
    K(MPI_WIN_FLAVOR_ALLOCATE);
    K(MPI_WIN_FLAVOR_DYNAMIC);
    K(MPI_WIN_FLAVOR_SHARED);
    K(MPI_WIN_SEPARATE);
    K(MPI_WIN_UNIFIED);
    K(MPI_LOCK_EXCLUSIVE);
    K(MPI_LOCK_SHARED);
    K(MPI_MODE_NOCHECK);
    K(MPI_MODE_NOSTORE);
    K(MPI_MODE_NOPUT);
    K(MPI_MODE_NOPRECEDE);
    K(MPI_MODE_NOSUCCEED);

    K(MPI_MODE_RDONLY);
    K(MPI_MODE_RDWR);
    K(MPI_MODE_WRONLY);
    K(MPI_MODE_CREATE);
    K(MPI_MODE_EXCL);
    K(MPI_MODE_DELETE_ON_CLOSE);
    K(MPI_MODE_UNIQUE_OPEN);
    K(MPI_MODE_APPEND);
    K(MPI_MODE_SEQUENTIAL);
    K(MPI_SEEK_SET);
    K(MPI_SEEK_CUR);
    K(MPI_SEEK_END);
    K(MPI_DISPLACEMENT_CURRENT);

    K(MPIX_GPU_SUPPORT_CUDA);
    K(MPIX_GPU_SUPPORT_ZE);
    K(MPIX_GPU_SUPPORT_HIP);
}

static void callbacks(void)
{
    /* Callback signatures, spelled out from MPICH's header */
    T("sig:MPI_User_function", MPI_User_function,
      void(void *, void *, int *, MPI_Datatype *));
    T("sig:MPI_User_function_c", MPI_User_function_c,
      void(void *, void *, MPI_Count *, MPI_Datatype *));
    T("sig:MPI_Comm_errhandler_function", MPI_Comm_errhandler_function,
      void(MPI_Comm *, int *, ...));
    T("sig:MPI_Win_errhandler_function", MPI_Win_errhandler_function,
      void(MPI_Win *, int *, ...));
    T("sig:MPI_File_errhandler_function", MPI_File_errhandler_function,
      void(MPI_File *, int *, ...));
    T("sig:MPI_Session_errhandler_function", MPI_Session_errhandler_function,
      void(MPI_Session *, int *, ...));
    T("sig:MPI_Comm_errhandler_fn", MPI_Comm_errhandler_fn, void(MPI_Comm *, int *, ...));
    T("sig:MPI_Win_errhandler_fn", MPI_Win_errhandler_fn, void(MPI_Win *, int *, ...));
    T("sig:MPI_File_errhandler_fn", MPI_File_errhandler_fn, void(MPI_File *, int *, ...));
    T("sig:MPI_Session_errhandler_fn", MPI_Session_errhandler_fn,
      void(MPI_Session *, int *, ...));
    T("sig:MPI_Handler_function", MPI_Handler_function, void(MPI_Comm *, int *, ...));
    T("sig:MPI_Comm_copy_attr_function", MPI_Comm_copy_attr_function,
      int(MPI_Comm, int, void *, void *, void *, int *));
    T("sig:MPI_Comm_delete_attr_function", MPI_Comm_delete_attr_function,
      int(MPI_Comm, int, void *, void *));
    T("sig:MPI_Type_copy_attr_function", MPI_Type_copy_attr_function,
      int(MPI_Datatype, int, void *, void *, void *, int *));
    T("sig:MPI_Type_delete_attr_function", MPI_Type_delete_attr_function,
      int(MPI_Datatype, int, void *, void *));
    T("sig:MPI_Win_copy_attr_function", MPI_Win_copy_attr_function,
      int(MPI_Win, int, void *, void *, void *, int *));
    T("sig:MPI_Win_delete_attr_function", MPI_Win_delete_attr_function,
      int(MPI_Win, int, void *, void *));
    T("sig:MPI_Copy_function", MPI_Copy_function,
      int(MPI_Comm, int, void *, void *, void *, int *));
    T("sig:MPI_Delete_function", MPI_Delete_function, int(MPI_Comm, int, void *, void *));
    T("sig:MPI_Grequest_query_function", MPI_Grequest_query_function,
      int(void *, MPI_Status *));
    T("sig:MPI_Grequest_free_function", MPI_Grequest_free_function, int(void *));
    T("sig:MPI_Grequest_cancel_function", MPI_Grequest_cancel_function, int(void *, int));
    T("sig:MPIX_Grequest_poll_function", MPIX_Grequest_poll_function,
      int(void *, MPI_Status *));
    T("sig:MPIX_Grequest_wait_function", MPIX_Grequest_wait_function,
      int(int, void **, double, MPI_Status *));
    T("sig:MPI_Datarep_extent_function", MPI_Datarep_extent_function,
      int(MPI_Datatype, MPI_Aint *, void *));
    T("sig:MPI_Datarep_conversion_function", MPI_Datarep_conversion_function,
      int(void *, MPI_Datatype, int, void *, MPI_Offset, void *));
    T("sig:MPI_Datarep_conversion_function_c", MPI_Datarep_conversion_function_c,
      int(void *, MPI_Datatype, MPI_Count, void *, MPI_Offset, void *));
    T("sig:MPI_T_event_cb_function", MPI_T_event_cb_function,
      void(MPI_T_event_instance, MPI_T_event_registration, MPI_T_cb_safety, void *));
    T("sig:MPI_T_event_free_cb_function", MPI_T_event_free_cb_function,
      void(MPI_T_event_registration, MPI_T_cb_safety, void *));
    T("sig:MPI_T_event_dropped_cb_function", MPI_T_event_dropped_cb_function,
      void(MPI_Count, MPI_T_event_registration, int, MPI_T_cb_safety, void *));

    /* Predefined callbacks: what they designate, and their types */
    FN(MPI_NULL_COPY_FN, MPI_Copy_function *);
    FN(MPI_NULL_DELETE_FN, MPI_Delete_function *);
    FN(MPI_DUP_FN, int(MPI_Comm, int, void *, void *, void *, int *));
    FN(MPI_COMM_NULL_COPY_FN, MPI_Comm_copy_attr_function *);
    FN(MPI_COMM_NULL_DELETE_FN, MPI_Comm_delete_attr_function *);
    FN(MPI_COMM_DUP_FN, MPI_Comm_copy_attr_function *);
    FN(MPI_TYPE_NULL_COPY_FN, MPI_Type_copy_attr_function *);
    FN(MPI_TYPE_NULL_DELETE_FN, MPI_Type_delete_attr_function *);
    FN(MPI_TYPE_DUP_FN, MPI_Type_copy_attr_function *);
    FN(MPI_WIN_NULL_COPY_FN, MPI_Win_copy_attr_function *);
    FN(MPI_WIN_NULL_DELETE_FN, MPI_Win_delete_attr_function *);
    FN(MPI_WIN_DUP_FN, MPI_Win_copy_attr_function *);
    FN(MPI_CONVERSION_FN_NULL, MPI_Datarep_conversion_function *);
    FN(MPI_CONVERSION_FN_NULL_C, MPI_Datarep_conversion_function_c *);
}

static void tool_interface(void)
{
    P(MPI_T_ENUM_NULL, MPI_T_enum);
    P(MPI_T_CVAR_HANDLE_NULL, MPI_T_cvar_handle);
    P(MPI_T_PVAR_HANDLE_NULL, MPI_T_pvar_handle);
    P(MPI_T_PVAR_SESSION_NULL, MPI_T_pvar_session);

    K(MPI_T_VERBOSITY_INVALID);
    K(MPI_T_VERBOSITY_USER_BASIC);
    K(MPI_T_VERBOSITY_USER_DETAIL);
    K(MPI_T_VERBOSITY_USER_ALL);
    K(MPI_T_VERBOSITY_TUNER_BASIC);
    K(MPI_T_VERBOSITY_TUNER_DETAIL);
    K(MPI_T_VERBOSITY_TUNER_ALL);
    K(MPI_T_VERBOSITY_MPIDEV_BASIC);
    K(MPI_T_VERBOSITY_MPIDEV_DETAIL);
    K(MPI_T_VERBOSITY_MPIDEV_ALL);

    K(MPI_T_BIND_INVALID);
    K(MPI_T_BIND_NO_OBJECT);
    K(MPI_T_BIND_MPI_COMM);
    K(MPI_T_BIND_MPI_DATATYPE);
    K(MPI_T_BIND_MPI_ERRHANDLER);
    K(MPI_T_BIND_MPI_FILE);
    K(MPI_T_BIND_MPI_GROUP);
    K(MPI_T_BIND_MPI_OP);
    K(MPI_T_BIND_MPI_REQUEST);
    K(MPI_T_BIND_MPI_WIN);
    K(MPI_T_BIND_MPI_MESSAGE);
    K(MPI_T_BIND_MPI_INFO);
#ifdef MPI_T_BIND_MPI_SESSION
    K(MPI_T_BIND_MPI_SESSION);
#endif

    K(MPI_T_SCOPE_INVALID);
    K(MPI_T_SCOPE_CONSTANT);
    K(MPI_T_SCOPE_READONLY);
    K(MPI_T_SCOPE_LOCAL);
    K(MPI_T_SCOPE_GROUP);
    K(MPI_T_SCOPE_GROUP_EQ);
    K(MPI_T_SCOPE_ALL);
    K(MPI_T_SCOPE_ALL_EQ);

    K(MPI_T_PVAR_CLASS_INVALID);
    K(MPI_T_PVAR_CLASS_STATE);
    K(MPI_T_PVAR_CLASS_LEVEL);
    K(MPI_T_PVAR_CLASS_SIZE);
    K(MPI_T_PVAR_CLASS_PERCENTAGE);
    K(MPI_T_PVAR_CLASS_HIGHWATERMARK);
    K(MPI_T_PVAR_CLASS_LOWWATERMARK);
    K(MPI_T_PVAR_CLASS_COUNTER);
    K(MPI_T_PVAR_CLASS_AGGREGATE);
    K(MPI_T_PVAR_CLASS_TIMER);
    K(MPI_T_PVAR_CLASS_GENERIC);

    K(MPI_T_CB_REQUIRE_NONE);
    K(MPI_T_CB_REQUIRE_MPI_RESTRICTED);
    K(MPI_T_CB_REQUIRE_THREAD_SAFE);
    K(MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    K(MPI_T_SOURCE_ORDERED);
    K(MPI_T_SOURCE_UNORDERED);
}

int main(void)
{
    version_and_limits();
    types();
    handles();
    datatypes();
    ops();
    attribute_keys();
    error_classes();
    special_values();
    data_objects();
    enumerations();
    callbacks();
    tool_interface();
    return 0;
}
