/* include/mpi.h: distinct error classes, distinct predefined handles, the
 * size encoding of predefined datatypes, types and structure layout, and a
 * few signatures.  Functions are only examined through __typeof__. */
#include <mpi.h>

#include <complex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

#include "test.h"

#define N_(a) (sizeof(a) / sizeof((a)[0]))
#define SAME_TYPE(a, b) __builtin_types_compatible_p(a, b)
#define SIG(fn, type) _Static_assert(SAME_TYPE(__typeof__(&fn), type), #fn " signature")

_Static_assert(MPI_VERSION == 3 && MPI_SUBVERSION == 1, "MPI 3.1");
_Static_assert(sizeof(MPI_Aint) == 8 && sizeof(MPI_Offset) == 8 && sizeof(MPI_Count) == 8,
               "64-bit MPI_Aint, MPI_Offset, MPI_Count");
_Static_assert(sizeof(MPI_Aint) == sizeof(void *), "MPI_Aint holds an address");
_Static_assert(SAME_TYPE(MPI_Comm, int) && SAME_TYPE(MPI_Datatype, int) &&
                   SAME_TYPE(MPI_Request, int) && SAME_TYPE(MPI_Op, int) &&
                   SAME_TYPE(MPI_Group, int) && SAME_TYPE(MPI_Errhandler, int) &&
                   SAME_TYPE(MPI_Message, int) && SAME_TYPE(MPI_Info, int),
               "handles are int");
_Static_assert(SAME_TYPE(__typeof__(((MPI_Status *)0)->MPI_SOURCE), int) &&
                   SAME_TYPE(__typeof__(((MPI_Status *)0)->MPI_TAG), int) &&
                   SAME_TYPE(__typeof__(((MPI_Status *)0)->MPI_ERROR), int),
               "public status fields");
_Static_assert(sizeof(MPI_Status) == 20, "MPICH-sized status");

SIG(MPI_Send, int (*)(const void *, int, MPI_Datatype, int, int, MPI_Comm));
SIG(MPI_Recv, int (*)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *));
SIG(MPI_Isend, int (*)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *));
SIG(MPI_Waitall, int (*)(int, MPI_Request *, MPI_Status *));
SIG(MPI_Testsome, int (*)(int, MPI_Request *, int *, int *, MPI_Status *));
SIG(MPI_Mprobe, int (*)(int, int, MPI_Comm, MPI_Message *, MPI_Status *));
SIG(MPI_Mrecv, int (*)(void *, int, MPI_Datatype, MPI_Message *, MPI_Status *));
SIG(MPI_Type_create_struct,
    int (*)(int, const int *, const MPI_Aint *, const MPI_Datatype *, MPI_Datatype *));
SIG(MPI_Get_elements_x, int (*)(const MPI_Status *, MPI_Datatype, MPI_Count *));
SIG(MPI_Alloc_mem, int (*)(MPI_Aint, MPI_Info, void *));
SIG(MPI_Wtime, double (*)(void));
SIG(MPI_Allreduce, int (*)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm));

static void check_distinct(const char *what, const long long *v, const char *const *name,
                           size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            CHECK_MSG(v[i] != v[j], "%s: %s and %s are both %lld", what, name[i], name[j], v[i]);
}

#define E(x) {x, #x}
struct named {
    long long v;
    const char *name;
};

static void split(const struct named *t, size_t n, long long *v, const char **name)
{
    for (size_t i = 0; i < n; i++) v[i] = t[i].v, name[i] = t[i].name;
}

static void test_error_classes(void)
{
    static const struct named cls[] = {
        E(MPI_SUCCESS), E(MPI_ERR_BUFFER), E(MPI_ERR_COUNT), E(MPI_ERR_TYPE), E(MPI_ERR_TAG),
        E(MPI_ERR_COMM), E(MPI_ERR_RANK), E(MPI_ERR_REQUEST), E(MPI_ERR_ROOT),
        E(MPI_ERR_GROUP), E(MPI_ERR_OP), E(MPI_ERR_TOPOLOGY), E(MPI_ERR_DIMS), E(MPI_ERR_ARG),
        E(MPI_ERR_UNKNOWN), E(MPI_ERR_TRUNCATE), E(MPI_ERR_OTHER), E(MPI_ERR_INTERN),
        E(MPI_ERR_PENDING), E(MPI_ERR_IN_STATUS), E(MPI_ERR_ACCESS), E(MPI_ERR_AMODE),
        E(MPI_ERR_ASSERT), E(MPI_ERR_BAD_FILE), E(MPI_ERR_BASE), E(MPI_ERR_CONVERSION),
        E(MPI_ERR_DISP), E(MPI_ERR_DUP_DATAREP), E(MPI_ERR_FILE_EXISTS),
        E(MPI_ERR_FILE_IN_USE), E(MPI_ERR_FILE), E(MPI_ERR_INFO_KEY), E(MPI_ERR_INFO_NOKEY),
        E(MPI_ERR_INFO_VALUE), E(MPI_ERR_INFO), E(MPI_ERR_IO), E(MPI_ERR_KEYVAL),
        E(MPI_ERR_LOCKTYPE), E(MPI_ERR_NAME), E(MPI_ERR_NO_MEM), E(MPI_ERR_NOT_SAME),
        E(MPI_ERR_NO_SPACE), E(MPI_ERR_NO_SUCH_FILE), E(MPI_ERR_PORT), E(MPI_ERR_QUOTA),
        E(MPI_ERR_READ_ONLY), E(MPI_ERR_RMA_ATTACH), E(MPI_ERR_RMA_CONFLICT),
        E(MPI_ERR_RMA_RANGE), E(MPI_ERR_RMA_SHARED), E(MPI_ERR_RMA_SYNC),
        E(MPI_ERR_RMA_FLAVOR), E(MPI_ERR_SERVICE), E(MPI_ERR_SIZE), E(MPI_ERR_SPAWN),
        E(MPI_ERR_UNSUPPORTED_DATAREP), E(MPI_ERR_UNSUPPORTED_OPERATION), E(MPI_ERR_WIN),
        E(MPI_T_ERR_CANNOT_INIT), E(MPI_T_ERR_NOT_INITIALIZED), E(MPI_T_ERR_MEMORY),
        E(MPI_T_ERR_INVALID), E(MPI_T_ERR_INVALID_INDEX), E(MPI_T_ERR_INVALID_ITEM),
        E(MPI_T_ERR_INVALID_SESSION), E(MPI_T_ERR_INVALID_HANDLE),
        E(MPI_T_ERR_INVALID_NAME), E(MPI_T_ERR_OUT_OF_HANDLES), E(MPI_T_ERR_OUT_OF_SESSIONS),
        E(MPI_T_ERR_CVAR_SET_NOT_NOW), E(MPI_T_ERR_CVAR_SET_NEVER),
        E(MPI_T_ERR_PVAR_NO_WRITE), E(MPI_T_ERR_PVAR_NO_STARTSTOP),
        E(MPI_T_ERR_PVAR_NO_ATOMIC), E(MPI_ERR_LASTCODE)};
    /* MPI 3.1 §8.4 Tables 8.1 and 8.2 and §14.3.9: 74 classes + LASTCODE. */
    _Static_assert(N_(cls) == 75, "every MPI 3.1 error class");
    long long v[N_(cls)];
    const char *name[N_(cls)];
    split(cls, N_(cls), v, name);
    check_distinct("error class", v, name, N_(cls));
    CHECK_EQ(MPI_SUCCESS, 0);
    for (size_t i = 1; i < N_(cls); i++) {
        CHECK_MSG(v[i] > 0, "%s is positive", name[i]);
        CHECK_MSG(v[i] <= MPI_ERR_LASTCODE, "%s <= MPI_ERR_LASTCODE", name[i]);
    }
}

static void test_handles(void)
{
    static const struct named h[] = {
        E(MPI_COMM_NULL), E(MPI_GROUP_NULL), E(MPI_DATATYPE_NULL), E(MPI_ERRHANDLER_NULL),
        E(MPI_OP_NULL), E(MPI_INFO_NULL), E(MPI_REQUEST_NULL),
        E(MPI_COMM_WORLD), E(MPI_COMM_SELF), E(MPI_GROUP_EMPTY), E(MPI_ERRORS_ARE_FATAL),
        E(MPI_ERRORS_RETURN), E(MPI_ERRORS_ABORT), E(MPI_INFO_ENV), E(MPI_MESSAGE_NO_PROC), E(MPI_MAX), E(MPI_MIN),
        E(MPI_SUM), E(MPI_PROD), E(MPI_LAND), E(MPI_BAND), E(MPI_LOR), E(MPI_BOR),
        E(MPI_LXOR), E(MPI_BXOR), E(MPI_MINLOC), E(MPI_MAXLOC), E(MPI_REPLACE), E(MPI_NO_OP),
        /* datatypes (MPI_LONG_LONG and MPI_C_COMPLEX are standard synonyms) */
        E(MPI_CHAR), E(MPI_SIGNED_CHAR), E(MPI_UNSIGNED_CHAR), E(MPI_BYTE), E(MPI_WCHAR),
        E(MPI_SHORT), E(MPI_UNSIGNED_SHORT), E(MPI_INT), E(MPI_UNSIGNED), E(MPI_LONG),
        E(MPI_UNSIGNED_LONG), E(MPI_FLOAT), E(MPI_DOUBLE), E(MPI_LONG_DOUBLE),
        E(MPI_LONG_LONG_INT), E(MPI_UNSIGNED_LONG_LONG), E(MPI_PACKED), E(MPI_INT8_T),
        E(MPI_INT16_T), E(MPI_INT32_T), E(MPI_INT64_T), E(MPI_UINT8_T), E(MPI_UINT16_T),
        E(MPI_UINT32_T), E(MPI_UINT64_T), E(MPI_C_BOOL), E(MPI_C_FLOAT_COMPLEX),
        E(MPI_C_DOUBLE_COMPLEX), E(MPI_C_LONG_DOUBLE_COMPLEX), E(MPI_AINT), E(MPI_OFFSET),
        E(MPI_COUNT), E(MPI_CXX_BOOL), E(MPI_CXX_FLOAT_COMPLEX), E(MPI_CXX_DOUBLE_COMPLEX),
        E(MPI_CXX_LONG_DOUBLE_COMPLEX), E(MPI_CHARACTER), E(MPI_LOGICAL), E(MPI_INTEGER),
        E(MPI_REAL), E(MPI_DOUBLE_PRECISION), E(MPI_COMPLEX), E(MPI_DOUBLE_COMPLEX),
        E(MPI_INTEGER1), E(MPI_INTEGER2), E(MPI_INTEGER4), E(MPI_INTEGER8), E(MPI_REAL4),
        E(MPI_REAL8), E(MPI_COMPLEX8), E(MPI_COMPLEX16), E(MPI_FLOAT_INT), E(MPI_DOUBLE_INT), E(MPI_LONG_INT), E(MPI_SHORT_INT),
        E(MPI_2INT), E(MPI_LONG_DOUBLE_INT), E(MPI_2INTEGER), E(MPI_2REAL),
        E(MPI_2DOUBLE_PRECISION)};
    long long v[N_(h)];
    const char *name[N_(h)];
    split(h, N_(h), v, name);
    check_distinct("handle", v, name, N_(h));
    /* Null handles are kind 0, predefined ones kind 1, except MPICH's five
     * pair datatypes: kind 2 of generation 0 (header comment). */
    for (size_t i = 0; i < N_(h); i++) {
        unsigned kind = ((unsigned)v[i] >> 30) & 3u;
        bool pair = ((unsigned)v[i] & 0xffffff00u) == 0x8c000000u;
        CHECK_MSG(kind == (i < 7 ? 0u : pair ? 2u : 1u), "%s kind %u", name[i], kind);
    }
    /* MPICH's ABI: a message handle's NULL is the request's. */
    CHECK_EQ(MPI_MESSAGE_NULL, MPI_REQUEST_NULL);
    CHECK_EQ(MPI_LONG_LONG, MPI_LONG_LONG_INT);
    CHECK_EQ(MPI_C_COMPLEX, MPI_C_FLOAT_COMPLEX);
    /* Special values. */
    CHECK(MPI_PROC_NULL != MPI_ANY_SOURCE && MPI_PROC_NULL < 0 && MPI_ANY_SOURCE < 0);
    CHECK(MPI_ROOT < 0 && MPI_ROOT != MPI_PROC_NULL && MPI_ROOT != MPI_ANY_SOURCE);
    CHECK(MPI_ANY_TAG < 0 && MPI_UNDEFINED < 0);
    CHECK(MPI_IN_PLACE != MPI_BOTTOM && MPI_BOTTOM == NULL);
    CHECK((void *)MPI_STATUS_IGNORE != NULL && (void *)MPI_STATUSES_IGNORE != NULL);
    CHECK(MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED && MPI_THREAD_FUNNELED < MPI_THREAD_SERIALIZED &&
          MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE);
    CHECK(MPI_IDENT != MPI_CONGRUENT && MPI_CONGRUENT != MPI_SIMILAR &&
          MPI_SIMILAR != MPI_UNEQUAL && MPI_IDENT != MPI_UNEQUAL);
    CHECK(MPI_MAX_PROCESSOR_NAME >= 64 && MPI_MAX_ERROR_STRING >= 64);
}

/* size = bits 15..8 of a predefined datatype handle. */
#define DT_SIZE(dt) ((int)(((unsigned)(dt) >> 8) & 0xffu))
#define SZ(dt, ctype) {dt, sizeof(ctype), #dt}

static void test_datatype_sizes(void)
{
    static const struct {
        MPI_Datatype dt;
        size_t size;
        const char *name;
    } basic[] = {
        SZ(MPI_CHAR, char), SZ(MPI_SIGNED_CHAR, signed char), SZ(MPI_UNSIGNED_CHAR, unsigned char),
        SZ(MPI_BYTE, unsigned char), SZ(MPI_WCHAR, wchar_t), SZ(MPI_SHORT, short),
        SZ(MPI_UNSIGNED_SHORT, unsigned short), SZ(MPI_INT, int), SZ(MPI_UNSIGNED, unsigned),
        SZ(MPI_LONG, long), SZ(MPI_UNSIGNED_LONG, unsigned long), SZ(MPI_FLOAT, float),
        SZ(MPI_DOUBLE, double), SZ(MPI_LONG_DOUBLE, long double),
        SZ(MPI_LONG_LONG_INT, long long), SZ(MPI_LONG_LONG, long long),
        SZ(MPI_UNSIGNED_LONG_LONG, unsigned long long), SZ(MPI_PACKED, char),
        SZ(MPI_INT8_T, int8_t), SZ(MPI_INT16_T, int16_t), SZ(MPI_INT32_T, int32_t),
        SZ(MPI_INT64_T, int64_t), SZ(MPI_UINT8_T, uint8_t), SZ(MPI_UINT16_T, uint16_t),
        SZ(MPI_UINT32_T, uint32_t), SZ(MPI_UINT64_T, uint64_t), SZ(MPI_C_BOOL, _Bool),
        SZ(MPI_C_COMPLEX, float _Complex), SZ(MPI_C_FLOAT_COMPLEX, float _Complex),
        SZ(MPI_C_DOUBLE_COMPLEX, double _Complex),
        SZ(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex), SZ(MPI_AINT, MPI_Aint),
        SZ(MPI_OFFSET, MPI_Offset), SZ(MPI_COUNT, MPI_Count), SZ(MPI_CXX_BOOL, _Bool),
        SZ(MPI_CXX_FLOAT_COMPLEX, float _Complex), SZ(MPI_CXX_DOUBLE_COMPLEX, double _Complex),
        SZ(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex), SZ(MPI_CHARACTER, char),
        SZ(MPI_LOGICAL, int), SZ(MPI_INTEGER, int), SZ(MPI_REAL, float),
        SZ(MPI_DOUBLE_PRECISION, double), SZ(MPI_COMPLEX, float _Complex),
        SZ(MPI_DOUBLE_COMPLEX, double _Complex), SZ(MPI_INTEGER1, int8_t),
        SZ(MPI_INTEGER2, int16_t), SZ(MPI_INTEGER4, int32_t), SZ(MPI_INTEGER8, int64_t),
        SZ(MPI_REAL4, float), SZ(MPI_REAL8, double), SZ(MPI_COMPLEX8, float _Complex),
        SZ(MPI_COMPLEX16, double _Complex),
        /* pairs: the sum of the members (MPICH's kind-2 pairs carry no size) */
        {MPI_2INT, 2 * sizeof(int), "MPI_2INT"},
        {MPI_2INTEGER, 2 * sizeof(int), "MPI_2INTEGER"},
        {MPI_2REAL, 2 * sizeof(float), "MPI_2REAL"},
        {MPI_2DOUBLE_PRECISION, 2 * sizeof(double), "MPI_2DOUBLE_PRECISION"}};
    for (size_t i = 0; i < N_(basic); i++) {
        CHECK_MSG((size_t)DT_SIZE(basic[i].dt) == basic[i].size, "%s: encoded %d, sizeof %zu",
                  basic[i].name, DT_SIZE(basic[i].dt), basic[i].size);
        CHECK_MSG(((unsigned)basic[i].dt & 0xffff0000u) == 0x4c000000u, "%s prefix",
                  basic[i].name);
    }
    CHECK_EQ(MPI_DATATYPE_NULL & 0xffff, 0); /* no size, no index */
}

static void test_status(void)
{
    MPI_Status s = {.MPI_SOURCE = 3, .MPI_TAG = 9, .MPI_ERROR = MPI_ERR_TRUNCATE};
    CHECK(s.MPI_SOURCE == 3 && s.MPI_TAG == 9 && s.MPI_ERROR == MPI_ERR_TRUNCATE);
    MPI_Status arr[2];
    CHECK(sizeof arr == 2 * sizeof(MPI_Status));
}

int main(void)
{
    test_error_classes();
    test_handles();
    test_datatype_sizes();
    test_status();
    t_done("mpi_header");
    return 0;
}
