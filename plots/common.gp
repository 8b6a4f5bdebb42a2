# plots/common.gp: loaded by every chart template once per output format.
# In: ext ("png" or "svg"), base (output file name without extension),
#     width, height (pixels).  Falls back to the libgd png terminal when
#     gnuplot was built without cairo.
if (ext eq "png") {
    if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
        set terminal pngcairo size width, height font "Sans,10" noenhanced
    } else {
        set terminal png size width, height font "Sans,10" noenhanced
    }
} else {
    set terminal svg size width, height font "Sans,10" noenhanced dynamic background rgb "white"
}
set output base . "." . ext
