#!/bin/sh
# Paper 001 §7.1 (Figs. 16-17; §5.3 Figs. 4-7): the overhead of credit flow
# control against unlimited receive buffers, for the all-to-all and the
# multi-ping-pong of bench/mpi_fc.c (BYTES, default 2 KiB as in the paper),
# as a function of the mailbox slots per sender, at several job sizes.
# Each run sets SLUICE_MAILBOX_SLOTS = slots per sender x (P - 1): the whole
# ring, data and credit regions (the paper's static+dynamic mailbox).  The
# wire refuses a mailbox below Eq. 2's minimum 2 x SLUICE_CREDIT_SLOTS x
# (P - 1) (credit_slots 2: 4 slots per sender); those rows print n/a.
# "unl" is the reference: UNLIMITED slots per sender (default 512, 32 KiB
# per sender: a 2 KiB message takes 34 slots, and neither pattern has more
# than two in flight per pair), where credits never run out (the stall
# column says whether they did).  "auto" is the default mailbox
# (SLUICE_MAILBOX_SLOTS unset: 256 + credit_slots per sender, at least
# 32,768 slots).  overhead = median over rounds of time / time(unl) - 1,
# against the unlimited run of the same round and flow control.
#
# Columns per flow control (SLUICE_FLOWCTL=static, =dynamic: the same total
# mailbox).  A build whose sluice_info does not list SLUICE_FLOWCTL ignores
# it (the header says so): then both columns run the static scheme, and
# their difference is the noise of the machine.
#
# Short MPI messages (<= SLUICE_SHORT_MAX, default 8 KiB) to a process of
# the same host do not use the wire's mailbox: they go through p2p's
# per-pair short-message ring in the receiver's shared heap (docs/P2P.md,
# "The short path").  SHORT="0 default": 0 runs with SLUICE_SHORT_MAX=0
# (short path off: every message is a Portals eager put through the
# mailbox), default leaves it on (the mailbox then carries almost nothing
# of these patterns).
#
# stall % = messages the wire parked for lack of credits / messages sent,
# over all ranks (SLUICE_STATS counters, warm-up included).
#
# usage: [NP="16 64 128"] [SLOTS="1 2 4 8 16 32 64"] [UNLIMITED=512]
#        [FLOWCTLS="static dynamic"] [SHORT="0 default"]
#        [PATTERNS="alltoall mpingpong"] [BYTES=2048] [ITERS=n] [TIMEOUT=300]
#        [KEEP=file] sh bench/fc_overhead.sh [ROUNDS (3)] [BUILD_DIR (build)]
# smoke: NP=4 SLOTS="2 4" SHORT=0 ITERS=20 sh bench/fc_overhead.sh 1 build
set -u
median_awk=$(cat "$(dirname "$0")/median.awk")
rounds=${1:-3}
build=${2:-build}
nps=${NP:-16 64 128}
slots=${SLOTS:-1 2 4 8 16 32 64}
unl=${UNLIMITED:-512}
fcs=${FLOWCTLS:-static dynamic}
shorts=${SHORT:-0 default}
patterns=${PATTERNS:-alltoall mpingpong}
bytes=${BYTES:-2048}
limit=${TIMEOUT:-300}
cs=${SLUICE_CREDIT_SLOTS:-2}
src=$(dirname "$0")/mpi_fc.c
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] && cp "$tmp/all" "$KEEP"; rm -rf "$tmp"' EXIT
"$build/bin/mpicc" -O2 -o "$tmp/fc" "$src" || exit 1
unset SLUICE_MAILBOX_SLOTS SLUICE_FLOWCTL SLUICE_SHORT_MAX
{
    echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null), $(nproc) CPUs, unbound, $rounds alternated round(s), $bytes-byte messages, credit_slots $cs"
    if "$build/bin/sluice_info" --settings 2>/dev/null | grep -q SLUICE_FLOWCTL; then
        echo "# SLUICE_FLOWCTL is a setting of this build"
    else
        echo "# SLUICE_FLOWCTL is NOT a setting of this build (sluice_info --settings): static and dynamic columns run the same static wire"
    fi
} > "$tmp/head"
cat "$tmp/head" >&2
for r in $(seq "$rounds"); do
    for np in $nps; do
        min=$((2 * cs * (np - 1)))
        for sh in $shorts; do
            for pat in $patterns; do
                for s in $slots unl auto; do
                    case $s in
                    unl) total=$((unl * (np - 1))) ;;
                    auto) total="" ;;
                    *) total=$((s * (np - 1)))
                       if [ "$total" -lt "$min" ]; then
                           for fc in $fcs; do echo "$r $np $sh $pat $s $fc na"; done
                           continue
                       fi ;;
                    esac
                    for fc in $fcs; do
                        t0=$(date +%s)
                        env ${total:+SLUICE_MAILBOX_SLOTS=$total} SLUICE_FLOWCTL="$fc" \
                            $( [ "$sh" = default ] || echo SLUICE_SHORT_MAX="$sh" ) SLUICE_STATS=1 \
                            timeout -k 10 "$limit" "$build/bin/mpirun" -n "$np" --bind-to none \
                            "$tmp/fc" "$pat" "$bytes" ${ITERS:-} > "$tmp/out" 2> "$tmp/err"
                        rc=$?
                        echo "# round $r np $np short $sh $pat slots $s ($total) $fc: exit $rc, $(( $(date +%s) - t0 )) s" >&2
                        if [ "$rc" -ne 0 ]; then
                            why=fail
                            [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && why=timeout
                            echo "$r $np $sh $pat $s $fc $why"
                            grep -v "stats" "$tmp/err" | tail -n 3 | sed 's/^/#   /' >&2
                            continue
                        fi
                        us=$(awk '{print $3}' "$tmp/out")
                        awk -v pre="$r $np $sh $pat $s $fc $us" '
                            / wire stats:/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "msgs_tx") m += kv[2]; if (kv[1] == "stalled_msgs") st += kv[2] } }
                            END { print pre, m ? 100 * st / m : 0 }' "$tmp/err"
                    done
                done
            done
        done
    done
done > "$tmp/all"
cat "$tmp/head"
awk -v nps="$nps" -v slots="$slots unl auto" -v fcs="$fcs" -v shorts="$shorts" -v patterns="$patterns" \
    -v unl="$unl" -v cs="$cs" "$median_awk"'
{ if ($1 > R) R = $1 }
NF == 7 { bad[$2, $3, $4, $5, $6] = $7; next }
NF == 8 { t[$2, $3, $4, $5, $6, $1] = $7; st[$2, $3, $4, $5, $6, $1] = $8 }
function med(arr, key,   q, r, a) {
    q = 0
    for (r = 1; r <= R; r++) if ((key, r) in arr) a[++q] = arr[key, r]
    return q ? median(a, q) : ""
}
END {
    k = split(nps, np, " "); ns = split(slots, sl, " "); nf = split(fcs, fc, " ")
    nsh = split(shorts, shs, " "); npat = split(patterns, pats, " ")
    for (i = 1; i <= k; i++) for (h = 1; h <= nsh; h++) for (p = 1; p <= npat; p++) {
        P = np[i]
        printf "\n# %d ranks, %s, SLUICE_SHORT_MAX=%s: us per %s; overhead vs unlimited (%d slots/sender); stall %%\n",
            P, pats[p], shs[h] == "default" ? "default (8192: short path on)" : shs[h] " (short path off, mailbox)",
            pats[p] == "alltoall" ? "all-to-all" : "round trip", unl
        printf "%9s %9s %9s", "slots/snd", "mailbox", "KiB/rank"
        for (f = 1; f <= nf; f++) printf " %10s %9s %7s", fc[f] " us", "overhead", "stall%"
        printf "\n"
        for (j = 1; j <= ns; j++) {
            s = sl[j]
            tot = s == "unl" ? unl * (P - 1) : s == "auto" ? ((256 + cs) * (P - 1) > 32768 ? (256 + cs) * (P - 1) : 32768) : s * (P - 1)
            printf "%9s %9d %9.0f", s, tot, tot * 64 / 1024
            for (f = 1; f <= nf; f++) {
                key = P SUBSEP shs[h] SUBSEP pats[p] SUBSEP s SUBSEP fc[f]
                ref = P SUBSEP shs[h] SUBSEP pats[p] SUBSEP "unl" SUBSEP fc[f]
                if (key in bad) { printf " %10s %9s %7s", bad[key], "", ""; continue }
                q = 0; delete a
                for (r = 1; r <= R; r++) if ((key, r) in t && (ref, r) in t && t[ref, r] > 0) a[++q] = t[key, r] / t[ref, r] - 1
                us = med(t, key); sp = med(st, key)
                printf " %10s %9s %7s", us == "" ? "-" : sprintf("%.1f", us),
                    q ? sprintf("%+.1f%%", 100 * median(a, q)) : "-", sp == "" ? "-" : sprintf("%.1f", sp)
            }
            printf "\n"
        }
    }
}' "$tmp/all"
