/* MPI_Info (MPI 3.1 §9; prefix minfo_): ordered lists of (key, value)
 * strings in a generation-checked handle table, so a freed or stale handle
 * is MPI_ERR_INFO, never a crash.  Keys are kept in the order they were
 * first set (MPI_Info_get_nthkey), compared exactly (case and spaces
 * count).  MPI_INFO_ENV is a predefined, empty, read-only object: it can be
 * read and duplicated; setting, deleting or freeing it is MPI_ERR_INFO.
 * Sluice takes no hints, so the info arguments of other calls are only
 * checked where the call says so (MPI_Comm_set_info, MPI_Comm_dup_with_info).
 *
 * Errors (raised on MPI_COMM_WORLD's handler, as for any call without a
 * communicator): a bad handle MPI_ERR_INFO; a key NULL, empty or longer
 * than MPI_MAX_INFO_KEY MPI_ERR_INFO_KEY; a value NULL or longer than
 * MPI_MAX_INFO_VAL MPI_ERR_INFO_VALUE; deleting a key that is not there
 * MPI_ERR_INFO_NOKEY; NULL out-arguments, a negative valuelen and an nth
 * key out of range MPI_ERR_ARG. */
#include "mpi/handle.h"
#include "mpi/mpi_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct minfo_ent {
    char *key, *val;
} minfo_ent_t;

typedef struct minfo {
    int n, cap;
    minfo_ent_t *ent;
} minfo_t;

static mh_table_t info_table = MH_TABLE_INIT(MH_CLASS_INFO);
static minfo_t info_env; /* MPI_INFO_ENV: empty */

/* The object of a handle, or NULL.  Read-only callers accept MPI_INFO_ENV. */
static minfo_t *info_get(MPI_Info info, bool write)
{
    if (info == MPI_INFO_ENV) return write ? NULL : &info_env;
    return mh_get(&info_table, info);
}

/* MPI_SUCCESS or the class of a bad key. */
static int key_check(const char *key)
{
    if (!key || !key[0] || strnlen(key, MPI_MAX_INFO_KEY + 1) > MPI_MAX_INFO_KEY)
        return MPI_ERR_INFO_KEY;
    return MPI_SUCCESS;
}

static int find(const minfo_t *o, const char *key)
{
    for (int i = 0; i < o->n; i++)
        if (strcmp(o->ent[i].key, key) == 0) return i;
    return -1;
}

static void info_destroy(minfo_t *o)
{
    for (int i = 0; i < o->n; i++) {
        free(o->ent[i].key);
        free(o->ent[i].val);
    }
    free(o->ent);
    free(o);
}

/* Sets key to a copy of val (replacing an older value): false when out of
 * memory, o unchanged then. */
static bool info_put(minfo_t *o, const char *key, const char *val)
{
    char *v = strdup(val);
    if (!v) return false;
    int i = find(o, key);
    if (i >= 0) {
        free(o->ent[i].val);
        o->ent[i].val = v;
        return true;
    }
    char *k = strdup(key);
    if (!k) goto free_val;
    if (o->n == o->cap) {
        int cap = o->cap ? 2 * o->cap : 8;
        minfo_ent_t *e = realloc(o->ent, sizeof *e * (size_t)cap);
        if (!e) goto free_key;
        o->ent = e;
        o->cap = cap;
    }
    o->ent[o->n++] = (minfo_ent_t){.key = k, .val = v};
    return true;
free_key:
    free(k);
free_val:
    free(v);
    return false;
}

/* A new empty object and its handle in *out; MPI_ERR_NO_MEM when there is
 * no room (*out untouched). */
static int info_new(minfo_t **o, MPI_Info *out)
{
    minfo_t *n = calloc(1, sizeof *n);
    if (!n) return MPI_ERR_NO_MEM;
    int h = mh_new(&info_table, n);
    if (!h) {
        free(n);
        return MPI_ERR_NO_MEM;
    }
    *o = n;
    *out = h;
    return MPI_SUCCESS;
}

int MPI_Info_create(MPI_Info *info)
{
    static const char fn[] = "MPI_Info_create";
    MPI_CHECK_STATE(fn);
    if (!info) return mpi_err(NULL, MPI_ERR_ARG, fn, "info is NULL");
    minfo_t *o;
    int err = info_new(&o, info);
    return err ? mpi_err(NULL, err, fn, NULL) : MPI_SUCCESS;
}

int MPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    static const char fn[] = "MPI_Info_set";
    MPI_CHECK_STATE(fn);
    minfo_t *o = info_get(info, true);
    if (!o) return mpi_err(NULL, MPI_ERR_INFO, fn, NULL);
    int err = key_check(key);
    if (err) return mpi_err(NULL, err, fn, NULL);
    if (!value || strnlen(value, MPI_MAX_INFO_VAL + 1) > MPI_MAX_INFO_VAL)
        return mpi_err(NULL, MPI_ERR_INFO_VALUE, fn, NULL);
    if (!info_put(o, key, value)) return mpi_err(NULL, MPI_ERR_NO_MEM, fn, NULL);
    return MPI_SUCCESS;
}

int MPI_Info_delete(MPI_Info info, const char *key)
{
    static const char fn[] = "MPI_Info_delete";
    MPI_CHECK_STATE(fn);
    minfo_t *o = info_get(info, true);
    if (!o) return mpi_err(NULL, MPI_ERR_INFO, fn, NULL);
    int err = key_check(key);
    if (err) return mpi_err(NULL, err, fn, NULL);
    int i = find(o, key);
    if (i < 0) return mpi_err(NULL, MPI_ERR_INFO_NOKEY, fn, key);
    free(o->ent[i].key);
    free(o->ent[i].val);
    /* keep the order of the others: nthkey counts in setting order */
    memmove(&o->ent[i], &o->ent[i + 1], sizeof *o->ent * (size_t)(o->n - i - 1));
    o->n--;
    return MPI_SUCCESS;
}

/* valuelen is the room in value less one for the terminating NUL (MPI
 * 3.1 §9); a longer value is cut to it. */
int MPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    static const char fn[] = "MPI_Info_get";
    MPI_CHECK_STATE(fn);
    const minfo_t *o = info_get(info, false);
    if (!o) return mpi_err(NULL, MPI_ERR_INFO, fn, NULL);
    int err = key_check(key);
    if (err) return mpi_err(NULL, err, fn, NULL);
    if (valuelen < 0 || !value || !flag) return mpi_err(NULL, MPI_ERR_ARG, fn, NULL);
    int i = find(o, key);
    *flag = i >= 0;
    if (i < 0) return MPI_SUCCESS;
    size_t n = strnlen(o->ent[i].val, (size_t)valuelen);
    memcpy(value, o->ent[i].val, n);
    value[n] = '\0';
    return MPI_SUCCESS;
}

/* MPI 4.0 §10.2: *buflen in is the room at value (0: only ask), out the
 * value's length plus one; the value is cut to *buflen - 1 characters. */
int MPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    static const char fn[] = "MPI_Info_get_string";
    MPI_CHECK_STATE(fn);
    const minfo_t *o = info_get(info, false);
    if (!o) return mpi_err(NULL, MPI_ERR_INFO, fn, NULL);
    int err = key_check(key);
    if (err) return mpi_err(NULL, err, fn, NULL);
    if (!buflen || *buflen < 0 || !flag || (*buflen > 0 && !value))
        return mpi_err(NULL, MPI_ERR_ARG, fn, NULL);
    int i = find(o, key);
    *flag = i >= 0;
    if (i < 0) return MPI_SUCCESS;
    size_t len = strlen(o->ent[i].val);
    if (*buflen > 0) {
        size_t n = len < (size_t)*buflen - 1 ? len : (size_t)*buflen - 1;
        memcpy(value, o->ent[i].val, n);
        value[n] = '\0';
    }
    *buflen = (int)len + 1;
    return MPI_SUCCESS;
}

int MPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    static const char fn[] = "MPI_Info_get_valuelen";
    MPI_CHECK_STATE(fn);
    const minfo_t *o = info_get(info, false);
    if (!o) return mpi_err(NULL, MPI_ERR_INFO, fn, NULL);
    int err = key_check(key);
    if (err) return mpi_err(NULL, err, fn, NULL);
    if (!valuelen || !flag) return mpi_err(NULL, MPI_ERR_ARG, fn, NULL);
    int i = find(o, key);
    *flag = i >= 0;
    if (i >= 0) *valuelen = (int)strlen(o->ent[i].val);
    return MPI_SUCCESS;
}

int MPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    static const char fn[] = "MPI_Info_get_nkeys";
    MPI_CHECK_STATE(fn);
    const minfo_t *o = info_get(info, false);
    if (!o) return mpi_err(NULL, MPI_ERR_INFO, fn, NULL);
    if (!nkeys) return mpi_err(NULL, MPI_ERR_ARG, fn, "nkeys is NULL");
    *nkeys = o->n;
    return MPI_SUCCESS;
}

/* key has room for MPI_MAX_INFO_KEY + 1 characters (MPI 3.1 §9). */
int MPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    static const char fn[] = "MPI_Info_get_nthkey";
    MPI_CHECK_STATE(fn);
    const minfo_t *o = info_get(info, false);
    if (!o) return mpi_err(NULL, MPI_ERR_INFO, fn, NULL);
    if (n < 0 || n >= o->n) return mpi_err(NULL, MPI_ERR_ARG, fn, "n out of range");
    if (!key) return mpi_err(NULL, MPI_ERR_ARG, fn, "key is NULL");
    strcpy(key, o->ent[n].key);
    return MPI_SUCCESS;
}

/* A new object with the same keys and values in the same order;
 * MPI_SUCCESS or an error class (nothing raised). */
static int info_copy(const minfo_t *o, MPI_Info *out)
{
    minfo_t *n;
    MPI_Info h;
    int err = info_new(&n, &h);
    if (err) return err;
    for (int i = 0; i < o->n; i++)
        if (!info_put(n, o->ent[i].key, o->ent[i].val)) {
            mh_free(&info_table, h);
            info_destroy(n);
            return MPI_ERR_NO_MEM;
        }
    *out = h;
    return MPI_SUCCESS;
}

int MPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    static const char fn[] = "MPI_Info_dup";
    MPI_CHECK_STATE(fn);
    const minfo_t *o = info_get(info, false);
    if (!o) return mpi_err(NULL, MPI_ERR_INFO, fn, NULL);
    if (!newinfo) return mpi_err(NULL, MPI_ERR_ARG, fn, "newinfo is NULL");
    int err = info_copy(o, newinfo);
    return err ? mpi_err(NULL, err, fn, NULL) : MPI_SUCCESS;
}

int MPI_Info_free(MPI_Info *info)
{
    static const char fn[] = "MPI_Info_free";
    MPI_CHECK_STATE(fn);
    if (!info) return mpi_err(NULL, MPI_ERR_ARG, fn, "info is NULL");
    minfo_t *o = info_get(*info, true);
    if (!o) return mpi_err(NULL, MPI_ERR_INFO, fn, NULL);
    mh_free(&info_table, *info);
    info_destroy(o);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

/* ---- communicator hints: Sluice takes none ------------------------------ */

int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    static const char fn[] = "MPI_Comm_set_info";
    MPI_CHECK_STATE(fn);
    mcomm_t *c = mcomm_get(comm);
    if (!c) return mpi_err(NULL, MPI_ERR_COMM, fn, NULL);
    if (!info_get(info, false)) return mpi_err(c, MPI_ERR_INFO, fn, NULL);
    return MPI_SUCCESS;
}

/* The hints in use: none, so a new empty object (the caller frees it). */
int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    static const char fn[] = "MPI_Comm_get_info";
    MPI_CHECK_STATE(fn);
    mcomm_t *c = mcomm_get(comm);
    if (!c) return mpi_err(NULL, MPI_ERR_COMM, fn, NULL);
    if (!info_used) return mpi_err(c, MPI_ERR_ARG, fn, "info_used is NULL");
    int err = info_copy(&info_env, info_used);
    return err ? mpi_err(c, err, fn, NULL) : MPI_SUCCESS;
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_dup_with_info";
    MPI_CHECK_STATE(fn);
    mcomm_t *c = mcomm_get(comm);
    if (!c) return mpi_err(NULL, MPI_ERR_COMM, fn, NULL);
    if (!info_get(info, false)) return mpi_err(c, MPI_ERR_INFO, fn, NULL);
    return MPI_Comm_dup(comm, newcomm); /* nested: the MPI lock is re-entrant */
}
