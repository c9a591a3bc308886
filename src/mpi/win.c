/* One-sided communication (MPI 3.1 chapter 11) is not implemented yet: it
 * comes with a later capability (puts, gets and atomics over Portals).
 * These calls exist so that programs that contain one-sided code, such as
 * the shared utility code of the OSU micro-benchmarks, compile and link;
 * each one raises MPI_ERR_UNSUPPORTED_OPERATION and does nothing else (it
 * writes no output argument).  The error goes through the error handler
 * of the communicator the call names, when it names a valid one, else
 * through MPI_COMM_WORLD's (there are no windows to carry a handler). */
#include "mpi/mpi_int.h"

static const char win_detail[] = "one-sided communication is not implemented yet";

/* The error of every call here; comm may be NULL. */
static int win_unsupported(const mcomm_t *c, const char *fname)
{
    return mpi_err(c, MPI_ERR_UNSUPPORTED_OPERATION, fname, win_detail);
}

int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                   MPI_Win *win)
{
    MPI_CHECK_STATE("MPI_Win_create");
    (void)base;
    (void)size;
    (void)disp_unit;
    (void)info;
    (void)win;
    return win_unsupported(mcomm_get(comm), "MPI_Win_create");
}

int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                     MPI_Win *win)
{
    MPI_CHECK_STATE("MPI_Win_allocate");
    (void)size;
    (void)disp_unit;
    (void)info;
    (void)baseptr;
    (void)win;
    return win_unsupported(mcomm_get(comm), "MPI_Win_allocate");
}

int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    MPI_CHECK_STATE("MPI_Win_create_dynamic");
    (void)info;
    (void)win;
    return win_unsupported(mcomm_get(comm), "MPI_Win_create_dynamic");
}

int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    MPI_CHECK_STATE("MPI_Win_attach");
    (void)win;
    (void)base;
    (void)size;
    return win_unsupported(NULL, "MPI_Win_attach");
}

int MPI_Win_detach(MPI_Win win, const void *base)
{
    MPI_CHECK_STATE("MPI_Win_detach");
    (void)win;
    (void)base;
    return win_unsupported(NULL, "MPI_Win_detach");
}

int MPI_Win_free(MPI_Win *win)
{
    MPI_CHECK_STATE("MPI_Win_free");
    (void)win;
    return win_unsupported(NULL, "MPI_Win_free");
}

int MPI_Win_fence(int assert, MPI_Win win)
{
    MPI_CHECK_STATE("MPI_Win_fence");
    (void)assert;
    (void)win;
    return win_unsupported(NULL, "MPI_Win_fence");
}

int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    MPI_CHECK_STATE("MPI_Win_lock");
    (void)lock_type;
    (void)rank;
    (void)assert;
    (void)win;
    return win_unsupported(NULL, "MPI_Win_lock");
}

int MPI_Win_unlock(int rank, MPI_Win win)
{
    MPI_CHECK_STATE("MPI_Win_unlock");
    (void)rank;
    (void)win;
    return win_unsupported(NULL, "MPI_Win_unlock");
}

int MPI_Win_lock_all(int assert, MPI_Win win)
{
    MPI_CHECK_STATE("MPI_Win_lock_all");
    (void)assert;
    (void)win;
    return win_unsupported(NULL, "MPI_Win_lock_all");
}

int MPI_Win_unlock_all(MPI_Win win)
{
    MPI_CHECK_STATE("MPI_Win_unlock_all");
    (void)win;
    return win_unsupported(NULL, "MPI_Win_unlock_all");
}

int MPI_Win_flush(int rank, MPI_Win win)
{
    MPI_CHECK_STATE("MPI_Win_flush");
    (void)rank;
    (void)win;
    return win_unsupported(NULL, "MPI_Win_flush");
}

int MPI_Win_flush_local(int rank, MPI_Win win)
{
    MPI_CHECK_STATE("MPI_Win_flush_local");
    (void)rank;
    (void)win;
    return win_unsupported(NULL, "MPI_Win_flush_local");
}

int MPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    MPI_CHECK_STATE("MPI_Win_post");
    (void)group;
    (void)assert;
    (void)win;
    return win_unsupported(NULL, "MPI_Win_post");
}

int MPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    MPI_CHECK_STATE("MPI_Win_start");
    (void)group;
    (void)assert;
    (void)win;
    return win_unsupported(NULL, "MPI_Win_start");
}

int MPI_Win_complete(MPI_Win win)
{
    MPI_CHECK_STATE("MPI_Win_complete");
    (void)win;
    return win_unsupported(NULL, "MPI_Win_complete");
}

int MPI_Win_wait(MPI_Win win)
{
    MPI_CHECK_STATE("MPI_Win_wait");
    (void)win;
    return win_unsupported(NULL, "MPI_Win_wait");
}

int MPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
            int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
            MPI_Win win)
{
    MPI_CHECK_STATE("MPI_Put");
    (void)origin_addr;
    (void)origin_count;
    (void)origin_datatype;
    (void)target_rank;
    (void)target_disp;
    (void)target_count;
    (void)target_datatype;
    (void)win;
    return win_unsupported(NULL, "MPI_Put");
}

int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    MPI_CHECK_STATE("MPI_Get");
    (void)origin_addr;
    (void)origin_count;
    (void)origin_datatype;
    (void)target_rank;
    (void)target_disp;
    (void)target_count;
    (void)target_datatype;
    (void)win;
    return win_unsupported(NULL, "MPI_Get");
}

int MPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                   int target_rank, MPI_Aint target_disp, int target_count,
                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    MPI_CHECK_STATE("MPI_Accumulate");
    (void)origin_addr;
    (void)origin_count;
    (void)origin_datatype;
    (void)target_rank;
    (void)target_disp;
    (void)target_count;
    (void)target_datatype;
    (void)op;
    (void)win;
    return win_unsupported(NULL, "MPI_Accumulate");
}

int MPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                       void *result_addr, int result_count, MPI_Datatype result_datatype,
                       int target_rank, MPI_Aint target_disp, int target_count,
                       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    MPI_CHECK_STATE("MPI_Get_accumulate");
    (void)origin_addr;
    (void)origin_count;
    (void)origin_datatype;
    (void)result_addr;
    (void)result_count;
    (void)result_datatype;
    (void)target_rank;
    (void)target_disp;
    (void)target_count;
    (void)target_datatype;
    (void)op;
    (void)win;
    return win_unsupported(NULL, "MPI_Get_accumulate");
}

int MPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                     int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    MPI_CHECK_STATE("MPI_Fetch_and_op");
    (void)origin_addr;
    (void)result_addr;
    (void)datatype;
    (void)target_rank;
    (void)target_disp;
    (void)op;
    (void)win;
    return win_unsupported(NULL, "MPI_Fetch_and_op");
}

int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                         MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win)
{
    MPI_CHECK_STATE("MPI_Compare_and_swap");
    (void)origin_addr;
    (void)compare_addr;
    (void)result_addr;
    (void)datatype;
    (void)target_rank;
    (void)target_disp;
    (void)win;
    return win_unsupported(NULL, "MPI_Compare_and_swap");
}

/* Window attributes: no window exists, so no window keyval either; the
 * keyval calls fail like the rest of this file. */
int MPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                          MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                          void *extra_state)
{
    MPI_CHECK_STATE("MPI_Win_create_keyval");
    (void)win_copy_attr_fn;
    (void)win_delete_attr_fn;
    (void)win_keyval;
    (void)extra_state;
    return win_unsupported(NULL, "MPI_Win_create_keyval");
}

int MPI_Win_free_keyval(int *win_keyval)
{
    MPI_CHECK_STATE("MPI_Win_free_keyval");
    (void)win_keyval;
    return win_unsupported(NULL, "MPI_Win_free_keyval");
}

int MPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    MPI_CHECK_STATE("MPI_Win_set_attr");
    (void)win;
    (void)win_keyval;
    (void)attribute_val;
    return win_unsupported(NULL, "MPI_Win_set_attr");
}

int MPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    MPI_CHECK_STATE("MPI_Win_get_attr");
    (void)win;
    (void)win_keyval;
    (void)attribute_val;
    (void)flag;
    return win_unsupported(NULL, "MPI_Win_get_attr");
}

int MPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
    MPI_CHECK_STATE("MPI_Win_delete_attr");
    (void)win;
    (void)win_keyval;
    return win_unsupported(NULL, "MPI_Win_delete_attr");
}
