# plots/micro_heat.gp: one IOzone test as heat maps, one panel per
# host/variant, every panel on one logarithmic colour scale.  The generated
# instance (written by plots/micro_charts.py) sets: plotsdir, base, datafile,
# chart_title, width, height, npanels, ncols, pnames, cbmin, cbmax, and the
# tics and ranges (log2 of the sizes), then loads this file.
# Data: one block per panel (separated by two blank lines):
#   log2(file size) log2(record size) kB/s
set logscale cb 2
set cbrange [cbmin:cbmax]
set format cb "%.0s%c"
set cblabel "kB/s"
set palette defined (0 "#000060", 1 "#2060c0", 2 "#30b0a0", 3 "#c0d040", 4 "#f08020", 5 "#c00000")
set xlabel "file size"
set ylabel "record size"
set xtics font ",8"
set ytics font ",8"
set grid front lc rgb "#808080" lw 0.3
set key off
do for [ext in "png svg"] {
    load plotsdir . "/common.gp"
    set multiplot layout ceil(npanels * 1.0 / ncols), ncols title chart_title font ",12"
    do for [i = 1:npanels] {
        set title pnames[i] font ",9"
        plot datafile index (i - 1) using 1:2:(0.5):(0.5):3 with boxxyerror fillstyle solid noborder lc palette
    }
    unset multiplot
    unset output
}
