/* The MPI environment: init and finalize, errors, time, names. */
#include "boot/boot.h"
#include "mpi/bsend.h"
#include "mpi/mcoll.h"
#include "mpi/mpi_int.h"
#include "mpi/handle.h"
#include "mpi/request.h"
#include "p2p/p2p.h"
#include "util/sys.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int mpi_state;
int mpi_world_rank, mpi_world_size;
static pthread_t mpi_main_thread; /* the thread that called MPI_Init */

int MPI_Init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (mpi_state != 0) return mpi_err(NULL, MPI_ERR_OTHER, "MPI_Init", "called twice");
    sl_status_t st = p2p_init(&mpi_world_rank, &mpi_world_size);
    if (st != SL_OK) {
        fprintf(stderr, "MPI_Init: cannot start: %s\n", sl_status_string(st));
        return MPI_ERR_OTHER;
    }
    mcomm_init_world();
    mpi_main_thread = pthread_self();
    __atomic_store_n(&mpi_state, 1, __ATOMIC_RELEASE);
    return MPI_SUCCESS;
}

/* The level MPI_Init_thread granted (MPI_Init: SERIALIZED, as before). */
static int mpi_thread_level = MPI_THREAD_SERIALIZED;

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    if (!provided) return MPI_ERR_ARG;
    int rc = MPI_Init(argc, argv);
    if (rc != MPI_SUCCESS) return rc;
    /* MULTIPLE turns the p2p layer's lock on (src/p2p/mt.c); the lower
     * levels need none: the program never overlaps its calls */
    int level = required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE : required;
    if (level < MPI_THREAD_SINGLE) level = MPI_THREAD_SINGLE;
    if (level == MPI_THREAD_MULTIPLE && p2p_threads(true) != SL_OK) level = MPI_THREAD_SERIALIZED;
    mpi_thread_level = level;
    *provided = level;
    return MPI_SUCCESS;
}

int MPI_Query_thread(int *provided)
{
    if (!provided) return MPI_ERR_ARG;
    *provided = mpi_thread_level;
    return MPI_SUCCESS;
}

int MPI_Is_thread_main(int *flag)
{
    MPI_CHECK_STATE("MPI_Is_thread_main");
    if (!flag) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Is_thread_main", "flag is NULL");
    *flag = pthread_equal(pthread_self(), mpi_main_thread) != 0;
    return MPI_SUCCESS;
}

int MPI_Finalize(void)
{
    /* attribute delete callbacks may still call MPI (MPI 4.0 §11.2.4), so
     * they go before anything else; then the collectives' progress thread
     * (it takes the lock) */
    int arc = MPI_SUCCESS;
    if (__atomic_load_n(&mpi_state, __ATOMIC_ACQUIRE) == 1) {
        arc = mattr_finalize();
        coll_async_stop();
    }
    MPI_CHECK_STATE("MPI_Finalize");
    mbsend_drain(); /* buffered sends still in flight finish first */
    mreq_reap_detached(true); /* and operations whose requests were freed */
    mcoll_fini();
    sl_status_t st = p2p_fini();
    mreq_fini();
    mh_fini_all(); /* after the last request and communicator went */
    __atomic_store_n(&mpi_state, 2, __ATOMIC_RELEASE); /* MPI_Finalized may ask from another thread */
    return st == SL_OK ? arc : MPI_ERR_OTHER;
}

int MPI_Initialized(int *flag)
{
    if (!flag) return MPI_ERR_ARG;
    *flag = __atomic_load_n(&mpi_state, __ATOMIC_ACQUIRE) != 0;
    return MPI_SUCCESS;
}

int MPI_Finalized(int *flag)
{
    if (!flag) return MPI_ERR_ARG;
    *flag = __atomic_load_n(&mpi_state, __ATOMIC_ACQUIRE) == 2;
    return MPI_SUCCESS;
}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
    (void)comm;
    char msg[96];
    snprintf(msg, sizeof msg, "MPI_Abort(%d) called by rank %d", errorcode, mpi_world_rank);
    boot_t *boot;
    if (boot_init(&boot) == SL_OK) boot_abort(boot, errorcode, msg); /* ends the job */
    _exit(errorcode);
}

double MPI_Wtime(void)
{
    return (double)sl_now_ns() * 1e-9;
}

double MPI_Wtick(void)
{
    return 1e-9;
}

/* For profiling libraries that interpose it; Sluice has no profiling
 * levels.  Any time, like MPI_Wtime. */
int MPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}

int MPI_Get_processor_name(char *name, int *resultlen)
{
    if (!name || !resultlen) return MPI_ERR_ARG;
    if (gethostname(name, MPI_MAX_PROCESSOR_NAME) != 0) strcpy(name, "localhost");
    name[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

int MPI_Get_version(int *version, int *subversion)
{
    if (!version || !subversion) return MPI_ERR_ARG;
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

int MPI_Get_library_version(char *version, int *resultlen)
{
    if (!version || !resultlen) return MPI_ERR_ARG;
    int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "Sluice %s (MPI %d.%d subset)",
                     SLUICE_VERSION, MPI_VERSION, MPI_SUBVERSION);
    *resultlen = n < MPI_MAX_LIBRARY_VERSION_STRING ? n : MPI_MAX_LIBRARY_VERSION_STRING - 1;
    return MPI_SUCCESS;
}

/* ---- errors -------------------------------------------------------------------------- */

#define MPI_ERR_TABLE(X)                                                                    \
    X(MPI_SUCCESS, "no error") X(MPI_ERR_BUFFER, "invalid buffer pointer")                  \
    X(MPI_ERR_COUNT, "invalid count") X(MPI_ERR_TYPE, "invalid datatype")                   \
    X(MPI_ERR_TAG, "invalid tag") X(MPI_ERR_COMM, "invalid communicator")                   \
    X(MPI_ERR_RANK, "invalid rank") X(MPI_ERR_ROOT, "invalid root")                         \
    X(MPI_ERR_GROUP, "invalid group") X(MPI_ERR_OP, "invalid operation")                    \
    X(MPI_ERR_TOPOLOGY, "invalid topology") X(MPI_ERR_DIMS, "invalid dimensions")           \
    X(MPI_ERR_ARG, "invalid argument") X(MPI_ERR_UNKNOWN, "unknown error")                  \
    X(MPI_ERR_TRUNCATE, "message truncated") X(MPI_ERR_OTHER, "other error")                \
    X(MPI_ERR_INTERN, "internal error") X(MPI_ERR_IN_STATUS, "error code is in status")     \
    X(MPI_ERR_PENDING, "pending request") X(MPI_ERR_REQUEST, "invalid request")             \
    X(MPI_ERR_INFO, "invalid info") X(MPI_ERR_NO_MEM, "out of memory")                      \
    X(MPI_ERR_UNSUPPORTED_OPERATION, "operation not supported")                             \
    X(MPI_ERR_KEYVAL, "invalid attribute key") X(MPI_ERR_SIZE, "invalid size")

int MPI_Error_string(int errorcode, char *string, int *resultlen)
{
    if (!string || !resultlen) return MPI_ERR_ARG;
    const char *user = merr_user_string(errorcode);
    if (user) { /* added by the program: its string alone */
        int n = snprintf(string, MPI_MAX_ERROR_STRING, "%s", user);
        *resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
        return MPI_SUCCESS;
    }
    const char *msg = NULL, *name = NULL;
    switch (errorcode) {
#define MPI_ERR_CASE_(c, m)                                                                 \
    case c:                                                                                 \
        name = #c;                                                                          \
        msg = m;                                                                            \
        break;
        MPI_ERR_TABLE(MPI_ERR_CASE_)
#undef MPI_ERR_CASE_
    default: break;
    }
    int n = msg ? snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s", name, msg)
                : snprintf(string, MPI_MAX_ERROR_STRING, "MPI error class %d", errorcode);
    *resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
    return errorcode >= 0 && errorcode <= MPI_ERR_LASTCODE ? MPI_SUCCESS : MPI_ERR_ARG;
}

int MPI_Error_class(int errorcode, int *errorclass)
{
    if (errorclass && merr_user_class(errorcode, errorclass)) return MPI_SUCCESS;
    if (!errorclass || errorcode < 0 || errorcode > MPI_ERR_LASTCODE) return MPI_ERR_ARG;
    *errorclass = errorcode; /* every code Sluice returns is a class */
    return MPI_SUCCESS;
}

int mpi_err(const mcomm_t *c, int cls, const char *fname, const char *detail)
{
    if (!c) c = mcomm_get(MPI_COMM_WORLD);
    if (c && c->errh == MPI_ERRORS_RETURN) return cls;
    if (c && merrh_invoke(c, cls)) return cls;
    char s[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(cls, s, &len);
    char msg[MPI_MAX_ERROR_STRING + 160];
    snprintf(msg, sizeof msg, "%s on rank %d: %s%s%s", fname, mpi_world_rank, s,
             detail ? ": " : "", detail ? detail : "");
    fprintf(stderr, "%s\n", msg);
    boot_t *boot;
    if (boot_init(&boot) == SL_OK) boot_abort(boot, cls ? cls : 1, msg);
    _exit(cls ? cls : 1);
}
