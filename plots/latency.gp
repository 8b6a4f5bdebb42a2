# plots/latency.gp: one CDF chart of latency (or queue-depth) histograms,
# a line per variant and record (warm replays dashed), x on a log2 scale.
# The generated instance sets: plotsdir, base, datafile, chart_title,
# x_label, width, height, n, line_titles, line_colors, line_dash, then
# loads this file.  Data: one block per line ("x fraction_below"), blocks
# separated by two blank lines (gnuplot's index).
set logscale x 2
set format x "%g"
set grid xtics ytics lc rgb "#d8d8d8" lt 1
set border 3 lc rgb "#404040"
set xtics nomirror font ",9"
set ytics nomirror 0.1
set yrange [0:1.02]
set xlabel x_label
set ylabel "fraction of requests at or below"
set key outside right top vertical Left reverse samplen 2 font ",9"
set title chart_title font ",12"
do for [ext in "png svg"] {
    load plotsdir . "/common.gp"
    plot for [i=1:n] datafile index (i - 1) using 1:2 with steps lw 2 \
         lc rgb line_colors[i] dt line_dash[i] title line_titles[i]
    unset output
}
