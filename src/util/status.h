/* Sluice status codes: one enum, its names and messages generated from one
 * table (SL_STATUS_TABLE), so a code, its name and its message can never drift
 * apart.  OK is 0; INPROGRESS and AGAIN are distinct non-error outcomes;
 * errors are negative.  Public codes (PTL_*, MPI_ERR_*, PMI_*) map from these. */
#ifndef SL_UTIL_STATUS_H
#define SL_UTIL_STATUS_H

#define SL_STATUS_TABLE(X)                                                              \
    X(OK, 0, "success")                                                                 \
    X(INPROGRESS, 1, "operation in progress")                                           \
    X(AGAIN, 2, "no resource available now, retry later")                               \
    X(ERR_INVALID, -1, "invalid argument")                                              \
    X(ERR_NOMEM, -2, "out of memory")                                                   \
    X(ERR_CONFIG, -3, "invalid configuration")                                          \
    X(ERR_SYS, -4, "system call failed")                                                \
    X(ERR_PEER_DEAD, -5, "peer process died")                                           \
    X(ERR_PROTO, -6, "protocol violation")                                              \
    X(ERR_TIMEOUT, -7, "timed out")                                                     \
    X(ERR_UNSUPPORTED, -8, "operation not supported")                                   \
    X(ERR_PERM, -9, "permission denied")                                                \
    X(ERR_TRUNCATE, -10, "data truncated")                                              \
    X(ERR_NOTFOUND, -11, "not found")                                                   \
    X(ERR_BUSY, -12, "resource busy")                                                   \
    X(ERR_RANGE, -13, "value out of range")                                             \
    X(ERR_AUTH, -14, "peer does not belong to this job")

#define SL_STATUS_ENUM_(name, value, msg) SL_##name = (value),
typedef enum sl_status { SL_STATUS_TABLE(SL_STATUS_ENUM_) } sl_status_t;
#undef SL_STATUS_ENUM_

/* Message for a status ("invalid argument"); never NULL. */
const char *sl_status_string(sl_status_t status);
/* Symbolic name for a status ("SL_ERR_INVALID"); never NULL. */
const char *sl_status_name(sl_status_t status);

#define SL_IS_ERR(s) ((s) < 0)

#endif
