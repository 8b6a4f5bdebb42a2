# plots/budget.gp: the time budget of one phase, a stacked bar per host and
# variant of where all CPUs' time went (in % of it), the device's busy time
# (% of the wall time) as a diamond.  The generated instance sets: plotsdir,
# base, datafile, chart_title, width, height, part_names, part_colors, then
# loads this file.
# Data columns: "variant\nverdict" then one column per part (as
# part_names), then device_busy_pct (NaN: no device).
set style data histogram
set style histogram rowstacked
set style fill solid 0.9 border rgb "#404040"
set boxwidth 0.6
set grid ytics lc rgb "#d8d8d8" lt 1
set border 3 lc rgb "#404040"
set xtics nomirror scale 0 font ",9"
set ytics nomirror
set yrange [0:105]
set ylabel "% of all CPUs' time (diamond: device busy, % of wall time)"
set key outside right top vertical reverse Left samplen 1.5 font ",9"
set title chart_title font ",12"
set bmargin 5
n = |part_names|
do for [ext in "png svg"] {
    load plotsdir . "/common.gp"
    plot for [i=1:n] datafile using (column(i + 1)):xtic(1) lc rgb part_colors[i] title part_names[i], \
         datafile using 0:(column(n + 2)) with points pt 13 ps 2 lc rgb "black" title "device busy"
    unset output
}
