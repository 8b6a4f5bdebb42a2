# bin/resident: the page-cache check before a cold phase (mincore over a
# seeded sample of files).
BINS += resident
resident_SRCS := tools/resident.c tools/common.c tools/printable.c
