/* PMI-1 client API, source-compatible with MPICH's pmi.h (the subset below).
 *
 * Link with -lpmi (Sluice's libpmi).  The library speaks the PMI-1 simple wire
 * protocol to the launcher: it works under sluicerun, MPICH's Hydra
 * (mpiexec.mpich) and other PMI-1 launchers (PMI_FD, or PMI_PORT + PMI_ID).
 * Without a launcher the process is a singleton: rank 0 of 1, and the
 * key-value space is kept in the process.
 *
 * Every call returns PMI_SUCCESS or one of the error codes below; none of
 * them crashes on bad arguments.  Calls other than PMI_Init, PMI_Initialized
 * and PMI_Abort return PMI_ERR_INIT before PMI_Init succeeded.  The library
 * is not thread-safe: call it from one thread at a time. */
#ifndef PMI_H_INCLUDED
#define PMI_H_INCLUDED

#ifdef __cplusplus
extern "C" {
#endif

#define PMI_SUCCESS 0
#define PMI_FAIL -1
#define PMI_ERR_INIT 1 /* not initialized */
#define PMI_ERR_NOMEM 2
#define PMI_ERR_INVALID_ARG 3
#define PMI_ERR_INVALID_KEY 4
#define PMI_ERR_INVALID_KEY_LENGTH 5
#define PMI_ERR_INVALID_VAL 6
#define PMI_ERR_INVALID_VAL_LENGTH 7
#define PMI_ERR_INVALID_LENGTH 8
#define PMI_ERR_INVALID_NUM_ARGS 9
#define PMI_ERR_INVALID_ARGS 10
#define PMI_ERR_INVALID_NUM_PARSED 11
#define PMI_ERR_INVALID_KEYVALP 12
#define PMI_ERR_INVALID_SIZE 13

typedef int PMI_BOOL;
#define PMI_TRUE 1
#define PMI_FALSE 0

/* Connect to the launcher (or become a singleton).  *spawned is set to
 * PMI_FALSE (dynamic spawning is not supported).  Calling it again after
 * success is a no-op returning PMI_SUCCESS; after PMI_Finalize a process
 * launched by a launcher cannot initialize again (PMI_FAIL).
 * PMI_ERR_INVALID_ARG when spawned is NULL; PMI_FAIL when the launcher cannot
 * be reached or misbehaves (the reason is printed on stderr). */
int PMI_Init(int *spawned);

/* *initialized = PMI_TRUE after a successful PMI_Init and before
 * PMI_Finalize, else PMI_FALSE. */
int PMI_Initialized(PMI_BOOL *initialized);

/* Tell the launcher this process finished cleanly (waits for its
 * acknowledgement) and release the connection. */
int PMI_Finalize(void);

int PMI_Get_size(int *size);
int PMI_Get_rank(int *rank);
/* Number of processes the launcher could run (sluicerun: the job size; Hydra
 * may answer -1 when unknown).  Asks the launcher. */
int PMI_Get_universe_size(int *size);
int PMI_Get_appnum(int *appnum);

/* Wait until every process of the job has entered the barrier.  Values put
 * before it are visible to every process's PMI_KVS_Get after it. */
int PMI_Barrier(void);

/* Print msg (when not NULL) on stderr, ask the launcher to end the whole job
 * with status exit_code, and exit.  Does not return. */
int PMI_Abort(int exit_code, const char msg[]);

/* The name of this job's key-value space.  PMI_ERR_INVALID_LENGTH when
 * length is too small for the name and its NUL. */
int PMI_KVS_Get_my_name(char kvsname[], int length);
/* Limits, including room for the terminating NUL. */
int PMI_KVS_Get_name_length_max(int *length);
int PMI_KVS_Get_key_length_max(int *length);
int PMI_KVS_Get_value_length_max(int *length);

/* Publish key=value.  Keys are non-empty and may not contain spaces, '=' or
 * newlines (PMI_ERR_INVALID_KEY), nor be longer than the key limit
 * (PMI_ERR_INVALID_KEY_LENGTH); values may not contain spaces or newlines
 * (PMI_ERR_INVALID_VAL) nor exceed the value limit
 * (PMI_ERR_INVALID_VAL_LENGTH).  kvsname must be this job's name
 * (PMI_ERR_INVALID_ARG otherwise).  A second put of a key replaces it. */
int PMI_KVS_Put(const char kvsname[], const char key[], const char value[]);
/* Puts are sent as they are made; commit has nothing left to do. */
int PMI_KVS_Commit(const char kvsname[]);
/* Read a key put by any process before the last barrier.  PMI_FAIL when no
 * process put it; PMI_ERR_INVALID_LENGTH when the value and its NUL do not
 * fit in length bytes (value[] is then untouched). */
int PMI_KVS_Get(const char kvsname[], const char key[], char value[], int length);

#ifdef __cplusplus
}
#endif

#endif
