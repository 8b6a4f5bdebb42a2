# plots/hbars.gp: one horizontal bar per host and variant, sorted by result
# (the best on top), each labelled with its median and its difference from
# the best; min-max whiskers from noise_min trials on (fewer: no whisker, the
# noise is unknown); coloured by filesystem.
# The generated instance (plots/out/.../NAME.gp) sets: plotsdir, base,
# datafile, chart_title, xlabel_text, noise_min, width, height, fs_names,
# fs_colors, has_notes, nrefs, ref_x, ref_y (the lines' ends), ref_colors,
# ref_keys and the chart's own xrange, xtics and yrange (reversed: row 1 on
# top), the reference lines' labels, then loads this file.  A reference (a
# filesystem in memory) is a dashed line at its figure, over the bars and
# under their labels.
# An fs_names entry of "" has no key entry (a filesystem drawn only as a line).
# Data columns: row median min max fs-index "host / variant" "value label" trials "failures"
set style textbox opaque noborder
set style fill solid 0.85 border rgb "#404040"
set grid xtics lc rgb "#d8d8d8" lt 1
set border 3 lc rgb "#404040"
set ytics nomirror scale 0 font ",10"
set xtics nomirror
set key outside right top vertical reverse Left samplen 1.5 font ",9" title "filesystem"
set title chart_title font ",12"
set xlabel xlabel_text
do for [i=1:|fs_colors|] {
    set linetype i lc rgb fs_colors[i]
}
do for [ext in "png svg"] {
    load plotsdir . "/common.gp"
    plot datafile using ($2 / 2):1:($2 / 2):(0.34):5:ytic(6) with boxxyerror lc variable notitle, \
         "" using ($8 >= noise_min ? $3 : NaN):1:($4 - $3):(0) with vectors nohead lc rgb "black" lw 1.2 notitle, \
         "" using ($8 >= noise_min ? $3 : NaN):($1 - 0.14):(0):(0.28) with vectors nohead lc rgb "black" lw 1.2 notitle, \
         "" using ($8 >= noise_min ? $4 : NaN):($1 - 0.14):(0):(0.28) with vectors nohead lc rgb "black" lw 1.2 notitle, \
         for [i=1:nrefs] "+" using (ref_x[i]):(ref_y[1]):(0):(ref_y[2] - ref_y[1]) every ::0::0 with vectors nohead lw 2 dt 2 lc rgb ref_colors[i] notitle, \
         datafile using ($8 >= noise_min ? $4 : $2):1:7 with labels boxed left offset 0.6, 0 font ",9" notitle, \
         for [i=1:has_notes] datafile using (0):(strcol(9) eq "" ? NaN : $1):9 with labels boxed left offset 0.6, 0 font ",8" tc rgb "#B00000" notitle, \
         for [i=1:|fs_names|] keyentry with boxes lc rgb fs_colors[i] title fs_names[i], \
         for [i=1:nrefs] keyentry with lines dt 2 lw 2 lc rgb ref_colors[i] title ref_keys[i]
    unset output
}
