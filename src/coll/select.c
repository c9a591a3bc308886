/* Which variant serves a call: SLUICE_COLL_<KIND> when set, else the
 * default table (by communicator size and message size; the measurements
 * behind it are in docs/COLL.md). */
#include "coll/coll_int.h"

#include "util/log.h"
#include "util/param.h"

#include <stdlib.h>
#include <string.h>

static const char *const variant_names[CA_NVARIANT] = {
    [CA_KARY] = "kary",
    [CA_KNOMIAL] = "knomial",
    [CA_CHAIN] = "chain",
    [CA_FLAT] = "flat",
    [CA_SCATTER_ALLGATHER] = "scatter_allgather",
    [CA_BUTTERFLY] = "butterfly",
    [CA_DISSEMINATION] = "dissemination",
    [CA_PAIRWISE] = "pairwise",
    [CA_RING] = "ring",
    [CA_BRUCK] = "bruck",
    [CA_REDUCE_BCAST] = "reduce_bcast",
    [CA_GATHER_BCAST] = "gather_bcast",
    [CA_REDUCE_SCATTERV] = "reduce_scatterv",
    [CA_LINEAR] = "linear",
    [CA_DIRECT] = "direct",
    [CA_ROUNDOPT] = "roundopt",
};

static const char *const kind_names[COLL_NKIND] = {
    [COLL_BARRIER] = "barrier",     [COLL_BCAST] = "bcast",
    [COLL_REDUCE] = "reduce",       [COLL_ALLREDUCE] = "allreduce",
    [COLL_GATHER] = "gather",       [COLL_SCATTER] = "scatter",
    [COLL_ALLGATHER] = "allgather", [COLL_ALLTOALL] = "alltoall",
    [COLL_REDUCE_SCATTER] = "reduce_scatter", [COLL_SCAN] = "scan",
    [COLL_NEIGHBOR] = "neighbor",
};

#define TREES CA_KARY, CA_KNOMIAL, CA_CHAIN, CA_FLAT
static const int kind_variants[COLL_NKIND][8] = {
    [COLL_BARRIER] = {CA_DISSEMINATION, CA_BUTTERFLY, CA_PAIRWISE, CA_REDUCE_BCAST, -1},
    [COLL_BCAST] = {TREES, CA_SCATTER_ALLGATHER, CA_ROUNDOPT, -1},
    [COLL_REDUCE] = {TREES, -1},
    [COLL_ALLREDUCE] = {CA_BUTTERFLY, CA_DISSEMINATION, CA_REDUCE_BCAST, CA_RING, -1},
    [COLL_GATHER] = {TREES, -1},
    [COLL_SCATTER] = {TREES, -1},
    [COLL_ALLGATHER] = {CA_RING, CA_BUTTERFLY, CA_PAIRWISE, CA_DISSEMINATION, CA_GATHER_BCAST, -1},
    [COLL_ALLTOALL] = {CA_PAIRWISE, CA_BRUCK, -1},
    [COLL_REDUCE_SCATTER] = {CA_PAIRWISE, CA_REDUCE_SCATTERV, -1},
    [COLL_SCAN] = {CA_LINEAR, -1},
    [COLL_NEIGHBOR] = {CA_DIRECT, -1},
};

static const sl_param_id_t kind_param[COLL_NKIND] = {
    [COLL_BARRIER] = SL_PARAM_COLL_BARRIER,     [COLL_BCAST] = SL_PARAM_COLL_BCAST,
    [COLL_REDUCE] = SL_PARAM_COLL_REDUCE,       [COLL_ALLREDUCE] = SL_PARAM_COLL_ALLREDUCE,
    [COLL_GATHER] = SL_PARAM_COLL_GATHER,       [COLL_SCATTER] = SL_PARAM_COLL_SCATTER,
    [COLL_ALLGATHER] = SL_PARAM_COLL_ALLGATHER, [COLL_ALLTOALL] = SL_PARAM_COLL_ALLTOALL,
    [COLL_REDUCE_SCATTER] = SL_PARAM_COLL_REDUCE_SCATTER, [COLL_SCAN] = SL_PARAM_COLL_SCAN,
    [COLL_NEIGHBOR] = SL_PARAM_COUNT, /* one variant, nothing to choose */
};

const char *coll_variant_name(int variant)
{
    return variant >= 0 && variant < CA_NVARIANT ? variant_names[variant] : "?";
}

const char *coll_kind_name(coll_kind_t kind)
{
    return kind < COLL_NKIND ? kind_names[kind] : kind == COLL_NKIND ? "user schedule" : "?";
}

int coll_variants(coll_kind_t kind, int *variants, int max)
{
    int n = 0;
    for (int i = 0; i < 8 && kind_variants[kind][i] >= 0; i++)
        if (n < max) variants[n++] = kind_variants[kind][i];
    return n;
}

static bool kind_has(coll_kind_t kind, int variant)
{
    for (int i = 0; i < 8 && kind_variants[kind][i] >= 0; i++)
        if (kind_variants[kind][i] == variant) return true;
    return false;
}

/* "name[:k=K][,seg=S][,window=W]" */
sl_status_t coll_alg_parse(coll_kind_t kind, const char *text, coll_alg_t *out)
{
    char buf[128];
    if (strlen(text) >= sizeof buf) return SL_ERR_INVALID;
    strcpy(buf, text);
    char *params = strchr(buf, ':');
    if (params) *params++ = '\0';
    int v = -1;
    for (int i = 0; i < CA_NVARIANT; i++)
        if (!strcmp(buf, variant_names[i])) v = i;
    if (v < 0 || !kind_has(kind, v)) return SL_ERR_INVALID;
    coll_alg_t a = {.variant = v, .k = 2, .seg = 0, .window = 0};
    for (char *p = params ? strtok(params, ",") : NULL; p; p = strtok(NULL, ",")) {
        char *eq = strchr(p, '='), *end;
        if (!eq) return SL_ERR_INVALID;
        *eq++ = '\0';
        long val = strtol(eq, &end, 10);
        if (*end || val < 0) return SL_ERR_INVALID;
        if (!strcmp(p, "k") && val >= 1 && val <= COLL_TREE_MAXCHILD) a.k = (int)val;
        else if (!strcmp(p, "seg")) a.seg = (size_t)val;
        else if (!strcmp(p, "window")) a.window = (int)val;
        else return SL_ERR_INVALID;
    }
    *out = a;
    return SL_OK;
}

static bool pow2(int n)
{
    return (n & (n - 1)) == 0;
}

/* The default table.  Small messages want few rounds, long ones few bytes
 * per link; on shared memory a message costs about 0.2 us plus its copy. */
void coll_select_default(coll_kind_t kind, const coll_call_t *c, coll_alg_t *a)
{
    *a = (coll_alg_t){.variant = CA_KNOMIAL, .k = 2, .seg = 0, .window = 0};
    size_t b = c->bytes;
    switch (kind) {
    case COLL_BARRIER: a->variant = CA_DISSEMINATION; break;
    case COLL_BCAST:
        /* segments pay off only where a node forwards (more than 2 ranks):
         * on 2 each one is a message more for the same bytes */
        if (c->size > 2 && b >= 512 * 1024) a->variant = CA_SCATTER_ALLGATHER;
        else if (c->size > 2 && b >= 128 * 1024) a->seg = 128 * 1024, a->window = 4;
        break;
    case COLL_REDUCE:
        if (c->size > 2 && b >= 256 * 1024) a->seg = 128 * 1024;
        break;
    case COLL_ALLREDUCE:
        if (c->commute && b >= 64 * 1024 && c->size > 2) a->variant = CA_RING;
        else a->variant = CA_BUTTERFLY;
        break;
    case COLL_GATHER:
    case COLL_SCATTER:
        if (b * (size_t)c->size >= 256 * 1024) a->variant = CA_FLAT;
        break;
    case COLL_ALLGATHER:
        /* up to 8 ranks one round of n - 1 messages beats log2 n dependent
         * rounds below 64 KiB (docs/COLL.md, the variant table) */
        if (c->size <= 8 && b < 64 * 1024) a->variant = CA_PAIRWISE;
        else if (!c->regular || b * (size_t)c->size >= 256 * 1024) a->variant = CA_RING;
        else a->variant = pow2(c->size) ? CA_BUTTERFLY : CA_DISSEMINATION;
        break;
    case COLL_ALLTOALL:
        a->variant = c->regular && b <= 256 && c->size > 4 ? CA_BRUCK : CA_PAIRWISE;
        if (b >= 64 * 1024) a->window = 4;
        break;
    case COLL_REDUCE_SCATTER: a->variant = CA_PAIRWISE; break;
    case COLL_SCAN: a->variant = CA_LINEAR; if (b >= 256 * 1024) a->seg = 128 * 1024; break;
    case COLL_NEIGHBOR: a->variant = CA_DIRECT; break;
    default: break;
    }
}

void coll_select(coll_kind_t kind, const coll_call_t *call, coll_alg_t *out)
{
    static bool warned[COLL_NKIND];
    coll_select_default(kind, call, out);
    if (kind_param[kind] == SL_PARAM_COUNT) return;
    const char *text = sl_param_str(kind_param[kind]);
    if (!*text) return;
    coll_alg_t a;
    if (coll_alg_parse(kind, text, &a) != SL_OK) {
        if (!warned[kind]) {
            warned[kind] = true;
            sl_log_warn("coll: %s='%s' is not a variant of %s (sluice_info lists them); using "
                        "the default", sl_param_desc(kind_param[kind])->name, text,
                        kind_names[kind]);
        }
        return;
    }
    *out = a;
}
