/* Fortran bindings written by hand (the rest is generated from mpi.h by
 * gen_fortran.py): MPI_Init and MPI_Init_thread (no argc/argv in
 * Fortran), MPI_Wtime/MPI_Wtick (functions), MPI_Pcontrol (no varargs),
 * attributes (Fortran attribute values are INTEGER(KIND=MPI_ADDRESS_KIND)
 * values, C's are pointers), the COMMON blocks behind mpif.h's special
 * addresses, and the string helpers. */
#include "fortran/fortran.h"

#include <stdint.h>
#include <string.h>

/* gfortran aligns COMMON blocks to 16 bytes and the linker warns when the
 * definition is less aligned. */
#define SL_F_COMMON __attribute__((aligned(16)))
MPI_Fint sl_f_bottom_ SL_F_COMMON, sl_f_in_place_ SL_F_COMMON;
MPI_Fint sl_f_unweighted_ SL_F_COMMON, sl_f_weights_empty_ SL_F_COMMON;
MPI_Fint sl_f_status_ignore_[5] SL_F_COMMON, sl_f_statuses_ignore_[5] SL_F_COMMON;
MPI_Fint sl_f_errcodes_ignore_[1] SL_F_COMMON;

/* MPICH's mpif.h and mpi module keep the same constants in blocks of their
 * own: an MPICH-built Fortran program run on the MPICH ABI library (whose
 * libmpichfort.so.12 is these wrappers; src/CMakeLists.txt) passes their
 * addresses.  Such a program defines the blocks itself, and its copies take
 * the place of these when it is loaded. */
struct sl_f_mpich_priv1 mpipriv1_ SL_F_COMMON;
struct sl_f_mpich_priv2 mpipriv2_ SL_F_COMMON;
struct {
    char argvs_null[1], argv_null[1];
} mpiprivc_ SL_F_COMMON;
MPI_Fint mpifcmb5_ SL_F_COMMON, mpifcmb9_ SL_F_COMMON;

/* The longest string an MPI call writes (MPI_MAX_* of mpi.h are shorter). */
#define SL_F_MAX_STRING 4096

char *sl_f_cstr(const char *f, size_t len)
{
    while (len > 0 && f[len - 1] == ' ') len--;
    char *c = malloc(len + 1);
    if (!c) return NULL;
    memcpy(c, f, len);
    c[len] = '\0';
    return c;
}

char *sl_f_outbuf(size_t len)
{
    size_t n = (len > SL_F_MAX_STRING ? len : SL_F_MAX_STRING) + 1;
    return calloc(n, 1);
}

void sl_f_fstr(char *c, char *f, size_t len)
{
    if (!c) return;
    size_t n = strnlen(c, len);
    memcpy(f, c, n);
    memset(f + n, ' ', len - n);
    free(c);
}

void mpi_init_(MPI_Fint *ierror);
void mpi_init_(MPI_Fint *ierror)
{
    *ierror = MPI_Init(NULL, NULL);
}

void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror);
void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror)
{
    *ierror = MPI_Init_thread(NULL, NULL, *required, provided);
}

double mpi_wtime_(void);
double mpi_wtime_(void)
{
    return MPI_Wtime();
}

double mpi_wtick_(void);
double mpi_wtick_(void)
{
    return MPI_Wtick();
}

void mpi_pcontrol_(MPI_Fint *level);
void mpi_pcontrol_(MPI_Fint *level)
{
    (void)MPI_Pcontrol(*level);
}

/* ---- attributes --------------------------------------------------------------------------- */

/* The predefined attributes are ints that C returns a pointer to; Fortran
 * gets their value.  Attributes set from Fortran hold the value itself in
 * the pointer (MPI 4.0 §7.7.2 on mixed-language attributes). */
static int predefined_key(int key)
{
    return key == MPI_TAG_UB || key == MPI_HOST || key == MPI_IO || key == MPI_WTIME_IS_GLOBAL ||
           key == MPI_LASTUSEDCODE;
}

/* MPICH's mpif.h numbers the predefined keys one above C's (MPI_TAG_UB
 * 0x64400002, ...: even, C's odd), so that its library knows a Fortran
 * caller; Sluice's mpif.h has C's numbers.  Both are taken (an
 * MPICH-built program on the ABI library passes the former). */
static int c_key(int key)
{
    return key >= 0x64400002 && key <= 0x6440000e && !(key & 1) ? key - 1 : key;
}

static int get_attr(MPI_Comm comm, int key, MPI_Aint *value, int *flag)
{
    key = c_key(key);
    void *p = NULL;
    int rc = MPI_Comm_get_attr(comm, key, &p, flag);
    if (rc == MPI_SUCCESS && *flag)
        *value = predefined_key(key) ? (MPI_Aint) * (int *)p : (MPI_Aint)(intptr_t)p;
    return rc;
}

void mpi_comm_get_attr_(MPI_Fint *comm, MPI_Fint *key, MPI_Aint *value, MPI_Fint *flag,
                        MPI_Fint *ierror);
void mpi_comm_get_attr_(MPI_Fint *comm, MPI_Fint *key, MPI_Aint *value, MPI_Fint *flag,
                        MPI_Fint *ierror)
{
    *ierror = get_attr((MPI_Comm)*comm, *key, value, flag);
}

void mpi_comm_set_attr_(MPI_Fint *comm, MPI_Fint *key, MPI_Aint *value, MPI_Fint *ierror);
void mpi_comm_set_attr_(MPI_Fint *comm, MPI_Fint *key, MPI_Aint *value, MPI_Fint *ierror)
{
    *ierror = MPI_Comm_set_attr((MPI_Comm)*comm, c_key(*key), (void *)(intptr_t)*value);
}

/* MPI-1's forms: INTEGER attribute values. */
void mpi_attr_get_(MPI_Fint *comm, MPI_Fint *key, MPI_Fint *value, MPI_Fint *flag,
                   MPI_Fint *ierror);
void mpi_attr_get_(MPI_Fint *comm, MPI_Fint *key, MPI_Fint *value, MPI_Fint *flag,
                   MPI_Fint *ierror)
{
    MPI_Aint v = 0;
    *ierror = get_attr((MPI_Comm)*comm, *key, &v, flag);
    if (*ierror == MPI_SUCCESS && *flag) *value = (MPI_Fint)v;
}

void mpi_attr_put_(MPI_Fint *comm, MPI_Fint *key, MPI_Fint *value, MPI_Fint *ierror);
void mpi_attr_put_(MPI_Fint *comm, MPI_Fint *key, MPI_Fint *value, MPI_Fint *ierror)
{
    *ierror = MPI_Comm_set_attr((MPI_Comm)*comm, c_key(*key), (void *)(intptr_t)*value);
}
