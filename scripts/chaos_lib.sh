# Helpers of scripts/chaos.sh and scripts/chaos_launcher.sh (sourced).

now_ms() { date +%s%3N; }
# A random number in [0, $1) (awk's rand seeded from /dev/urandom), and an
# integer one.
rnd() { awk -v m="$1" -v s="$(od -An -N4 -tu4 /dev/urandom)" 'BEGIN { srand(s); printf "%.3f", rand() * m }'; }
rndint() { awk -v m="$1" -v s="$(od -An -N4 -tu4 /dev/urandom)" 'BEGIN { srand(s); printf "%d", int(rand() * m) }'; }
# The job key in the environment of pid $1 (empty if it is gone).
jobkey_of() { tr '\0' '\n' <"/proc/$1/environ" 2>/dev/null | sed -n 's/^SLUICE_JOBKEY=//p'; }
# What a job of key $1 with temporary directory $2 left behind: its
# /dev/shm segments (printed, then removed) and the directory's entries.
leftovers_of() {
    left=""
    [ -n "$1" ] && left=$(ls /dev/shm 2>/dev/null | grep -- "sluice-$1-")
    [ -n "$(ls -A "$2")" ] && left="$left $(ls -A "$2")"
    [ -n "$1" ] && for f in /dev/shm/sluice-"$1"-*; do [ -e "$f" ] && rm -f "$f"; done
    echo $left
}
