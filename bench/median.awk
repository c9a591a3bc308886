# median(a, k): the median of a[1..k] (sorts a in place).  Spliced in front
# of the awk programs of the comparison scripts (latency_ab.sh,
# osu_compare.sh, coll_compare.sh), which take medians over alternated rounds.
function median(a, k,   i, j, t) {
    for (i = 2; i <= k; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
