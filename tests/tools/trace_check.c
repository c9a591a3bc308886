/* trace_check FILE NAME...: FILE is one well-formed JSON document (a small
 * recursive-descent parser checks the whole grammar) whose traceEvents
 * include an event named each NAME; prints how many events each had.
 * Exit 0 only when all hold. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *p;

static void ws(void)
{
    while (*p && isspace((unsigned char)*p)) p++;
}

static int value(void);

static int string(void)
{
    if (*p != '"') return 0;
    for (p++; *p && *p != '"'; p++) {
        if ((unsigned char)*p < 0x20) return 0;
        if (*p == '\\') {
            p++;
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!isxdigit((unsigned char)p[i])) return 0;
                p += 4;
            } else if (!strchr("\"\\/bfnrt", *p) || !*p) {
                return 0;
            }
        }
    }
    if (*p != '"') return 0;
    p++;
    return 1;
}

static int number(void)
{
    const char *s = p;
    if (*p == '-') p++;
    if (!isdigit((unsigned char)*p)) return 0;
    while (isdigit((unsigned char)*p)) p++;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p)) return 0;
        while (isdigit((unsigned char)*p)) p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (!isdigit((unsigned char)*p)) return 0;
        while (isdigit((unsigned char)*p)) p++;
    }
    return p > s;
}

static int members(char close, int object)
{
    p++;
    ws();
    if (*p == close) {
        p++;
        return 1;
    }
    for (;;) {
        ws();
        if (object) {
            if (!string()) return 0;
            ws();
            if (*p++ != ':') return 0;
        }
        if (!value()) return 0;
        ws();
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == close) {
            p++;
            return 1;
        }
        return 0;
    }
}

static int value(void)
{
    ws();
    switch (*p) {
    case '{': return members('}', 1);
    case '[': return members(']', 0);
    case '"': return string();
    case 't': return strncmp(p, "true", 4) ? 0 : (p += 4, 1);
    case 'f': return strncmp(p, "false", 5) ? 0 : (p += 5, 1);
    case 'n': return strncmp(p, "null", 4) ? 0 : (p += 4, 1);
    default: return number();
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *text = malloc((size_t)n + 1);
    if (!text || fread(text, 1, (size_t)n, f) != (size_t)n) return 1;
    fclose(f);
    text[n] = '\0';
    p = text;
    if (!value() || (ws(), *p)) {
        fprintf(stderr, "trace_check: %s is not valid JSON (at byte %ld)\n", argv[1],
                (long)(p - text));
        return 1;
    }
    if (!strstr(text, "\"traceEvents\":[")) {
        fprintf(stderr, "trace_check: no traceEvents\n");
        return 1;
    }
    int bad = 0;
    for (int i = 2; i < argc; i++) {
        char key[256];
        snprintf(key, sizeof key, "\"name\":\"%s\"", argv[i]);
        long count = 0;
        for (const char *q = text; (q = strstr(q, key)); q += strlen(key)) count++;
        printf("%-24s %ld\n", argv[i], count);
        if (!count) bad = 1;
    }
    free(text);
    return bad;
}
