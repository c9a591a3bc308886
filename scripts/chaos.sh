#!/bin/sh
# Chaos (issue 26, docs/RELIABILITY.md): RUNS times, start a job of
# tests/hardening/chaos_prog (floods of every size, rendezvous transfers,
# blocking and non-blocking collectives) under sluicerun, SIGKILL one random
# rank (by pid) at a random moment, and check that
#   - the job ends within 5 s of the kill (else: a hang; the job is then
#     torn down by this script, by pid),
#   - with a non-zero exit status,
#   - sluicerun's message names the killed rank and pid,
#   - no /dev/shm segment of the job and no temporary file is left.
# A small share of the kills hit the job while it starts (before every rank
# reported itself), the rest while it runs.
# usage: scripts/chaos.sh [RUNS (200)]
# environment: SLUICERUN, CHAOS_PROG (default: build/bin/sluicerun,
#   build/tests/chaos_prog), CHAOS_RANKS (4), CHAOS_MAX_DELAY (1.5 s after the
#   job runs), CHAOS_KILLS (1: ranks killed per run once it runs, all by
#   one kill(1) call, so they die together; a kill while starting is always
#   one),
#   CHAOS_VERBOSE=1 (print every run).
# Exit status 0 when every run ended cleanly.
runs=${1:-200}
here=$(cd "$(dirname "$0")/.." && pwd)
run=${SLUICERUN:-$here/build/bin/sluicerun}
prog=${CHAOS_PROG:-$here/build/tests/chaos_prog}
nranks=${CHAOS_RANKS:-4}
maxdelay=${CHAOS_MAX_DELAY:-1.5}
nkills=${CHAOS_KILLS:-1}
[ "$nkills" -ge 1 ] && [ "$nkills" -le "$nranks" ] || { echo "chaos: CHAOS_KILLS must be 1..$nranks" >&2; exit 2; }
[ -x "$run" ] || { echo "chaos: no sluicerun at $run" >&2; exit 2; }
[ -x "$prog" ] || { echo "chaos: no chaos_prog at $prog" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sluice-chaos.XXXXXX") || exit 1
jobpid=""
cleanup() {
    [ -n "$jobpid" ] && kill -KILL "$jobpid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

. "$here/scripts/chaos_lib.sh"
# Children of a process (the ranks of the sluicerun we started).
children() { cat /proc/"$1"/task/*/children 2>/dev/null; }
# $2 distinct random numbers in [0, $1), space separated.
rnddistinct() {
    awk -v m="$1" -v k="$2" -v s="$(od -An -N4 -tu4 /dev/urandom)" 'BEGIN {
        srand(s); for (i = 0; i < m; i++) a[i] = i
        for (i = 0; i < k; i++) { j = i + int(rand() * (m - i)); t = a[i]; a[i] = a[j]; a[j] = t; printf "%d ", a[i] } }'
}

clean=0 hangs=0 leftovers=0 bad=0 longest=0 early=0
i=0
while [ $i -lt "$runs" ]; do
    i=$((i + 1))
    jt="$tmp/job$i"
    mkdir "$jt"
    : >"$tmp/out"
    # The job's own temporary directory: anything left in it is a leftover.
    TMPDIR=$jt "$run" -n "$nranks" --bind-to none --timeout 120 "$prog" >"$tmp/out" 2>&1 &
    jobpid=$!
    victim=$(rndint "$nranks")
    mode=run
    [ "$(rndint 10)" -eq 0 ] && mode=early
    vpid="" key="" why=""
    if [ $mode = early ]; then
        # Kill while the job starts: as soon as the victim exists, after a
        # random 0-0.2 s. Which child is which rank: the launcher's message
        # (checked below) says; take the victim-th child in pid order.
        t=0
        while :; do
            set -- $(children "$jobpid" | tr ' ' '\n' | sort -n)
            [ $# -eq "$nranks" ] && break
            t=$((t + 1)); [ $t -gt 500 ] && break
            sleep 0.01
        done
        shift "$victim" 2>/dev/null
        vpid=${1:-}
        sleep "$(rnd 0.2)"
    else
        t=0
        while [ "$(grep -c '^chaos rank' "$tmp/out")" -lt "$nranks" ]; do
            t=$((t + 1))
            if [ $t -gt 600 ] || ! kill -0 "$jobpid" 2>/dev/null; then why="did not start"; break; fi
            sleep 0.05
        done
        vpid=$(sed -n "s/^chaos rank $victim pid \([0-9]*\)$/\1/p" "$tmp/out")
        [ -z "$why" ] && sleep "$(rnd "$maxdelay")"
    fi
    [ -n "$vpid" ] && key=$(jobkey_of "$vpid")
    others=""
    if [ $mode = run ] && [ "$nkills" -gt 1 ] && [ -z "$why" ]; then
        for v in $(rnddistinct "$nranks" "$nkills"); do
            [ "$v" = "$victim" ] && continue
            p=$(sed -n "s/^chaos rank $v pid \([0-9]*\)$/\1/p" "$tmp/out")
            [ -n "$p" ] && others="$others $p"
        done
        set -- $others
        while [ $# -ge "$nkills" ]; do shift; done # one victim is $victim
        others="$*"
    fi
    if [ -z "$why" ] && [ -n "$vpid" ] && kill -KILL "$vpid" $others 2>/dev/null; then
        t0=$(now_ms)
        if [ -z "$key" ]; then
            for p in $(children "$jobpid"); do
                key=$(jobkey_of "$p")
                [ -n "$key" ] && break
            done
        fi
        # Wait up to 5 s for the job to end.
        while kill -0 "$jobpid" 2>/dev/null && [ $(($(now_ms) - t0)) -lt 5000 ]; do sleep 0.02; done
        if kill -0 "$jobpid" 2>/dev/null; then
            hangs=$((hangs + 1)); why="hang: the job did not end within 5 s of the kill"
            ranks=$(children "$jobpid")
            kill -TERM "$jobpid" 2>/dev/null
            sleep 5
            for p in $ranks; do kill -KILL "$p" 2>/dev/null; done
            kill -KILL "$jobpid" 2>/dev/null
        fi
        wait "$jobpid"; rc=$?
        dt=$(($(now_ms) - t0))
        [ -z "$why" ] && [ $dt -gt "$longest" ] && longest=$dt
    else
        [ -z "$why" ] && why="no victim pid (rank $victim) or it was gone before the kill"
        kill -KILL "$jobpid" 2>/dev/null
        wait "$jobpid"; rc=$?
    fi
    jobpid=""
    [ $mode = early ] && early=$((early + 1))
    if [ -z "$why" ]; then
        if [ "$rc" -eq 0 ]; then
            why="exit status 0"
        elif ! grep -q "^sluicerun: rank $victim (pid $vpid) killed by signal 9" "$tmp/out" &&
             ! { [ $mode = early ] && grep -q "^sluicerun: rank [0-9]* (pid $vpid) killed by signal 9" "$tmp/out"; }; then
            named=""
            for p in $others; do
                grep -q "^sluicerun: rank [0-9]* (pid $p) killed by signal 9" "$tmp/out" && named=$p
            done
            [ -z "$named" ] && why="sluicerun did not name a killed rank ($victim, pid $vpid${others:+, and pids $others})"
        fi
    fi
    left=$(leftovers_of "$key" "$jt")
    if [ -n "$left" ]; then
        leftovers=$((leftovers + 1))
        why="${why:+$why; }left behind: $left"
    fi
    rm -rf "$jt"
    if [ -z "$why" ]; then
        clean=$((clean + 1))
        [ "${CHAOS_VERBOSE:-0}" = 1 ] && echo "run $i: $mode kill of rank $victim${others:+ and pids $others}, exit $rc, ended in ${dt} ms, job key ${key:-unknown}"
    else
        bad=$((bad + 1))
        echo "run $i: $mode kill of rank $victim (pid $vpid): $why (exit $rc)"
        sed 's/^/    /' "$tmp/out" | grep -v '^    chaos rank' | head -20
    fi
done
echo "chaos: $runs runs ($early while starting, $nkills kill(s) per running job), $clean clean ends, longest kill-to-end ${longest} ms, $hangs hangs, $leftovers with leftovers, $bad failed"
[ $bad -eq 0 ]
