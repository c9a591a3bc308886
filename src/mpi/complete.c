/* The MPI wait/test family over request.h: single, all, any and some,
 * with MPI_REQUEST_NULL and inactive persistent requests skipped.  Blocking
 * variants sleep in p2p between passes (p2p_wait_progress), never spin. */
#include "mpi/request.h"

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    MPI_CHECK_STATE("MPI_Wait");
    return mreq_done(request, status, true, NULL, "MPI_Wait");
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    MPI_CHECK_STATE("MPI_Test");
    if (!flag) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Test", "flag is NULL");
    return mreq_done(request, status, false, flag, "MPI_Test");
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status *statuses)
{
    MPI_CHECK_STATE("MPI_Waitall");
    /* an invalid handle is an argument error (MPI_ERR_REQUEST), found
     * before any request is completed, as in the other array calls */
    int err = mreq_array_check(count, requests, "MPI_Waitall");
    if (err) return err;
    int any = 0;
    for (int i = 0; i < count; i++) {
        MPI_Status *s = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
        int e = mreq_done(&requests[i], s, true, NULL, "MPI_Waitall");
        if (s != MPI_STATUS_IGNORE) s->MPI_ERROR = e;
        if (e) any = 1;
    }
    return any ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status *statuses)
{
    MPI_CHECK_STATE("MPI_Testall");
    if (!flag) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Testall", "flag is NULL");
    int err = mreq_array_check(count, requests, "MPI_Testall");
    if (err) return err;
    /* all or nothing: complete only when every request is done */
    for (int i = 0; i < count; i++) {
        if (mreq_inactive(requests[i])) continue;
        if (!mreq_poll(mreq_get(requests[i]))) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    return MPI_Waitall(count, requests, statuses);
}

/* One pass of Testany: *indx is the completed request, or MPI_UNDEFINED
 * with *flag = 1 when no request is active. */
static int test_any(int count, MPI_Request reqs[], int *indx, int *flag, MPI_Status *status,
                    const char *fname)
{
    bool active = false;
    *indx = MPI_UNDEFINED;
    *flag = 0;
    for (int i = 0; i < count; i++) {
        if (mreq_inactive(reqs[i])) continue;
        active = true;
        if (!mreq_poll(mreq_get(reqs[i]))) continue;
        *indx = i;
        return mreq_done(&reqs[i], status, false, flag, fname);
    }
    if (!active) {
        *flag = 1;
        mreq_status_empty(status);
    }
    return MPI_SUCCESS;
}

int MPI_Testany(int count, MPI_Request array_of_requests[], int *indx, int *flag,
                MPI_Status *status)
{
    MPI_CHECK_STATE("MPI_Testany");
    if (!indx || !flag) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Testany", "indx or flag is NULL");
    int err = mreq_array_check(count, array_of_requests, "MPI_Testany");
    return err ? err : test_any(count, array_of_requests, indx, flag, status, "MPI_Testany");
}

int MPI_Waitany(int count, MPI_Request array_of_requests[], int *indx, MPI_Status *status)
{
    MPI_CHECK_STATE("MPI_Waitany");
    if (!indx) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Waitany", "indx is NULL");
    int err = mreq_array_check(count, array_of_requests, "MPI_Waitany");
    int flag = 0;
    while (!err && !(err = test_any(count, array_of_requests, indx, &flag, status, "MPI_Waitany")) &&
           !flag)
        if (p2p_wait_progress(1000) != SL_OK) err = mpi_err(NULL, MPI_ERR_INTERN, "MPI_Waitany", NULL);
    return err;
}

/* One pass of Testsome: completes every finished request; *outcount is
 * MPI_UNDEFINED when none is active. */
static int test_some(int incount, MPI_Request reqs[], int *outcount, int indices[],
                     MPI_Status statuses[], const char *fname)
{
    bool active = false, failed = false;
    *outcount = 0;
    for (int i = 0; i < incount; i++) {
        if (mreq_inactive(reqs[i])) continue;
        active = true;
        if (!mreq_poll(mreq_get(reqs[i]))) continue;
        MPI_Status s;
        int flag, e = mreq_done(&reqs[i], &s, false, &flag, fname);
        s.MPI_ERROR = e;
        if (statuses != MPI_STATUSES_IGNORE) statuses[*outcount] = s;
        indices[(*outcount)++] = i;
        failed |= e != MPI_SUCCESS;
    }
    if (!active) *outcount = MPI_UNDEFINED;
    return failed ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                 int array_of_indices[], MPI_Status array_of_statuses[])
{
    MPI_CHECK_STATE("MPI_Testsome");
    if (!outcount || (incount > 0 && !array_of_indices))
        return mpi_err(NULL, MPI_ERR_ARG, "MPI_Testsome", "outcount or indices is NULL");
    int err = mreq_array_check(incount, array_of_requests, "MPI_Testsome");
    return err ? err
               : test_some(incount, array_of_requests, outcount, array_of_indices,
                           array_of_statuses, "MPI_Testsome");
}

int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                 int array_of_indices[], MPI_Status array_of_statuses[])
{
    MPI_CHECK_STATE("MPI_Waitsome");
    if (!outcount || (incount > 0 && !array_of_indices))
        return mpi_err(NULL, MPI_ERR_ARG, "MPI_Waitsome", "outcount or indices is NULL");
    int err = mreq_array_check(incount, array_of_requests, "MPI_Waitsome");
    while (!err &&
           !(err = test_some(incount, array_of_requests, outcount, array_of_indices,
                             array_of_statuses, "MPI_Waitsome")) &&
           *outcount == 0)
        if (p2p_wait_progress(1000) != SL_OK) err = mpi_err(NULL, MPI_ERR_INTERN, "MPI_Waitsome", NULL);
    return err;
}

/* The status of a request without freeing it or making it inactive (MPI
 * 3.1 §3.7.3); the request still has to be waited for, tested or freed.
 * MPI_REQUEST_NULL and inactive persistent requests give flag 1 and the
 * empty status (§3.7.3). */
int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    MPI_CHECK_STATE("MPI_Request_get_status");
    if (!flag) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Request_get_status", "flag is NULL");
    mreq_t *r = request == MPI_REQUEST_NULL ? NULL : mreq_get(request);
    if (request != MPI_REQUEST_NULL && !r)
        return mpi_err(NULL, MPI_ERR_REQUEST, "MPI_Request_get_status", "invalid or freed request");
    if (!r || (r->persistent && !r->active)) {
        *flag = 1;
        mreq_status_empty(status);
        return MPI_SUCCESS;
    }
    if (!(*flag = mreq_poll(r))) return MPI_SUCCESS;
    if (status != MPI_STATUS_IGNORE) mreq_status_copy(status, &r->st);
    return r->err ? mpi_err(r->comm, r->err, "MPI_Request_get_status", NULL) : MPI_SUCCESS;
}
