# plots/micro_lines.gp: lines of several host/variants against one x axis
# (outstanding I/Os, file size), the median over trials with min-max
# whiskers.  The generated instance (plots/out/.../NAME.gp, written by
# plots/micro_charts.py) sets: plotsdir, base, datafile, chart_title,
# xlabel_text, ylabel_text, width, height, nseries, snames, scolors,
# point_type (7, or 0 for many points), whiskers (1 or 0) and the chart's
# own ranges, tics and log scale, then loads this file.
# Data: one block per series (separated by two blank lines): x median min max
set grid lc rgb "#d8d8d8" lt 1
set border 3 lc rgb "#404040"
set xtics nomirror font ",9"
set ytics nomirror
set key outside right top vertical Left reverse samplen 2 font ",9"
set title chart_title font ",12"
set xlabel xlabel_text
set ylabel ylabel_text
do for [ext in "png svg"] {
    load plotsdir . "/common.gp"
    plot for [i=1:nseries] datafile index (i - 1) using 1:2 with linespoints pt point_type ps 0.8 lw 2 lc rgb scolors[i] title snames[i], \
         for [i=1:nseries * whiskers] datafile index (i - 1) using 1:2:3:4 with yerrorbars pt point_type ps 0.8 lw 1 lc rgb scolors[i] notitle
    unset output
}
