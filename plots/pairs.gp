# plots/pairs.gp: panels side by side (e.g. cold | warm cache), each with two
# (or three) bars per host and variant (e.g. 1 | 32 server processes): median
# over trials, min-max whiskers from noise_min trials on.  The generated
# instance sets: plotsdir, base, chart_title, noise_min, box_width, width, height, npanels, arrays pfile (data file per panel),
# psetup (gnuplot commands per panel: title, ranges, tics, host labels),
# pair_names and pair_colors (legend), then loads this file.
# Data columns: x median min max pair-index "variant" "value label" trials "failures"
# (has_notes, set by psetup: whether any bar has failures, shown at its foot;
# has_refs: whether psetup drew a filesystem in memory as a dashed line at its
# figure, the memory ceiling, a reference: its key entry)
set style textbox opaque noborder
set style fill solid 0.85 border rgb "#404040"
set grid ytics lc rgb "#d8d8d8" lt 1
set border 3 lc rgb "#404040"
set xtics nomirror scale 0 font ",9"
set ytics nomirror
set key outside top center horizontal samplen 1.5 font ",9"
do for [i=1:|pair_colors|] {
    set linetype i lc rgb pair_colors[i]
}
do for [ext in "png svg"] {
    load plotsdir . "/common.gp"
    set multiplot layout 1, npanels title chart_title font ",12"
    do for [p=1:npanels] {
        unset label
        unset arrow
        eval psetup[p]
        plot pfile[p] using 1:2:(box_width):5 with boxes lc variable notitle, \
             "" using 1:($8 >= noise_min ? $3 : NaN):(0):($4 - $3) with vectors nohead lc rgb "black" lw 1.2 notitle, \
             "" using ($1 - 0.08):($8 >= noise_min ? $3 : NaN):(2 * 0.08):(0) with vectors nohead lc rgb "black" lw 1.2 notitle, \
             "" using ($1 - 0.08):($8 >= noise_min ? $4 : NaN):(2 * 0.08):(0) with vectors nohead lc rgb "black" lw 1.2 notitle, \
             "" using 1:($8 >= noise_min ? $4 : $2):7 with labels rotate by 90 left offset 0, 0.5 font ",7" notitle, \
             for [i=1:has_notes] "" using 1:(strcol(9) eq "" ? NaN : 0):9 with labels boxed offset 0, 1 font ",8" tc rgb "#B00000" notitle, \
             for [i=1:|pair_names|] keyentry with boxes lc rgb pair_colors[i] title pair_names[i], \
             for [i=1:has_refs] keyentry with lines dt 2 lw 2 lc rgb "#404040" title "in memory: a reference"
    }
    unset multiplot
    unset output
}
