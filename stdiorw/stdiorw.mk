# bin/stdiorw: IOzone's stdio tests (fwrite, frewrite, fread, freread) for phase-iozone.
BINS += stdiorw
stdiorw_SRCS := stdiorw/stdiorw.c lib/common.c lib/printable.c
