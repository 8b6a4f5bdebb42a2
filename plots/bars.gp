# plots/bars.gp: one bar per host and variant, the median over trials, with
# min-max whiskers from noise_min trials on (fewer: no whisker, the noise is
# unknown); bars grouped by host, coloured by filesystem.
# The generated instance (plots/out/.../NAME.gp) sets: plotsdir, base,
# datafile, chart_title, ylabel_text, noise_min, width, height, fs_names, fs_colors and the
# chart's own yrange, ytics, xrange and host labels, then loads this file.
# Data columns: x median min max fs-index "variant" "value label" trials "failures"
# (trials 0: no whisker, e.g. a memory filesystem's "not flushable" cold bar)
# (has_notes: whether any bar has failures, shown boxed at its foot)
set style textbox opaque noborder
set style fill solid 0.85 border rgb "#404040"
set grid ytics lc rgb "#d8d8d8" lt 1
set border 3 lc rgb "#404040"
set xtics nomirror scale 0 font ",9"
set ytics nomirror
set key outside right top vertical reverse Left samplen 1.5 font ",9" title "filesystem"
set title chart_title font ",12"
set ylabel ylabel_text
do for [i=1:|fs_colors|] {
    set linetype i lc rgb fs_colors[i]
}
do for [ext in "png svg"] {
    load plotsdir . "/common.gp"
    plot datafile using 1:2:(0.72):5:xtic(6) with boxes lc variable notitle, \
         "" using 1:($8 >= noise_min ? $3 : NaN):(0):($4 - $3) with vectors nohead lc rgb "black" lw 1.2 notitle, \
         "" using ($1 - 0.12):($8 >= noise_min ? $3 : NaN):(2 * 0.12):(0) with vectors nohead lc rgb "black" lw 1.2 notitle, \
         "" using ($1 - 0.12):($8 >= noise_min ? $4 : NaN):(2 * 0.12):(0) with vectors nohead lc rgb "black" lw 1.2 notitle, \
         "" using 1:($8 >= noise_min ? $4 : $2):7 with labels offset 0, 0.7 font ",8" notitle, \
         for [i=1:has_notes] "" using 1:(strcol(9) eq "" ? NaN : 0):9 with labels boxed offset 0, 1 font ",8" tc rgb "#B00000" notitle, \
         for [i=1:|fs_names|] keyentry with boxes lc rgb fs_colors[i] title fs_names[i]
    unset output
}
