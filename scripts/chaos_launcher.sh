#!/bin/sh
# Chaos rows beside scripts/chaos.sh (issue 26, docs/RELIABILITY.md), on a
# 4-rank job of tests/hardening/chaos_prog in its MPI_Allreduce loop:
#   launcher  SIGKILL of sluicerun itself at a random moment of the loop:
#             every rank must be gone within 5 s (PR_SET_PDEATHSIG) and
#             nothing of the job left in /dev/shm or in its TMPDIR;
#   startup   SIGKILL of sluicerun as soon as the job's first segment
#             exists, while the ranks start (the segments keep their names
#             until every rank has mapped every one): every rank must be gone
#             within 5 s, and what the job left in /dev/shm must be gone
#             after the next job (its rank 0 removes segments whose creator
#             has died); prints how many runs left segments at the kill;
#   stop      SIGSTOP of a random rank: the others wait for it (nothing
#             fails, nothing is lost), and the job's --timeout (TIMEOUT s)
#             ends it: exit status 124, sluicerun's "ran longer than
#             --timeout" message, every rank gone within 7 s of the
#             deadline (slack for a loaded machine), nothing left behind.
#             The grace period is 10 s: the stopped rank must end on the
#             SIGTERM (sluicerun sends SIGCONT after it), not on the SIGKILL
#             that follows the grace.
# usage: scripts/chaos_launcher.sh launcher|startup|stop [RUNS (20)]
# environment: SLUICERUN, CHAOS_PROG (default build/bin/sluicerun,
#   build/tests/chaos_prog), CHAOS_RANKS (4), CHAOS_TIMEOUT (5, stop only),
#   CHAOS_VERBOSE=1.
# Prints one line per run (verbose) and a summary: runs, clean ends, the
# longest time from the kill (launcher) or the --timeout deadline (stop)
# to the job's end, hangs, leftovers.  Exit status 0 when every run was clean.
row=${1:?usage: chaos_launcher.sh launcher|stop [RUNS]}
runs=${2:-20}
here=$(cd "$(dirname "$0")/.." && pwd)
run=${SLUICERUN:-$here/build/bin/sluicerun}
prog=${CHAOS_PROG:-$here/build/tests/chaos_prog}
nranks=${CHAOS_RANKS:-4}
tmo=${CHAOS_TIMEOUT:-5}
case $row in launcher | startup | stop) ;; *) echo "chaos_launcher: row launcher, startup or stop" >&2; exit 2 ;; esac
[ -x "$run" ] && [ -x "$prog" ] || { echo "chaos_launcher: no $run or $prog" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/chaos-launcher.XXXXXX") || exit 1
jobpid="" pids=""
cleanup() { # only what this script started, by pid
    [ -n "$jobpid" ] && kill -KILL "$jobpid" 2>/dev/null
    for p in $pids; do kill -KILL "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

. "$here/scripts/chaos_lib.sh"
# Is pid $1 still a live process (a zombie has ended)?
alive() { [ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null; }
any_alive() { for p in $pids; do alive "$p" && return 0; done; return 1; }
# The processes whose parent is $1 (by pid, from /proc).
children_of() { awk -v p="$1" '$4 == p { print $1 }' /proc/[0-9]*/stat 2>/dev/null; }
# Is a process of job key $1 still running (zombies do not count)?  Ranks
# that had not yet been forked when the launcher was killed are found so.
key_alive() {
    for e in /proc/[0-9]*/environ; do
        { tr '\0' '\n' <"$e"; } 2>/dev/null | grep -qx "SLUICE_JOBKEY=$1" || continue
        p=${e#/proc/}; alive "${p%/environ}" && return 0
    done
    return 1
}

clean=0 bad=0 hangs=0 leftovers=0 longest=0 at_kill=0
i=0
while [ $i -lt "$runs" ]; do
    i=$((i + 1))
    jt="$tmp/job$i"
    mkdir "$jt"
    : >"$tmp/out"
    t_launch=$(now_ms)
    if [ "$row" = stop ]; then
        TMPDIR=$jt "$run" -n "$nranks" --bind-to none --timeout "$tmo" --grace 10 "$prog" -1 allreduce \
            >"$tmp/out" 2>&1 &
    else
        TMPDIR=$jt "$run" -n "$nranks" --bind-to none --timeout 120 "$prog" -1 allreduce \
            >"$tmp/out" 2>&1 &
    fi
    jobpid=$!
    why="" t=0 key="" victim=- vpid=-
    if [ "$row" = startup ]; then
        # the moment the job's first segment is linked (a random moment
        # hits that window, a few milliseconds, too rarely), or at once
        # if the ranks are through MPI_Init before it is seen
        t=0
        while [ $t -lt 1500 ] && ! grep -q '^chaos rank' "$tmp/out"; do
            if [ -z "$key" ]; then
                pids=$(children_of "$jobpid")
                for p in $pids; do
                    key=$(jobkey_of "$p")
                    [ -n "$key" ] && break
                done
            fi
            [ -n "$key" ] && ls /dev/shm 2>/dev/null | grep -q -- "sluice-$key-" && break
            t=$((t + 1))
            sleep 0.002
        done
        kill -KILL "$jobpid"
        t0=$(now_ms)
        gone() { ! any_alive && { [ -z "$key" ] || ! key_alive "$key"; }; }
        while ! gone && [ $(($(now_ms) - t0)) -lt 5000 ]; do sleep 0.02; done
        dt=$(($(now_ms) - t0))
        if ! gone; then hangs=$((hangs + 1)); why="ranks alive 5 s after sluicerun was killed"; fi
        wait "$jobpid" 2>/dev/null
        jobpid=""
        [ -n "$key" ] && ls /dev/shm 2>/dev/null | grep -q -- "sluice-$key-" && at_kill=$((at_kill + 1))
        # the next job's rank 0 removes what the killed one left
        "$run" -n 2 --bind-to none --timeout 60 "$prog" 2 allreduce >"$tmp/next" 2>&1 ||
            why="${why:+$why; }the next job failed: $(tail -n 2 "$tmp/next")"
        left=$(leftovers_of "$key" "$jt")
        if [ -n "$left" ]; then
            leftovers=$((leftovers + 1))
            why="${why:+$why; }left behind after the next job: $left"
        fi
        for p in $pids; do kill -KILL "$p" 2>/dev/null; done
        pids=""
        if [ -z "$why" ]; then
            clean=$((clean + 1))
            [ "$dt" -gt "$longest" ] && longest=$dt
        else
            bad=$((bad + 1))
            echo "run $i (startup): $why"
        fi
        continue
    fi
    while [ "$(grep -c '^chaos rank' "$tmp/out")" -lt "$nranks" ]; do
        t=$((t + 1))
        if [ $t -gt 600 ] || ! kill -0 "$jobpid" 2>/dev/null; then why="did not start"; break; fi
        sleep 0.05
    done
    pids=$(sed -n 's/^chaos rank [0-9]* pid \([0-9]*\)$/\1/p' "$tmp/out")
    key=""
    for p in $pids; do
        key=$(jobkey_of "$p")
        [ -n "$key" ] && break
    done
    victim=$(rndint "$nranks")
    vpid=$(sed -n "s/^chaos rank $victim pid \([0-9]*\)$/\1/p" "$tmp/out")
    rc="" dt=0
    if [ -z "$why" ] && [ "$row" = launcher ]; then
        sleep "$(rnd 1)"
        kill -KILL "$jobpid"
        t0=$(now_ms)
        while any_alive && [ $(($(now_ms) - t0)) -lt 5000 ]; do sleep 0.02; done
        dt=$(($(now_ms) - t0))
        if any_alive; then hangs=$((hangs + 1)); why="ranks alive 5 s after sluicerun was killed"; fi
        wait "$jobpid" 2>/dev/null
    elif [ -z "$why" ]; then
        sleep "$(rnd 0.5)"
        kill -STOP "$vpid"
        deadline=$((t_launch + tmo * 1000))
        while kill -0 "$jobpid" 2>/dev/null && [ $(($(now_ms) - deadline)) -lt 7000 ]; do sleep 0.02; done
        if kill -0 "$jobpid" 2>/dev/null; then
            hangs=$((hangs + 1)); why="the job did not end within 7 s of its --timeout deadline"
        fi
        wait "$jobpid"; rc=$?
        dt=$(($(now_ms) - deadline))
        [ -z "$why" ] && [ "$rc" -ne 124 ] && why="exit status $rc, not 124"
        [ -z "$why" ] && ! grep -q '^sluicerun: the job ran longer than --timeout' "$tmp/out" &&
            why="no --timeout message"
        [ -z "$why" ] && any_alive && why="a rank outlived sluicerun"
    fi
    jobpid=""
    [ -z "$why" ] && [ "$dt" -gt "$longest" ] && longest=$dt
    [ -z "$key" ] && [ -z "$why" ] && why="no job key found"
    left=$(leftovers_of "$key" "$jt")
    if [ -n "$left" ]; then
        leftovers=$((leftovers + 1))
        why="${why:+$why; }left behind: $left"
    fi
    for p in $pids; do kill -KILL "$p" 2>/dev/null; done # a hang's survivors (ours, by pid)
    pids=""
    if [ -z "$why" ]; then
        clean=$((clean + 1))
        [ "${CHAOS_VERBOSE:-0}" = 1 ] && echo "run $i: $row (rank $victim): ended ${dt} ms after the kill or deadline"
    else
        bad=$((bad + 1))
        echo "run $i ($row, rank $victim pid $vpid): $why"
        sed 's/^/    /' "$tmp/out" | tail -n 8
    fi
done
if [ "$row" = stop ]; then what="--timeout deadline to the job's end"; else what="kill of sluicerun to the last rank's end"; fi
extra=""
[ "$row" = startup ] && extra=" ($at_kill left segments at the kill, removed by the next job)"
echo "chaos_launcher $row: $runs runs, $clean clean, longest $what ${longest} ms, $hangs hangs, $leftovers leftovers$extra"
[ "$bad" -eq 0 ]
