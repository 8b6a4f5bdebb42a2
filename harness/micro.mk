# The micro-benchmark phases (docs/micro.md): Iometer access
# specifications and IOzone's sweep run with fio, PostMark, and filesystem
# discovery with bin/fsdisco.  They run like every phase (harness.mk's
# variables, the frame of harness/common.sh) and can be named in
# `make shootout PHASES="... iometer iozone postmark discover"`.  Their own
# variables (ICF=... IOZONE_MAX=... below) reach the scripts too.
MICRO_PHASES := phase-iometer phase-iozone phase-postmark phase-discover
HARNESS_VARS += PHASES ICF ICF_RUNTIME ICF_RAMP ICF_STRICT IOMETER_SIZE IOMETER_DIRECT IOMETER_ENGINE \
  IOZONE_MIN IOZONE_MAX IOZONE_RECMIN IOZONE_RECMAX IOZONE_TESTS IOZONE_FLUSH IOZONE_FULL IOZONE_STRIDE \
  POSTMARK_CONFIGS POSTMARK_FILES POSTMARK_TRANSACTIONS POSTMARK_PROCS POSTMARK_SEED POSTMARK_SIZE \
  POSTMARK_BLOCK POSTMARK_READ POSTMARK_WRITE POSTMARK_BIAS_READ POSTMARK_BIAS_CREATE POSTMARK_BUFFERING \
  DISCOVER_TESTS DISCOVER_ITERS DISCOVER_CACHE_SIZE DISCOVER_FLUSH DISCOVER_PRIME

.PHONY: $(MICRO_PHASES)
$(MICRO_PHASES): all
	@env $(harness_env) harness/$@.sh
