/* MPI-4 large counts: the _c forms (MPI 4.0 §3.2.4, §6, §5.1) of
 * point-to-point, the collectives, the status queries and the datatype
 * constructors, over the int forms.
 *
 * A scalar count that fits an int is passed on as it is.  A larger one
 * travels as one element of a type made for it (mlc_make: 2^30-element
 * chunks and the rest, resized to the extent of count elements), which
 * has the same type signature, so the peer may use either form and any
 * count; the engine below works in 64-bit bytes throughout (p2p messages
 * up to 1 TiB, statuses with 64-bit byte counts).  Reductions over such a
 * type work for the predefined ops (op.c reduces derived types of one
 * basic type); a user op would see one element of the made type instead
 * of the user's, so that case is MPI_ERR_COUNT.  Count and displacement
 * arrays (the v and w forms, the indexed and struct constructors) and the
 * positions of Pack/Unpack are converted to int and give MPI_ERR_COUNT
 * beyond it: never a silent truncation.  A negative count is handed on as
 * -1, so that the int form raises MPI_ERR_COUNT where the count matters
 * (MPI leaves it unread elsewhere, e.g. a gather's recvcount off the root). */
#include "mpi/datatype.h"
#include "mpi/handle.h"
#include "mpi/lcount.h"
#include "mpi/mpi_int.h"

#include <limits.h>
#include <stdlib.h>

#define CHUNK (1 << 30)

int mlc_err(MPI_Comm comm, int cls, const char *fname, const char *why)
{
    return mpi_err(mcomm_get(comm), cls, fname, why);
}

/* A committed type of count (> INT_MAX) elements of dt. */
int mlc_make(MPI_Count count, MPI_Datatype dt, MPI_Datatype *out)
{
    MPI_Aint lb, ext, span;
    MPI_Count q = count / CHUNK, r = count % CHUNK, size, bytes;
    int err = MPI_Type_get_extent(dt, &lb, &ext);
    if (!err) err = MPI_Type_size_x(dt, &size);
    if (err) return err;
    /* count elements whose bytes or extent do not fit 64 bits cannot be
     * described (the multiplications below would overflow) */
    if (q > INT_MAX || __builtin_mul_overflow(count, size, &bytes) ||
        __builtin_mul_overflow((MPI_Aint)count, ext, &span))
        return MPI_ERR_COUNT;
    MPI_Datatype c, s;
    if ((err = MPI_Type_contiguous(CHUNK, dt, &c))) return err;
    if (r == 0) {
        err = MPI_Type_contiguous((int)q, c, &s);
    } else {
        int bl[2] = {(int)q, (int)r};
        MPI_Aint d[2] = {0, (MPI_Aint)(q * CHUNK) * ext};
        MPI_Datatype ts[2] = {c, dt};
        err = MPI_Type_create_struct(2, bl, d, ts, &s);
    }
    MPI_Type_free(&c);
    if (err) return err;
    /* the extent of count elements whatever the struct's alignment padding
     * (a gather places block i at i * extent) */
    err = MPI_Type_create_resized(s, lb, span, out);
    MPI_Type_free(&s);
    if (!err && (err = MPI_Type_commit(out))) MPI_Type_free(out);
    return err;
}


int mlc_of(MPI_Count count, MPI_Datatype dt, mlc_t *x, MPI_Comm comm, const char *fname)
{
    *x = (mlc_t){.n = count < 0 ? -1 : (int)count, .t = dt};
    if (count <= INT_MAX) return MPI_SUCCESS;
    int err = mlc_make(count, dt, &x->t);
    if (err) return mlc_err(comm, err, fname, "cannot describe that many elements");
    x->n = 1;
    x->made = true;
    return MPI_SUCCESS;
}

int mlc_done(mlc_t *x, int err)
{
    if (x->made) MPI_Type_free(&x->t);
    return err;
}

/* Arrays of n counts or displacements as ints (NULL stays NULL: an
 * argument MPI does not read on this rank); *out malloc'd. */
int mlc_ints(const MPI_Count *a, int n, int **out, MPI_Comm comm, const char *fname)
{
    *out = NULL;
    if (!a) return MPI_SUCCESS;
    int *b = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!b) return mlc_err(comm, MPI_ERR_NO_MEM, fname, NULL);
    for (int i = 0; i < n; i++) {
        if (a[i] > INT_MAX || a[i] < INT_MIN) {
            free(b);
            return mlc_err(comm, MPI_ERR_COUNT, fname,
                          "a count or displacement array entry beyond int (not supported)");
        }
        b[i] = (int)a[i];
    }
    *out = b;
    return MPI_SUCCESS;
}


/* A scalar that must fit an int (negative ones go on as -1, for the int
 * form to refuse). */
bool mlc_int(MPI_Count v, int *out)
{
    if (v > INT_MAX) return false;
    *out = v < 0 ? (v < INT_MIN ? -1 : (int)v) : (int)v;
    return true;
}

/* ---- point-to-point ------------------------------------------------------------------------ */

#define LC_ONE(Name, PARAMS, ARGS, COMM)                                                      \
    int MPI_##Name##_c PARAMS                                                                 \
    {                                                                                         \
        mlc_t x;                                                                               \
        int err = mlc_of(count, datatype, &x, COMM, "MPI_" #Name "_c");                        \
        return err ? err : mlc_done(&x, MPI_##Name ARGS);                                      \
    }

#define LC_SENDP (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
#define LC_SENDA (buf, x.n, x.t, dest, tag, comm)
#define LC_ISENDP                                                                             \
    (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, \
     MPI_Request *request)
#define LC_ISENDA (buf, x.n, x.t, dest, tag, comm, request)
#define LC_IRECVP                                                                             \
    (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,    \
     MPI_Request *request)
#define LC_IRECVA (buf, x.n, x.t, source, tag, comm, request)

LC_ONE(Send, LC_SENDP, LC_SENDA, comm)
LC_ONE(Ssend, LC_SENDP, LC_SENDA, comm)
LC_ONE(Rsend, LC_SENDP, LC_SENDA, comm)
LC_ONE(Bsend, LC_SENDP, LC_SENDA, comm)
LC_ONE(Isend, LC_ISENDP, LC_ISENDA, comm)
LC_ONE(Issend, LC_ISENDP, LC_ISENDA, comm)
LC_ONE(Irsend, LC_ISENDP, LC_ISENDA, comm)
LC_ONE(Ibsend, LC_ISENDP, LC_ISENDA, comm)
LC_ONE(Send_init, LC_ISENDP, LC_ISENDA, comm)
LC_ONE(Ssend_init, LC_ISENDP, LC_ISENDA, comm)
LC_ONE(Rsend_init, LC_ISENDP, LC_ISENDA, comm)
LC_ONE(Bsend_init, LC_ISENDP, LC_ISENDA, comm)
LC_ONE(Irecv, LC_IRECVP, LC_IRECVA, comm)
LC_ONE(Recv_init, LC_IRECVP, LC_IRECVA, comm)
LC_ONE(Recv,
       (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
        MPI_Status *status),
       (buf, x.n, x.t, source, tag, comm, status), comm)
LC_ONE(Sendrecv_replace,
       (void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
        int recvtag, MPI_Comm comm, MPI_Status *status),
       (buf, x.n, x.t, dest, sendtag, source, recvtag, comm, status), comm)
LC_ONE(Isendrecv_replace,
       (void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
        int recvtag, MPI_Comm comm, MPI_Request *request),
       (buf, x.n, x.t, dest, sendtag, source, recvtag, comm, request), comm)
LC_ONE(Mrecv,
       (void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status),
       (buf, x.n, x.t, message, status), MPI_COMM_WORLD)
LC_ONE(Imrecv,
       (void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
        MPI_Request *request),
       (buf, x.n, x.t, message, request), MPI_COMM_WORLD)

/* Two buffers (send and receive side). */
#define LC_TWO(fname, COMM, CALL)                                                             \
    mlc_t s, r;                                                                                \
    int err = mlc_of(sendcount, sendtype, &s, COMM, fname);                                    \
    if (err) return err;                                                                      \
    if ((err = mlc_of(recvcount, recvtype, &r, COMM, fname))) return mlc_done(&s, err);         \
    err = CALL;                                                                               \
    mlc_done(&r, 0);                                                                           \
    return mlc_done(&s, err)

int MPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                   int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                   int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    LC_TWO("MPI_Sendrecv_c", comm,
           MPI_Sendrecv(sendbuf, s.n, s.t, dest, sendtag, recvbuf, r.n, r.t, source, recvtag, comm,
                        status));
}

int MPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    LC_TWO("MPI_Isendrecv_c", comm,
           MPI_Isendrecv(sendbuf, s.n, s.t, dest, sendtag, recvbuf, r.n, r.t, source, recvtag,
                         comm, request));
}

/* ---- statuses ------------------------------------------------------------------------------ */

int MPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    if (!status || status == MPI_STATUS_IGNORE || !count)
        return mpi_err(NULL, MPI_ERR_ARG, "MPI_Get_count_c", NULL);
    mdt_type_t *t = mdt_get(datatype);
    if (!t) return mpi_err(NULL, MPI_ERR_TYPE, "MPI_Get_count_c", NULL);
    MPI_Count bytes = mdt_status_bytes(status);
    if (t->size == 0) *count = bytes == 0 ? 0 : MPI_UNDEFINED;
    else *count = bytes % t->size ? MPI_UNDEFINED : bytes / t->size;
    return MPI_SUCCESS;
}

int MPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return MPI_Get_elements_x(status, datatype, count);
}


/* ---- the buffer of buffered mode ------------------------------------------------------------ */

int MPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
    int n;
    if (!mlc_int(size, &n))
        return mlc_err(MPI_COMM_WORLD, MPI_ERR_COUNT, "MPI_Buffer_attach_c",
                       "a buffer beyond INT_MAX bytes (not supported)");
    return MPI_Buffer_attach(buffer, n);
}

int MPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    int n = 0;
    if (!size) return mlc_err(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Buffer_detach_c", "size is NULL");
    int err = MPI_Buffer_detach(buffer_addr, &n);
    if (!err) *size = n;
    return err;
}
