# small: ~20k files, ~1 GB, for the demo (make demo).
#
# Profile format (bin/mkdataset -p NAME reads datasets/NAME.profile):
# one "key value" a line; '#' starts a comment; sizes in bytes; shares
# and exponents are decimals.  Each photo is two files: the full image
# img/DIRS/ID.jpg and its thumbnail thumb/DIRS/ID.jpg.
#   name            dataset name (default: the file name)
#   photos          photos in the first tarball (files = 2 x photos)
#   full.median     median size of a full image; full.spread its log2
#                   standard deviation (size = median x 2^(spread x N(0,1)));
#   full.min/.max   clamps (default 64 bytes / 16 x median)
#   thumb.*         the same for thumbnails
#   fanout, levels  regular directories: fanout^levels of them per kind,
#                   named by two hex digits a level (img/0a/3f/)
#   huge.dirs       directories holding very many photos (img/h0/ ...)
#   huge.photos     photos in each huge directory
#   requests        lines of requests.txt
#   zipf            popularity skew: rank r is requested ~ r^-zipf
#   update.replace  share of the first tarball's files the update replaces
#   update.new      photos the update adds (two files each)
name            small
photos          10000
full.median     85000
full.spread     0.5
full.min        8000
full.max        600000
thumb.median    9000
thumb.spread    0.3
thumb.min       1000
thumb.max       40000
fanout          64
levels          1
huge.dirs       2
huge.photos     1500
requests        100000
zipf            0.9
update.replace  0.01
update.new      200
