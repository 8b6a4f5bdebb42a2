# plots/compare.gp: the change of each headline metric from BASE to NEW in
# percent, one horizontal bar each: green better, red worse, grey not
# significant after the correction over compare.md's comparisons (or cannot
# tell); the value stands right of the bar (of zero for a decrease).  The
# generated instance sets plotsdir, base, chart_title, width, height and the
# ranges, then loads this file.
# Data columns: y change colour-index "label" "value label"
set style fill solid 0.8 noborder
set linetype 1 lc rgb "#1a9850"
set linetype 2 lc rgb "#d73027"
set linetype 3 lc rgb "#b0b0b0"
set grid xtics lc rgb "#dddddd" lt 1
set border 1 lc rgb "#404040"
set xtics nomirror format "%+g%%"
set xzeroaxis lt 1 lc rgb "#404040"
set xlabel "change of the figure from base to new (%)"
set title chart_title . "\ngreen: better, red: worse, grey: not significant (95%, corrected) or cannot tell" font ",11"
unset key
do for [ext in "png svg"] {
    load plotsdir . "/common.gp"
    plot "compare.dat" using (0):1:(0):2:($1 - 0.35):($1 + 0.35):3:ytic(4) with boxxyerror lc variable notitle, \
         "" using ($2 >= 0 ? $2 : 0):1:5 with labels left offset 0.5, 0 font ",8" notitle
    unset output
}
