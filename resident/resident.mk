# bin/resident: the page-cache check before a cold phase (mincore over a
# seeded sample of files).
BINS += resident
resident_SRCS := resident/resident.c lib/common.c lib/printable.c lib/usage.c
