// mpi.h used from C++ the way MPI programs use it.
#include <mpi.h>

static_assert(MPI_SUCCESS == 0, "MPI_SUCCESS");
static_assert(sizeof(MPI_Aint) == 8 && sizeof(MPI_Count) == 8 && sizeof(MPI_Offset) == 8,
              "64-bit address types");
static_assert(MPI_VERSION == 3 && MPI_SUBVERSION == 1, "MPI 3.1");

int mpi_cxx_idioms(int argc, char **argv);
int mpi_cxx_idioms(int argc, char **argv)
{
    int provided = MPI_THREAD_SINGLE, rank = 0, size = 0, r = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char buf[64] = {0};
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status st[2];
    MPI_Irecv(buf, 32, MPI_CHAR, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(buf + 32, 32, MPI_BYTE, (rank + 1) % size, 7, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, st);
    if (st[0].MPI_SOURCE == MPI_PROC_NULL || st[0].MPI_TAG == MPI_ANY_TAG) r++;
    int count = 0;
    MPI_Get_count(&st[0], MPI_CHAR, &count);
    MPI_Recv(buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Waitall(0, req, MPI_STATUSES_IGNORE);
    MPI_Datatype vec = MPI_DATATYPE_NULL;
    MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    MPI_Type_free(&vec);
    MPI_Message msg = MPI_MESSAGE_NULL;
    int flag = 0;
    MPI_Improbe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &flag, &msg, &st[0]);
    if (msg == MPI_MESSAGE_NO_PROC) r++;
    double v = 1.0, sum = 0.0;
    MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Bcast(buf, 1, MPI_2INT, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    char err[MPI_MAX_ERROR_STRING];
    int len = 0, cls = 0;
    MPI_Error_string(MPI_ERR_TRUNCATE, err, &len);
    MPI_Error_class(MPI_ERR_TYPE, &cls);
    switch (cls) {
    case MPI_SUCCESS: case MPI_ERR_TYPE: case MPI_ERR_COUNT: case MPI_ERR_TRUNCATE:
    case MPI_ERR_IN_STATUS: case MPI_T_ERR_INVALID:
        r++;
        break;
    default:
        break;
    }
    void *mem = 0;
    MPI_Alloc_mem(1024, MPI_INFO_NULL, &mem);
    MPI_Free_mem(mem);
    double t = MPI_Wtime() + MPI_Wtick();
    char name[MPI_MAX_PROCESSOR_NAME];
    MPI_Get_processor_name(name, &len);
    MPI_Aint a = 0;
    MPI_Get_address(buf, &a);
    MPI_Finalize();
    return r + count + (t > 0) + (int)(a & 1) + (int)sizeof(MPI_Status);
}
