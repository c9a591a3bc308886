# Draw Figs. 1, 4 and 5 of paper 000 from the sweep CSVs.
# Usage (from the repository root):
#   gnuplot -e "dir='sim/results/flit'; sfx=''" sim/results/plot.gp
#   gnuplot -e "dir='sim/results/flit'; sfx='_1056'" sim/results/plot.gp
# Reads <dir>/fig1<sfx>.csv, fig4<sfx>.csv, fig5<sfx>.csv when present and
# writes <dir>/fig1<sfx>.png, fig4<sfx>.png, fig5<sfx>.png.
# Points are the mean over random pairings (seeds); bars span min..max.

if (!exists("dir")) dir = 'sim/results/flit'
if (!exists("sfx")) sfx = ''
set datafile separator ","
set terminal pngcairo noenhanced size 900,600 font ",11"
set grid
set termoption noenhanced
set yrange [0:0.7]
set ylabel "normalized average throughput"
sel(cond, f) = sprintf("< awk -F, 'NR>1 && %s' %s", cond, f)

has(f) = system("test -f ".f." && test $(wc -l < ".f.") -gt 1 && echo y") eq "y"
f1 = dir.'/fig1'.sfx.'.csv'
if (has(f1)) {
    set output dir.'/fig1'.sfx.'.png'
    set title "Fig. 1: slow nodes vs throughput (".dir.sfx.")"
    set xlabel "slow nodes [%]"
    set key bottom left
    plot sel('$1==2', f1) using 0:3:4:5:xtic(2) with yerrorlines lw 2 title "2x slower", \
         sel('$1==8', f1) using 0:3:4:5:xtic(2) with yerrorlines lw 2 title "8x slower"
}

f4 = dir.'/fig4'.sfx.'.csv'
if (has(f4)) {
    set output dir.'/fig4'.sfx.'.png'
    set terminal pngcairo noenhanced size 1500,500 font ",11"
    set multiplot layout 1,3 title "Fig. 4: FECN/BECN (".dir.sfx.")"
    set xlabel "slow nodes [%]"
    set key bottom left
    do for [k in "2 4 8"] {
        set title k."x slower receivers"
        plot sel('$1=='.k.' && $2=="baseline"', f4) using 0:4:5:6:xtic(3) with yerrorlines lw 2 title "baseline", \
             sel('$1=='.k.' && $2=="fecn_default"', f4) using 0:4:5:6:xtic(3) with yerrorlines lw 2 title "FECN/BECN default", \
             sel('$1=='.k.' && $2=="fecn_aggressive"', f4) using 0:4:5:6:xtic(3) with yerrorlines lw 2 title "FECN/BECN aggressive"
    }
    unset multiplot
    set terminal pngcairo noenhanced size 900,600 font ",11"
}

f5 = dir.'/fig5'.sfx.'.csv'
if (has(f5)) {
    set output dir.'/fig5'.sfx.'.png'
    set title "Fig. 5: RDRP, 1% slow nodes (".dir.sfx.")"
    set xlabel "parallel transfers (outstanding packets per node)"
    set logscale x 2
    set key bottom right
    plot sel('$1==2', f5) using 2:3:4:5 with yerrorlines lw 2 title "2x slower", \
         sel('$1==4', f5) using 2:3:4:5 with yerrorlines lw 2 title "4x slower", \
         sel('$1==8', f5) using 2:3:4:5 with yerrorlines lw 2 title "8x slower"
    unset logscale x
}
