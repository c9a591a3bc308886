/* libmpichfort.so.12 of the MPICH ABI library (src/CMakeLists.txt): the
 * name an MPICH-built Fortran program loads for the Fortran bindings,
 * which MPICH keeps apart from libmpich.so.12.  Sluice's bindings are in
 * libmpich.so.12 (src/mpi/mpich.map exports them), so this library holds
 * nothing and only names libmpich.so.12 as what it needs. */
typedef int sl_mpichfort_empty; /* ISO C wants a declaration in a unit */
