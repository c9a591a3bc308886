/* PMI-1 simple wire protocol client; see pmi_client.h. */
#include "boot/pmi_client.h"
#include "util/log.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define PMI_REPLY_TOKENS 16

/* PMI-1 allows one init per process: once this process finalized its
 * launcher connection, PMI_FD may name something else and the launcher has
 * written this rank off. */
static bool pmi_finalized;

struct boot_pmi_kv {
    boot_pmi_kv_t *next;
    char *key, *value;
};

/* A reply line split in place into key=value tokens. */
typedef struct pmi_reply {
    char line[BOOT_PMI_LINE_MAX];
    char raw[BOOT_PMI_LINE_MAX]; /* unsplit copy, for error messages */
    int ntok;
    char *key[PMI_REPLY_TOKENS];
    char *val[PMI_REPLY_TOKENS];
} pmi_reply_t;

/* ---- environment --------------------------------------------------------------------- */

/* Decimal integer in [min, max] from variable name.  SL_ERR_NOTFOUND when unset. */
static sl_status_t pmi_env_int(const char *name, long min, long max, int *out)
{
    const char *text = getenv(name);
    if (!text) return SL_ERR_NOTFOUND;
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < min || v > max) {
        sl_log_error("boot: %s='%s' is not an integer in [%ld, %ld]", name, text, min, max);
        return SL_ERR_CONFIG;
    }
    *out = (int)v;
    return SL_OK;
}

/* ---- line I/O ------------------------------------------------------------------------ */

static sl_status_t pmi_write_line(boot_pmi_t *pmi, const char *line)
{
    size_t len = strlen(line), off = 0;
    while (off < len) {
        ssize_t n = send(pmi->fd, line + off, len - off, MSG_NOSIGNAL);
        if (n < 0 && errno == ENOTSOCK) n = write(pmi->fd, line + off, len - off);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EPIPE || errno == ECONNRESET) {
                sl_log_error("boot: the launcher closed the PMI connection");
                return SL_ERR_PEER_DEAD;
            }
            sl_log_error("boot: writing to the PMI connection: %s", strerror(errno));
            return SL_ERR_SYS;
        }
        off += (size_t)n;
    }
    return SL_OK;
}

/* Next line (without its newline) into out[BOOT_PMI_LINE_MAX]; blocks. */
static sl_status_t pmi_read_line(boot_pmi_t *pmi, char *out)
{
    for (;;) {
        char *nl = memchr(pmi->rbuf, '\n', pmi->rlen);
        if (nl) {
            size_t len = (size_t)(nl - pmi->rbuf);
            memcpy(out, pmi->rbuf, len);
            out[len] = '\0';
            if (len > 0 && out[len - 1] == '\r') out[len - 1] = '\0';
            pmi->rlen -= len + 1;
            memmove(pmi->rbuf, nl + 1, pmi->rlen);
            return SL_OK;
        }
        if (pmi->rlen == sizeof pmi->rbuf) {
            sl_log_error("boot: the launcher sent a line longer than %d bytes",
                         BOOT_PMI_LINE_MAX - 1);
            return SL_ERR_PROTO;
        }
        ssize_t n = read(pmi->fd, pmi->rbuf + pmi->rlen, sizeof pmi->rbuf - pmi->rlen);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == ECONNRESET)
                n = 0;
            else {
                sl_log_error("boot: reading from the PMI connection: %s", strerror(errno));
                return SL_ERR_SYS;
            }
        }
        if (n == 0) {
            sl_log_error("boot: the launcher closed the PMI connection");
            return SL_ERR_PEER_DEAD;
        }
        pmi->rlen += (size_t)n;
    }
}

static void pmi_reply_split(pmi_reply_t *r)
{
    snprintf(r->raw, sizeof r->raw, "%s", r->line);
    r->ntok = 0;
    char *save = NULL;
    for (char *tok = strtok_r(r->line, " \t", &save); tok && r->ntok < PMI_REPLY_TOKENS;
         tok = strtok_r(NULL, " \t", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) continue;
        *eq = '\0';
        r->key[r->ntok] = tok;
        r->val[r->ntok] = eq + 1;
        r->ntok++;
    }
}

static const char *pmi_reply_get(const pmi_reply_t *r, const char *key)
{
    for (int i = 0; i < r->ntok; i++)
        if (strcmp(r->key[i], key) == 0) return r->val[i];
    return NULL;
}

/* Reads one line and checks that it is cmd=<expect>. */
static sl_status_t pmi_expect(boot_pmi_t *pmi, const char *expect, pmi_reply_t *r)
{
    sl_status_t st = pmi_read_line(pmi, r->line);
    if (st != SL_OK) return st;
    pmi_reply_split(r);
    const char *cmd = pmi_reply_get(r, "cmd");
    if (!cmd || strcmp(cmd, expect) != 0) {
        sl_log_error("boot: expected cmd=%s from the launcher, got '%s'", expect, r->raw);
        return SL_ERR_PROTO;
    }
    return SL_OK;
}

/* Sends request (a full line with its newline) and reads the cmd=<expect> reply. */
static sl_status_t pmi_call(boot_pmi_t *pmi, const char *request, const char *expect,
                            pmi_reply_t *r)
{
    sl_status_t st = pmi_write_line(pmi, request);
    if (st != SL_OK) return st;
    return pmi_expect(pmi, expect, r);
}

/* rc=<n> of a reply; 0 when absent (several replies carry none). */
static int pmi_reply_rc(const pmi_reply_t *r)
{
    const char *rc = pmi_reply_get(r, "rc");
    return rc ? atoi(rc) : 0;
}

/* Integer field of a reply; SL_ERR_PROTO when missing or malformed. */
static sl_status_t pmi_reply_int(const pmi_reply_t *r, const char *key, int *out)
{
    const char *v = pmi_reply_get(r, key);
    char *end;
    if (v) {
        errno = 0;
        long n = strtol(v, &end, 10);
        if (!errno && end != v && !*end && n >= INT_MIN && n <= INT_MAX) {
            *out = (int)n;
            return SL_OK;
        }
    }
    sl_log_error("boot: launcher reply '%s' lacks a valid %s", r->raw, key);
    return SL_ERR_PROTO;
}

/* ---- connection set-up ----------------------------------------------------------------- */

static sl_status_t pmi_connect_port(boot_pmi_t *pmi, const char *port_env)
{
    char host[256];
    const char *colon = strrchr(port_env, ':');
    if (!colon || colon == port_env || (size_t)(colon - port_env) >= sizeof host || !colon[1]) {
        sl_log_error("boot: PMI_PORT='%s' is not host:port", port_env);
        return SL_ERR_CONFIG;
    }
    memcpy(host, port_env, (size_t)(colon - port_env));
    host[colon - port_env] = '\0';
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res, *ai;
    int gai = getaddrinfo(host, colon + 1, &hints, &res);
    if (gai != 0) {
        sl_log_error("boot: PMI_PORT='%s': %s", port_env, gai_strerror(gai));
        return SL_ERR_CONFIG;
    }
    int fd = -1, err = 0;
    for (ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            err = errno;
            continue;
        }
        int rc;
        do {
            rc = connect(fd, ai->ai_addr, ai->ai_addrlen);
        } while (rc < 0 && errno == EINTR);
        if (rc == 0) break;
        err = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        sl_log_error("boot: cannot connect to the launcher at PMI_PORT=%s: %s", port_env,
                     strerror(err));
        return SL_ERR_SYS;
    }
    pmi->fd = fd;
    return SL_OK;
}

/* PMI_PORT handshake (MPICH simple PMI): initack with our id, then the
 * launcher tells size, rank and debug in cmd=set lines. */
static sl_status_t pmi_port_handshake(boot_pmi_t *pmi, int id)
{
    char req[64];
    pmi_reply_t r;
    snprintf(req, sizeof req, "cmd=initack pmiid=%d\n", id);
    sl_status_t st = pmi_call(pmi, req, "initack", &r);
    if (st == SL_OK && pmi_reply_rc(&r) != 0) {
        sl_log_error("boot: the launcher refused PMI_ID=%d: '%s'", id, r.raw);
        st = SL_ERR_PROTO;
    }
    for (int i = 0; i < 3 && st == SL_OK; i++) {
        st = pmi_expect(pmi, "set", &r);
        if (st == SL_OK && pmi_reply_get(&r, "size")) st = pmi_reply_int(&r, "size", &pmi->size);
        if (st == SL_OK && pmi_reply_get(&r, "rank")) st = pmi_reply_int(&r, "rank", &pmi->rank);
    }
    return st;
}

static sl_status_t pmi_connect(boot_pmi_t *pmi)
{
    sl_status_t st;
    int fd;
    const char *port = getenv("PMI_PORT");
    if (pmi_finalized) {
        sl_log_error("boot: this process already finalized its PMI connection");
        return SL_ERR_CONFIG;
    }
    if (getenv("PMI_FD")) {
        if ((st = pmi_env_int("PMI_FD", 0, INT_MAX, &fd)) != SL_OK) return st;
        struct stat sb;
        int flags = fcntl(fd, F_GETFD);
        if (flags < 0 || fstat(fd, &sb) != 0 || !S_ISSOCK(sb.st_mode)) {
            sl_log_error("boot: PMI_FD=%d is not an open socket", fd);
            return SL_ERR_CONFIG;
        }
        /* programs this rank starts must not hold the launcher's connection */
        fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
        if ((st = pmi_env_int("PMI_RANK", 0, INT_MAX, &pmi->rank)) != SL_OK ||
            (st = pmi_env_int("PMI_SIZE", 1, INT_MAX, &pmi->size)) != SL_OK) {
            if (st == SL_ERR_NOTFOUND)
                sl_log_error("boot: PMI_FD is set but PMI_RANK or PMI_SIZE is not");
            return SL_ERR_CONFIG;
        }
        pmi->fd = fd;
        return SL_OK;
    }
    int id;
    st = pmi_env_int("PMI_ID", 0, INT_MAX, &id);
    if (st == SL_ERR_NOTFOUND) st = pmi_env_int("PMI_RANK", 0, INT_MAX, &id);
    if (st == SL_ERR_NOTFOUND) {
        sl_log_error("boot: PMI_PORT is set but neither PMI_ID nor PMI_RANK");
        return SL_ERR_CONFIG;
    }
    if (st != SL_OK) return st;
    if ((st = pmi_connect_port(pmi, port)) != SL_OK) return st;
    pmi->rank = -1;
    pmi->size = -1;
    if ((st = pmi_port_handshake(pmi, id)) != SL_OK) return st;
    if (pmi->size < 1 || pmi->rank < 0) {
        sl_log_error("boot: the launcher did not tell this process's rank and size");
        return SL_ERR_PROTO;
    }
    return SL_OK;
}

static int pmi_cap(int launcher_max, int local_max)
{
    return launcher_max > 0 && launcher_max < local_max ? launcher_max : local_max;
}

static sl_status_t pmi_handshake(boot_pmi_t *pmi)
{
    pmi_reply_t r;
    sl_status_t st =
        pmi_call(pmi, "cmd=init pmi_version=1 pmi_subversion=1\n", "response_to_init", &r);
    if (st != SL_OK) return st;
    if (pmi_reply_rc(&r) != 0) {
        sl_log_error("boot: the launcher refused PMI version 1.1: '%s'", r.raw);
        return SL_ERR_PROTO;
    }
    int kvsname_max, keylen_max, vallen_max;
    if ((st = pmi_call(pmi, "cmd=get_maxes\n", "maxes", &r)) != SL_OK ||
        (st = pmi_reply_int(&r, "kvsname_max", &kvsname_max)) != SL_OK ||
        (st = pmi_reply_int(&r, "keylen_max", &keylen_max)) != SL_OK ||
        (st = pmi_reply_int(&r, "vallen_max", &vallen_max)) != SL_OK)
        return st;
    pmi->kvsname_max = pmi_cap(kvsname_max, BOOT_PMI_KVSNAME_MAX);
    pmi->keylen_max = pmi_cap(keylen_max, BOOT_PMI_KEY_MAX);
    pmi->vallen_max = pmi_cap(vallen_max, BOOT_PMI_VAL_MAX);
    if ((st = pmi_call(pmi, "cmd=get_appnum\n", "appnum", &r)) != SL_OK ||
        (st = pmi_reply_int(&r, "appnum", &pmi->appnum)) != SL_OK)
        return st;
    if ((st = pmi_call(pmi, "cmd=get_my_kvsname\n", "my_kvsname", &r)) != SL_OK) return st;
    const char *name = pmi_reply_get(&r, "kvsname");
    if (!name || !*name || strlen(name) >= (size_t)pmi->kvsname_max) {
        sl_log_error("boot: bad key-value space name in '%s'", r.raw);
        return SL_ERR_PROTO;
    }
    strcpy(pmi->kvsname, name);
    return SL_OK;
}

sl_status_t boot_pmi_init(boot_pmi_t *pmi)
{
    memset(pmi, 0, sizeof *pmi);
    pmi->fd = -1;
    if (!getenv("PMI_FD") && !getenv("PMI_PORT")) {
        pmi->singleton = true;
        pmi->rank = 0;
        pmi->size = 1;
        pmi->kvsname_max = BOOT_PMI_KVSNAME_MAX;
        pmi->keylen_max = BOOT_PMI_KEY_MAX;
        pmi->vallen_max = BOOT_PMI_VAL_MAX;
        snprintf(pmi->kvsname, sizeof pmi->kvsname, "singleton_kvs_%ld", (long)getpid());
        return SL_OK;
    }
    sl_status_t st = pmi_connect(pmi);
    if (st == SL_OK) {
        if (pmi->rank >= pmi->size) {
            sl_log_error("boot: rank %d is not below the job size %d", pmi->rank, pmi->size);
            st = SL_ERR_CONFIG;
        } else {
            st = pmi_handshake(pmi);
        }
    }
    if (st != SL_OK && pmi->fd >= 0) {
        close(pmi->fd);
        pmi->fd = -1;
    }
    return st;
}

/* ---- key-value space ----------------------------------------------------------------- */

bool boot_pmi_key_ok(const boot_pmi_t *pmi, const char *key)
{
    if (!key || !*key || strlen(key) >= (size_t)pmi->keylen_max) return false;
    for (const char *p = key; *p; p++)
        if (isspace((unsigned char)*p) || *p == '=') return false;
    return true;
}

bool boot_pmi_value_ok(const boot_pmi_t *pmi, const char *value)
{
    if (!value || strlen(value) >= (size_t)pmi->vallen_max) return false;
    for (const char *p = value; *p; p++)
        if (isspace((unsigned char)*p)) return false;
    return true;
}

static boot_pmi_kv_t *pmi_local_find(boot_pmi_t *pmi, const char *key)
{
    for (boot_pmi_kv_t *kv = pmi->local; kv; kv = kv->next)
        if (strcmp(kv->key, key) == 0) return kv;
    return NULL;
}

static sl_status_t pmi_local_put(boot_pmi_t *pmi, const char *key, const char *value)
{
    char *v = strdup(value);
    if (!v) return SL_ERR_NOMEM;
    boot_pmi_kv_t *kv = pmi_local_find(pmi, key);
    if (kv) {
        free(kv->value);
        kv->value = v;
        return SL_OK;
    }
    kv = calloc(1, sizeof *kv);
    if (!kv || !(kv->key = strdup(key))) {
        free(kv);
        free(v);
        return SL_ERR_NOMEM;
    }
    kv->value = v;
    kv->next = pmi->local;
    pmi->local = kv;
    return SL_OK;
}

sl_status_t boot_pmi_put(boot_pmi_t *pmi, const char *key, const char *value)
{
    if (!boot_pmi_key_ok(pmi, key) || !boot_pmi_value_ok(pmi, value)) return SL_ERR_INVALID;
    if (pmi->singleton) return pmi_local_put(pmi, key, value);
    char req[BOOT_PMI_LINE_MAX];
    pmi_reply_t r;
    snprintf(req, sizeof req, "cmd=put kvsname=%s key=%s value=%s\n", pmi->kvsname, key, value);
    sl_status_t st = pmi_call(pmi, req, "put_result", &r);
    if (st != SL_OK) return st;
    if (pmi_reply_rc(&r) != 0) {
        sl_log_error("boot: the launcher refused to store key %s: '%s'", key, r.raw);
        return SL_ERR_PROTO;
    }
    return SL_OK;
}

sl_status_t boot_pmi_get(boot_pmi_t *pmi, const char *key, char *value, size_t len)
{
    if (!boot_pmi_key_ok(pmi, key) || !value) return SL_ERR_INVALID;
    const char *found;
    pmi_reply_t r;
    if (pmi->singleton) {
        boot_pmi_kv_t *kv = pmi_local_find(pmi, key);
        if (!kv) return SL_ERR_NOTFOUND;
        found = kv->value;
    } else {
        char req[BOOT_PMI_LINE_MAX];
        snprintf(req, sizeof req, "cmd=get kvsname=%s key=%s\n", pmi->kvsname, key);
        sl_status_t st = pmi_call(pmi, req, "get_result", &r);
        if (st != SL_OK) return st;
        if (pmi_reply_rc(&r) != 0) {
            const char *msg = pmi_reply_get(&r, "msg");
            sl_log_debug("boot: get %s: %s", key, msg ? msg : "no message");
            return SL_ERR_NOTFOUND;
        }
        found = pmi_reply_get(&r, "value");
        if (!found) {
            sl_log_error("boot: get reply without a value: '%s'", r.raw);
            return SL_ERR_PROTO;
        }
    }
    size_t n = strlen(found);
    if (n >= len) return SL_ERR_TRUNCATE;
    memcpy(value, found, n + 1);
    return SL_OK;
}

sl_status_t boot_pmi_barrier(boot_pmi_t *pmi)
{
    if (pmi->singleton) return SL_OK;
    pmi_reply_t r;
    return pmi_call(pmi, "cmd=barrier_in\n", "barrier_out", &r);
}

sl_status_t boot_pmi_universe_size(boot_pmi_t *pmi, int *size)
{
    if (pmi->singleton) {
        *size = 1;
        return SL_OK;
    }
    pmi_reply_t r;
    sl_status_t st = pmi_call(pmi, "cmd=get_universe_size\n", "universe_size", &r);
    if (st == SL_OK) st = pmi_reply_int(&r, "size", size);
    return st;
}

/* ---- end ------------------------------------------------------------------------------ */

static void pmi_release(boot_pmi_t *pmi)
{
    if (pmi->fd >= 0) close(pmi->fd);
    pmi->fd = -1;
    while (pmi->local) {
        boot_pmi_kv_t *kv = pmi->local;
        pmi->local = kv->next;
        free(kv->key);
        free(kv->value);
        free(kv);
    }
}

sl_status_t boot_pmi_fini(boot_pmi_t *pmi)
{
    sl_status_t st = SL_OK;
    if (pmi->fd >= 0) {
        pmi_reply_t r;
        st = pmi_call(pmi, "cmd=finalize\n", "finalize_ack", &r);
        pmi_finalized = true;
    }
    pmi_release(pmi);
    return st;
}

void boot_pmi_abort(boot_pmi_t *pmi, int code, const char *msg)
{
    if (msg && *msg) sl_log_error("abort (exit code %d): %s", code, msg);
    fflush(stdout);
    if (pmi && pmi->fd >= 0) {
        char req[64];
        snprintf(req, sizeof req, "cmd=abort exitcode=%d\n", code);
        (void)pmi_write_line(pmi, req); /* the launcher ends the job; no reply */
    }
    exit(code);
}
