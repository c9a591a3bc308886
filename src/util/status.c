#include "util/status.h"

const char *sl_status_string(sl_status_t status)
{
    switch (status) {
#define SL_STATUS_STR_(name, value, msg)                                                     \
    case SL_##name:                                                                         \
        return msg;
        SL_STATUS_TABLE(SL_STATUS_STR_)
#undef SL_STATUS_STR_
    }
    return "unknown status";
}

const char *sl_status_name(sl_status_t status)
{
    switch (status) {
#define SL_STATUS_NAME_(name, value, msg)                                                    \
    case SL_##name:                                                                         \
        return "SL_" #name;
        SL_STATUS_TABLE(SL_STATUS_NAME_)
#undef SL_STATUS_NAME_
    }
    return "SL_UNKNOWN";
}
