/* Fuzz target (e): the SLUICE_* setting parser (src/util/param.c) and the
 * collective variant names it feeds (coll_alg_parse, SLUICE_COLL_<KIND>).
 * Input: one byte choosing the setting, the rest its value. */
#include "coll/coll.h"
#include "fuzz_common.h"
#include "util/param.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    unsigned id = data[0] % SL_PARAM_COUNT;
    char text[256];
    size_t n = size - 1 < sizeof text - 1 ? size - 1 : sizeof text - 1;
    memcpy(text, data + 1, n);
    text[n] = '\0';
    const sl_param_desc_t *d = sl_param_desc((sl_param_id_t)id);
    setenv(d->name, text, 1);
    if (d->kind == SL_PARAM_KIND_INT) {
        long v = 0x5a5a;
        sl_status_t st = sl_param_int((sl_param_id_t)id, &v);
        if (st == SL_OK && (v < d->min || v > d->max)) abort(); /* accepted out of range */
        if (st != SL_OK && v != 0x5a5a) abort();                /* wrote on failure */
        (void)sl_param_flag((sl_param_id_t)id);
    } else {
        const char *s = sl_param_str((sl_param_id_t)id);
        if (!s) abort();
    }
    unsetenv(d->name);
    coll_alg_t a;
    (void)coll_alg_parse((coll_kind_t)(data[0] % COLL_NKIND), text, &a);
    return 0;
}
