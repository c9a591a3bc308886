/* Speaks raw PMI-1 to sluicerun over PMI_FD and checks every reply
 * byte-for-byte against PMI1_WIRE.md: the handshake, several requests in one
 * write, a request split over two writes, unknown and malformed commands and
 * an over-long line (each answered with rc != 0, and the connection still
 * works afterwards), put/get/barrier across ranks, finalize.
 * Runs under sluicerun with 2 or more ranks.  Under sluicerun --pmi-port it
 * connects to PMI_PORT instead and checks the initack handshake, including
 * that bad or duplicate identifications are refused. */
#include "test.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fd;
static char rbuf[8192];
static size_t rlen;

static void send_raw(const char *s, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, s, len);
        CHECK(n > 0);
        s += n;
        len -= (size_t)n;
    }
}

static void send_str(const char *s)
{
    send_raw(s, strlen(s));
}

/* Next reply line (without newline); fails after 5 s instead of hanging. */
static const char *reply(void)
{
    static char line[8192];
    for (;;) {
        char *nl = memchr(rbuf, '\n', rlen);
        if (nl) {
            size_t len = (size_t)(nl - rbuf);
            memcpy(line, rbuf, len);
            line[len] = '\0';
            rlen -= len + 1;
            memmove(rbuf, nl + 1, rlen);
            return line;
        }
        struct pollfd p = {.fd = fd, .events = POLLIN};
        CHECK_MSG(poll(&p, 1, 5000) == 1, "no reply within 5 s");
        ssize_t n = read(fd, rbuf + rlen, sizeof rbuf - rlen);
        CHECK_MSG(n > 0, "launcher closed the connection");
        rlen += (size_t)n;
    }
}

static void expect(const char *want)
{
    const char *got = reply();
    CHECK_MSG(strcmp(got, want) == 0, "reply '%s', want '%s'", got, want);
}

/* Value of key in a reply line ("" when absent). */
static const char *field(const char *line, const char *key)
{
    static char val[1100];
    char pat[64];
    snprintf(pat, sizeof pat, " %s=", key);
    const char *p = strstr(line, pat);
    if (!p) return "";
    p += strlen(pat);
    size_t n = strcspn(p, " ");
    if (n >= sizeof val) n = sizeof val - 1;
    memcpy(val, p, n);
    val[n] = '\0';
    return val;
}

/* A reply to a bad request: any cmd, but a non-zero rc and a message. */
static void expect_error(const char *what)
{
    const char *got = reply();
    CHECK_MSG(strncmp(got, "cmd=", 4) == 0, "%s: reply '%s'", what, got);
    const char *rc = field(got, "rc");
    CHECK_MSG(*rc && atoi(rc) != 0, "%s: reply '%s' has no non-zero rc", what, got);
    CHECK_MSG(*field(got, "msg"), "%s: reply '%s' has no msg", what, got);
}

static int port_connect(void)
{
    const char *port = strrchr(getenv("PMI_PORT"), ':');
    CHECK(port != NULL);
    struct sockaddr_in sa = {.sin_family = AF_INET,
                             .sin_port = htons((uint16_t)atoi(port + 1)),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int s = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(s >= 0 && connect(s, (struct sockaddr *)&sa, sizeof sa) == 0);
    return s;
}

/* A connection that identifies itself with first_line is refused and closed. */
static void port_refused(const char *first_line)
{
    int saved = fd;
    size_t saved_len = rlen;
    fd = port_connect();
    rlen = 0;
    send_str(first_line);
    expect_error(first_line);
    char c;
    CHECK_EQ(read(fd, &c, 1), 0); /* closed by the launcher */
    close(fd);
    fd = saved;
    rlen = saved_len;
}

/* --pmi-port: identify, check the handshake and the refusals. */
static void port_handshake(int rank, int size)
{
    char line[128], want[128];
    snprintf(line, sizeof line, "cmd=initack pmiid=%d\n", size);
    port_refused(line);
    port_refused("cmd=init pmi_version=1 pmi_subversion=1\n");
    CHECK_EQ(atoi(getenv("PMI_ID")), rank);
    fd = port_connect();
    snprintf(line, sizeof line, "cmd=initack pmiid=%d\n", rank);
    send_str(line);
    expect("cmd=initack");
    snprintf(want, sizeof want, "cmd=set size=%d", size);
    expect(want);
    snprintf(want, sizeof want, "cmd=set rank=%d", rank);
    expect(want);
    expect("cmd=set debug=0");
    port_refused(line); /* the id is taken now */
}

int main(void)
{
    CHECK(getenv("PMI_RANK") && getenv("PMI_SIZE"));
    int rank = atoi(getenv("PMI_RANK")), size = atoi(getenv("PMI_SIZE"));
    CHECK(size >= 2);
    if (getenv("PMI_PORT")) {
        CHECK(getenv("PMI_FD") == NULL);
        port_handshake(rank, size);
    } else {
        CHECK(getenv("PMI_FD") != NULL);
        fd = atoi(getenv("PMI_FD"));
    }
    char req[2048], want[2048];

    send_str("cmd=init pmi_version=1 pmi_subversion=1\n");
    expect("cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0");
    /* two requests in one write */
    send_str("cmd=get_maxes\ncmd=get_appnum\n");
    expect("cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024");
    expect("cmd=appnum appnum=0");
    /* one request in two writes, the second after the first was surely read */
    send_str("cmd=get_univ");
    struct pollfd p = {.fd = fd, .events = POLLIN};
    CHECK_EQ(poll(&p, 1, 100), 0); /* no reply to half a line */
    send_str("erse_size\n");
    snprintf(want, sizeof want, "cmd=universe_size size=%d", size);
    expect(want);
    send_str("cmd=get_my_kvsname\n");
    const char *line = reply();
    CHECK(strncmp(line, "cmd=my_kvsname kvsname=", 23) == 0);
    char kvs[300];
    snprintf(kvs, sizeof kvs, "%s", line + 23);
    CHECK(kvs[0] != '\0' && !strchr(kvs, ' '));

    /* bad requests get an error reply, never silence */
    send_str("cmd=frobnicate foo=bar\n");
    expect_error("unknown command");
    send_str("this is not a request\n");
    expect_error("malformed request");
    static char longline[6000];
    memset(longline, 'x', sizeof longline);
    memcpy(longline, "cmd=put kvsname=", 16);
    longline[sizeof longline - 1] = '\n';
    send_raw(longline, sizeof longline);
    expect_error("over-long line");
    send_str("mcmd=spawn\nnprocs=1\nexecname=/bin/true\nendcmd\n"); /* multi-line, unsupported */
    expect_error("spawn");
    send_str("cmd=get_appnum\n"); /* the connection survived all that */
    expect("cmd=appnum appnum=0");
    snprintf(req, sizeof req, "cmd=put kvsname=not-%s key=k value=v\n", kvs);
    send_str(req);
    expect_error("put to a foreign kvsname");
    snprintf(req, sizeof req, "cmd=get kvsname=%s key=never-put\n", kvs);
    send_str(req);
    line = reply();
    CHECK_MSG(strncmp(line, "cmd=get_result ", 15) == 0 && atoi(field(line, "rc")) != 0 &&
                  *field(line, "msg"),
              "get of an unknown key: '%s'", line);

    /* the launcher publishes the process mapping, as Hydra does (one node) */
    snprintf(req, sizeof req, "cmd=get kvsname=%s key=PMI_process_mapping\n", kvs);
    send_str(req);
    snprintf(want, sizeof want, "cmd=get_result rc=0 msg=success value=(vector,(0,1,%d))", size);
    expect(want);
    snprintf(req, sizeof req, "cmd=put kvsname=%s key=PMI_process_mapping value=x\n", kvs);
    send_str(req);
    expect_error("put over the launcher's key");

    /* put, barrier, get across ranks */
    snprintf(req, sizeof req, "cmd=put kvsname=%s key=wire-%d value=v%d-%s\n", kvs, rank, rank * 31,
             "x");
    send_str(req);
    expect("cmd=put_result rc=0 msg=success");
    send_str("cmd=barrier_in\n");
    expect("cmd=barrier_out");
    for (int r = 0; r < size; r++) {
        snprintf(req, sizeof req, "cmd=get kvsname=%s key=wire-%d\n", kvs, r);
        send_str(req);
        snprintf(want, sizeof want, "cmd=get_result rc=0 msg=success value=v%d-x", r * 31);
        expect(want);
    }
    /* keys are unique per job: another rank's key cannot be overwritten */
    snprintf(req, sizeof req, "cmd=put kvsname=%s key=wire-%d value=mine\n", kvs,
             (rank + 1) % size);
    send_str(req);
    expect_error("put of another rank's key");
    send_str("cmd=barrier_in\n");
    expect("cmd=barrier_out");
    send_str("cmd=finalize\n");
    expect("cmd=finalize_ack");
    t_done("boot_pmi_wire");
    return 0;
}
