# plots/series.gp: the "pump and dump" picture of one phase, one panel per
# host and variant, every panel on the same scales: the tool's throughput and
# the disk's writes (and reads) in MB/s on the left axis, Dirty and Writeback
# page cache in MB as shaded areas on the right axis.
# The generated instance sets: plotsdir, base, chart_title, width, height,
# npanels, rows, cols, setup (ranges and tics shared by all panels), arrays
# pfile, ptitle, py1 and py2 (the data columns of each panel for the left and
# the right axis, as space-separated column numbers), then loads this file.
# Data columns: t tool_MB/s disk_write_MB/s disk_read_MB/s dirty_MB writeback_MB
array colcolor = ["#000000", "#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7"]
array colalpha = [0, 0, 0, 0, 0.30, 0.55]
set grid xtics ytics lc rgb "#e0e0e0" lt 1
set border 11 lc rgb "#404040"
set xtics nomirror font ",8"
set ytics nomirror font ",8"
set y2tics nomirror font ",8" tc rgb "#A06000"
set key inside top right opaque box lc rgb "#c0c0c0" samplen 1.2 font ",7" spacing 0.9
do for [ext in "png svg"] {
    load plotsdir . "/common.gp"
    set multiplot layout rows, cols title chart_title font ",12"
    eval setup
    do for [p=1:npanels] {
        set title ptitle[p] font ",10"
        cmd = "plot "
        sep = ""
        do for [i=1:words(py2[p])] {
            c = int(word(py2[p], i))
            cmd = cmd . sep . sprintf("pfile[%d] using 1:%d axes x1y2 with filledcurves x1 fs transparent solid %.2f noborder lc rgb colcolor[%d] title columnhead(%d)", p, c, colalpha[c], c, c)
            sep = ", "
        }
        do for [i=1:words(py1[p])] {
            c = int(word(py1[p], i))
            cmd = cmd . sep . sprintf("pfile[%d] using 1:%d axes x1y1 with lines lw 1.4 lc rgb colcolor[%d] title columnhead(%d)", p, c, c, c)
            sep = ", "
        }
        eval cmd
    }
    unset multiplot
    unset output
}
