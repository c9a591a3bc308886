/* Run-time settings (environment variables SLUICE_*), declared in
 * param_table.h.  Values are read from the environment on every call: they
 * are read at initialisation, never on a fast path. */
#ifndef SL_UTIL_PARAM_H
#define SL_UTIL_PARAM_H

#include "util/status.h"

#include <stdbool.h>

#include "util/param_table.h"

#define SL_PARAM_ENUM_(id, name, kind, def, min, max, help) SL_PARAM_##id,
typedef enum sl_param_id { SL_PARAM_TABLE(SL_PARAM_ENUM_) SL_PARAM_COUNT } sl_param_id_t;
#undef SL_PARAM_ENUM_

typedef enum sl_param_kind { SL_PARAM_KIND_INT, SL_PARAM_KIND_STR } sl_param_kind_t;

typedef struct sl_param_desc {
    const char *name;       /* environment variable */
    sl_param_kind_t kind;
    const char *def;        /* default, as text */
    long min, max;          /* bounds of INT settings */
    const char *help;
} sl_param_desc_t;

/* The descriptor of one setting (id < SL_PARAM_COUNT). */
const sl_param_desc_t *sl_param_desc(sl_param_id_t id);

/* Integer value: the environment's if set, else the default.  A malformed or
 * out-of-range value returns SL_ERR_CONFIG after logging which variable is
 * wrong and why; *out is then untouched. */
sl_status_t sl_param_int(sl_param_id_t id, long *out);

/* Integer value for settings whose misconfiguration is not worth failing for
 * (debug flags): malformed values count as the default. */
bool sl_param_flag(sl_param_id_t id);

/* String value (the default when unset); never NULL. */
const char *sl_param_str(sl_param_id_t id);

#endif
