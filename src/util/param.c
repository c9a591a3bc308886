#include "util/param.h"
#include "util/log.h"

#include <errno.h>
#include <stdlib.h>

static const sl_param_desc_t param_descs[SL_PARAM_COUNT] = {
#define SL_PARAM_DESC_(id, name_, kind_, def_, min_, max_, help_)                            \
    [SL_PARAM_##id] = {.name = name_, .kind = SL_PARAM_KIND_##kind_, .def = def_,          \
                       .min = min_, .max = max_, .help = help_},
    SL_PARAM_TABLE(SL_PARAM_DESC_)
#undef SL_PARAM_DESC_
};

const sl_param_desc_t *sl_param_desc(sl_param_id_t id)
{
    return (unsigned)id < SL_PARAM_COUNT ? &param_descs[id] : NULL;
}

static const char *param_text(const sl_param_desc_t *d)
{
    const char *v = getenv(d->name);
    return (v && *v) ? v : d->def;
}

static sl_status_t param_parse(const sl_param_desc_t *d, const char *text, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 0);
    if (errno || end == text || *end) return SL_ERR_CONFIG;
    if (v < d->min || v > d->max) return SL_ERR_RANGE;
    *out = v;
    return SL_OK;
}

sl_status_t sl_param_int(sl_param_id_t id, long *out)
{
    const sl_param_desc_t *d = sl_param_desc(id);
    if (!d || d->kind != SL_PARAM_KIND_INT || !out) return SL_ERR_INVALID;
    const char *text = param_text(d);
    long v;
    sl_status_t st = param_parse(d, text, &v);
    if (st == SL_ERR_RANGE) {
        sl_log_error("%s=%s is out of range [%ld, %ld]", d->name, text, d->min, d->max);
        return SL_ERR_CONFIG;
    }
    if (st != SL_OK) {
        sl_log_error("%s=%s is not an integer", d->name, text);
        return SL_ERR_CONFIG;
    }
    *out = v;
    return SL_OK;
}

bool sl_param_flag(sl_param_id_t id)
{
    const sl_param_desc_t *d = sl_param_desc(id);
    long v = 0;
    if (!d || d->kind != SL_PARAM_KIND_INT) return false;
    if (param_parse(d, param_text(d), &v) != SL_OK) param_parse(d, d->def, &v);
    return v != 0;
}

const char *sl_param_str(sl_param_id_t id)
{
    const sl_param_desc_t *d = sl_param_desc(id);
    return d ? param_text(d) : "";
}
