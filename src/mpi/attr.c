/* Attribute caching (MPI 4.0 §7.7): keyvals, and the attributes set with
 * them on communicators and datatypes (windows do not exist yet: win.c),
 * plus the predefined communicator attributes of include/mpi.h.
 *
 * A keyval (prefix mkv_) is an object in a handle table of its own, with
 * one reference for its handle and one per attribute that uses it:
 * MPI_*_free_keyval only drops the handle's, so a freed keyval keeps
 * working for the attributes still set with it (their copies on dup and
 * their deletion), as MPI requires.  An object's attributes (prefix
 * mattr_) are a list, newest first: deletion walks it from the head, so
 * callbacks run in the reverse order of setting (MPI 4.0 §11.2.4 asks it
 * for MPI_COMM_SELF at finalize; Sluice does it everywhere), and a copy
 * keeps the order.  Callbacks may call MPI (the lock is re-entrant); an
 * attribute stays on its object while its delete callback runs, so the
 * callback can still read it. */
#include "mpi/datatype.h"
#include "mpi/handle.h"
#include "mpi/mpi_int.h"
#include "p2p/p2p.h"

#include <stdlib.h>

/* ---- predefined communicator attributes ---------------------------------------------- */

/* MPI hands out a pointer to the value (C binding: the attribute is a
 * void * that points to an int). */
static int attr_tag_ub = P2P_TAG_MAX; /* the largest tag p2p matches */
static int attr_host = MPI_PROC_NULL; /* no host process */
static int attr_io = MPI_ANY_SOURCE;  /* every process can do I/O */
static int attr_wtime_is_global = 0;  /* not promised beyond one host */

/* Keyvals of the predefined range that include/mpi.h does not name (MPICH
 * numbers them from 0x64400001 in steps of 2: MPI_UNIVERSE_SIZE,
 * MPI_APPNUM): valid keys, never set. */
#define ATTR_PREDEF_FIRST 0x64400001
#define ATTR_PREDEF_LAST 0x6440000d

static bool attr_predefined(int keyval)
{
    return keyval >= ATTR_PREDEF_FIRST && keyval <= ATTR_PREDEF_LAST && (keyval & 1);
}

/* The value of a predefined key, NULL when it has none. */
static int *attr_predefined_value(int keyval)
{
    switch (keyval) {
    case MPI_TAG_UB:
        return &attr_tag_ub;
    case MPI_HOST:
        return &attr_host;
    case MPI_IO:
        return &attr_io;
    case MPI_WTIME_IS_GLOBAL:
        return &attr_wtime_is_global;
    case MPI_LASTUSEDCODE:
        return merr_lastused_attr();
    default:
        return NULL;
    }
}

/* ---- keyvals ------------------------------------------------------------------------- */

enum { MKV_COMM, MKV_TYPE };

/* MPI_Comm and MPI_Datatype are both int, so one callback type serves
 * both kinds without casts. */
typedef struct mkv {
    int kind;
    int handle;
    MPI_Comm_copy_attr_function *copy;
    MPI_Comm_delete_attr_function *del;
    void *extra;
    int refs;   /* the handle (until freed) and every attribute set with it */
    bool freed; /* MPI_*_free_keyval'd: no new attributes */
} mkv_t;

typedef struct mattr {
    struct mattr *next;
    mkv_t *kv;
    void *val;
} mattr_t;

static mh_table_t mkv_table = MH_TABLE_INIT(MH_CLASS_KEYVAL);

static mkv_t *mkv_get(int keyval, int kind)
{
    mkv_t *kv = mh_get(&mkv_table, keyval);
    return kv && kv->kind == kind ? kv : NULL;
}

static void mkv_release(mkv_t *kv)
{
    if (--kv->refs > 0) return;
    mh_free(&mkv_table, kv->handle);
    free(kv);
}

/* MPI_DUP_FN (MPICH's name is part of its ABI: mpi.h's MPI_COMM_DUP_FN
 * and MPI_TYPE_DUP_FN point here): the copy is the same value. */
int MPIR_Dup_fn(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                void *attribute_val_out, int *flag)
{
    (void)oldcomm;
    (void)keyval;
    (void)extra_state;
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int mkv_create(int kind, MPI_Comm_copy_attr_function *copy,
                      MPI_Comm_delete_attr_function *del, int *keyval, void *extra,
                      const char *fname)
{
    if (!keyval) return mpi_err(NULL, MPI_ERR_ARG, fname, "keyval is NULL");
    mkv_t *kv = malloc(sizeof *kv);
    if (!kv) return mpi_err(NULL, MPI_ERR_NO_MEM, fname, NULL);
    *kv = (mkv_t){.kind = kind, .copy = copy, .del = del, .extra = extra, .refs = 1};
    kv->handle = mh_new(&mkv_table, kv);
    if (!kv->handle) {
        free(kv);
        return mpi_err(NULL, MPI_ERR_NO_MEM, fname, "out of handles");
    }
    *keyval = kv->handle;
    return MPI_SUCCESS;
}

static int mkv_free(int kind, int *keyval, const char *fname)
{
    if (!keyval) return mpi_err(NULL, MPI_ERR_ARG, fname, "keyval is NULL");
    mkv_t *kv = mkv_get(*keyval, kind);
    if (!kv || kv->freed)
        return mpi_err(NULL, MPI_ERR_KEYVAL, fname,
                       attr_predefined(*keyval) ? "predefined keyval"
                                                : "not a keyval of this kind");
    kv->freed = true;
    *keyval = MPI_KEYVAL_INVALID;
    mkv_release(kv); /* attributes still set with it keep it */
    return MPI_SUCCESS;
}

/* ---- attribute lists ----------------------------------------------------------------- */

static mattr_t **mattr_find(mattr_t **list, const mkv_t *kv)
{
    while (*list && (*list)->kv != kv)
        list = &(*list)->next;
    return list;
}

/* Runs a's delete callback for object h; MPI_SUCCESS or the callback's
 * nonzero code. */
static int mattr_call_delete(int h, const mattr_t *a)
{
    return a->kv->del ? a->kv->del(h, a->kv->handle, a->val, a->kv->extra) : MPI_SUCCESS;
}

/* Takes a off the list (found again: the callback may have changed it). */
static void mattr_unlink(mattr_t **list, mattr_t *a)
{
    while (*list && *list != a)
        list = &(*list)->next;
    if (*list) *list = a->next;
    mkv_release(a->kv);
    free(a);
}

int mattr_delete_all(int h, struct mattr **list)
{
    while (*list) {
        mattr_t *a = *list;
        if (mattr_call_delete(h, a) != MPI_SUCCESS) return MPI_ERR_OTHER;
        mattr_unlink(list, a);
    }
    return MPI_SUCCESS;
}

/* Appends a copy of a (value val) at *tail; false when out of memory. */
static bool mattr_append(mattr_t ***tail, mkv_t *kv, void *val)
{
    mattr_t *n = malloc(sizeof *n);
    if (!n) return false;
    *n = (mattr_t){.kv = kv, .val = val};
    kv->refs++;
    **tail = n;
    *tail = &n->next;
    return true;
}

int mattr_copy_all(int oldh, struct mattr *src, int newh, struct mattr **dst)
{
    mattr_t **tail = dst;
    for (mattr_t *a = src; a; a = a->next) {
        void *out = NULL;
        int flag = 0;
        if (!a->kv->copy) continue; /* MPI_*_NULL_COPY_FN */
        if (a->kv->copy(oldh, a->kv->handle, a->kv->extra, a->val, &out, &flag) != MPI_SUCCESS ||
            (flag && !mattr_append(&tail, a->kv, out))) {
            mattr_delete_all(newh, dst); /* the copies made so far go again */
            return MPI_ERR_OTHER;
        }
    }
    return MPI_SUCCESS;
}

/* Set, over an existing value after deleting it (its callback first). */
static int mattr_set(int h, mattr_t **list, mkv_t *kv, void *val)
{
    mattr_t *a = *mattr_find(list, kv);
    if (a) {
        if (mattr_call_delete(h, a) != MPI_SUCCESS) return MPI_ERR_OTHER;
        a->val = val;
        return MPI_SUCCESS;
    }
    if (!(a = malloc(sizeof *a))) return MPI_ERR_NO_MEM;
    *a = (mattr_t){.next = *list, .kv = kv, .val = val};
    kv->refs++;
    *list = a;
    return MPI_SUCCESS;
}

static int mattr_delete(int h, mattr_t **list, mkv_t *kv)
{
    mattr_t *a = *mattr_find(list, kv);
    if (!a) return MPI_SUCCESS; /* MPI 4.0 names no error; MPICH 4.0 succeeds too */
    if (mattr_call_delete(h, a) != MPI_SUCCESS) return MPI_ERR_OTHER;
    mattr_unlink(list, a);
    return MPI_SUCCESS;
}

static void mattr_get(mattr_t *list, const mkv_t *kv, void *attribute_val, int *flag)
{
    mattr_t *a = *mattr_find(&list, kv);
    *flag = a != NULL;
    if (a) *(void **)attribute_val = a->val;
}

/* ---- communicators ------------------------------------------------------------------- */

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                           MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                           void *extra_state)
{
    MPI_CHECK_STATE("MPI_Comm_create_keyval");
    return mkv_create(MKV_COMM, comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval, extra_state,
                      "MPI_Comm_create_keyval");
}

int MPI_Comm_free_keyval(int *comm_keyval)
{
    MPI_CHECK_STATE("MPI_Comm_free_keyval");
    return mkv_free(MKV_COMM, comm_keyval, "MPI_Comm_free_keyval");
}

/* The communicator and user keyval of a set/delete call, or an error. */
static int attr_comm_args(MPI_Comm comm, int keyval, mcomm_t **c, mkv_t **kv, const char *fname)
{
    if (!(*c = mcomm_get(comm))) return mpi_err(NULL, MPI_ERR_COMM, fname, NULL);
    if (!(*kv = mkv_get(keyval, MKV_COMM)))
        return mpi_err(*c, MPI_ERR_KEYVAL, fname,
                       attr_predefined(keyval) ? "predefined keyval" : "not a communicator keyval");
    return MPI_SUCCESS;
}

int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    MPI_CHECK_STATE("MPI_Comm_set_attr");
    mcomm_t *c;
    mkv_t *kv;
    int rc = attr_comm_args(comm, comm_keyval, &c, &kv, "MPI_Comm_set_attr");
    if (rc) return rc;
    if (kv->freed) return mpi_err(c, MPI_ERR_KEYVAL, "MPI_Comm_set_attr", "keyval was freed");
    rc = mattr_set(comm, &c->attrs, kv, attribute_val);
    return rc ? mpi_err(c, rc, "MPI_Comm_set_attr", "the delete callback of the old value failed")
              : MPI_SUCCESS;
}

int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    MPI_CHECK_STATE("MPI_Comm_delete_attr");
    mcomm_t *c;
    mkv_t *kv;
    int rc = attr_comm_args(comm, comm_keyval, &c, &kv, "MPI_Comm_delete_attr");
    if (rc) return rc;
    rc = mattr_delete(comm, &c->attrs, kv);
    return rc ? mpi_err(c, rc, "MPI_Comm_delete_attr", "the delete callback failed") : MPI_SUCCESS;
}

/* The predefined keys are on every communicator (MPI puts them on
 * MPI_COMM_WORLD; programs query them on their own communicators too, as
 * MPICH and Open MPI answer). */
int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    MPI_CHECK_STATE("MPI_Comm_get_attr");
    mcomm_t *c = mcomm_get(comm);
    if (!c) return mpi_err(NULL, MPI_ERR_COMM, "MPI_Comm_get_attr", NULL);
    if (!attribute_val || !flag)
        return mpi_err(c, MPI_ERR_ARG, "MPI_Comm_get_attr", "NULL attribute_val or flag");
    if (attr_predefined(comm_keyval)) {
        int *val = attr_predefined_value(comm_keyval);
        *flag = val != NULL;
        if (val) *(int **)attribute_val = val;
        return MPI_SUCCESS;
    }
    mkv_t *kv = mkv_get(comm_keyval, MKV_COMM);
    if (!kv) return mpi_err(c, MPI_ERR_KEYVAL, "MPI_Comm_get_attr", "unknown keyval");
    mattr_get(c->attrs, kv, attribute_val, flag);
    return MPI_SUCCESS;
}

/* MPI 4.0 §11.2.4: at MPI_Finalize, MPI_COMM_SELF's attributes go first,
 * as if it were freed, then MPI_COMM_WORLD's. */
int mattr_finalize(void)
{
    mcomm_t *self = mcomm_get(MPI_COMM_SELF), *world = mcomm_get(MPI_COMM_WORLD);
    int rc = mattr_delete_all(MPI_COMM_SELF, &self->attrs);
    int rc2 = mattr_delete_all(MPI_COMM_WORLD, &world->attrs);
    return rc ? rc : rc2;
}

/* ---- MPI-1 names (deprecated) -------------------------------------------------------- */

int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                      void *extra_state)
{
    return MPI_Comm_create_keyval(copy_fn, delete_fn, keyval, extra_state);
}

int MPI_Keyval_free(int *keyval)
{
    return MPI_Comm_free_keyval(keyval);
}

int MPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return MPI_Comm_set_attr(comm, keyval, attribute_val);
}

int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return MPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}

int MPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return MPI_Comm_delete_attr(comm, keyval);
}

/* ---- datatypes ----------------------------------------------------------------------- */

int MPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                           MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                           void *extra_state)
{
    MPI_CHECK_STATE("MPI_Type_create_keyval");
    return mkv_create(MKV_TYPE, type_copy_attr_fn, type_delete_attr_fn, type_keyval, extra_state,
                      "MPI_Type_create_keyval");
}

int MPI_Type_free_keyval(int *type_keyval)
{
    MPI_CHECK_STATE("MPI_Type_free_keyval");
    return mkv_free(MKV_TYPE, type_keyval, "MPI_Type_free_keyval");
}

static int attr_type_args(MPI_Datatype dt, int keyval, mdt_type_t **t, mkv_t **kv,
                          const char *fname)
{
    if (!(*t = mdt_get(dt))) return mpi_err(NULL, MPI_ERR_TYPE, fname, NULL);
    if (!(*kv = mkv_get(keyval, MKV_TYPE)))
        return mpi_err(NULL, MPI_ERR_KEYVAL, fname, "not a datatype keyval");
    return MPI_SUCCESS;
}

int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    MPI_CHECK_STATE("MPI_Type_set_attr");
    mdt_type_t *t;
    mkv_t *kv;
    int rc = attr_type_args(datatype, type_keyval, &t, &kv, "MPI_Type_set_attr");
    if (rc) return rc;
    if (kv->freed) return mpi_err(NULL, MPI_ERR_KEYVAL, "MPI_Type_set_attr", "keyval was freed");
    rc = mattr_set(datatype, &t->attrs, kv, attribute_val);
    return rc ? mpi_err(NULL, rc, "MPI_Type_set_attr", NULL) : MPI_SUCCESS;
}

int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
    MPI_CHECK_STATE("MPI_Type_get_attr");
    mdt_type_t *t;
    mkv_t *kv;
    int rc = attr_type_args(datatype, type_keyval, &t, &kv, "MPI_Type_get_attr");
    if (rc) return rc;
    if (!attribute_val || !flag)
        return mpi_err(NULL, MPI_ERR_ARG, "MPI_Type_get_attr", "NULL attribute_val or flag");
    mattr_get(t->attrs, kv, attribute_val, flag);
    return MPI_SUCCESS;
}

int MPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    MPI_CHECK_STATE("MPI_Type_delete_attr");
    mdt_type_t *t;
    mkv_t *kv;
    int rc = attr_type_args(datatype, type_keyval, &t, &kv, "MPI_Type_delete_attr");
    if (rc) return rc;
    rc = mattr_delete(datatype, &t->attrs, kv);
    return rc ? mpi_err(NULL, rc, "MPI_Type_delete_attr", NULL) : MPI_SUCCESS;
}
