# plots/iozone.gp: one IOzone test as heat maps, one panel per host/variant,
# every panel on the same colour scale.  plots/iozone.py writes the data and
# calls this with:
#   out      PNG to write            title   the test's name
#   panels   number of panels        cols    panels a row
#   cbmin cbmax  the shared colour range (kB/s, log scale)
#   xtics ytics  tic definitions "('64k' 16, '128k' 17, ...)" (log2 positions)
#   xmin xmax ymin ymax  the shared axis ranges (log2 of the sizes)
#   data     a file with one block per panel, blocks separated by two blank
#            lines: "x y kBps" (x = log2 file size, y = log2 record size)
#   names    panel titles separated by blanks (one word each)
set terminal pngcairo size (cols * 520), (ceil(panels * 1.0 / cols) * 420) font ",9" noenhanced
set output out
set logscale cb 2
set cbrange [cbmin:cbmax]
set format cb "%.0s%c"
set cblabel "kB/s"
set palette defined (0 "#000060", 1 "#2060c0", 2 "#30b0a0", 3 "#c0d040", 4 "#f08020", 5 "#c00000")
set xlabel "file size"
set ylabel "record size"
eval "set xtics " . xtics
eval "set ytics " . ytics
set xtics font ",8"
set xrange [xmin - 0.5:xmax + 0.5]
set yrange [ymin - 0.5:ymax + 0.5]
set ytics font ",8"
set grid front lc "#808080" lw 0.3
set key off
set multiplot layout ceil(panels * 1.0 / cols), cols title title font ",12"
do for [i = 0:panels - 1] {
  set title word(names, i + 1) noenhanced
  plot data index i using 1:2:(0.5):(0.5):3 with boxxyerror fillstyle solid noborder lc palette
}
unset multiplot
