# The micro-benchmark phases (docs/micro.md): Iometer access
# specifications and IOzone's sweep run with fio, PostMark, and filesystem
# discovery with bin/fsdisco.  They run like every phase (the frame of
# harness/common.sh) and can be named in
# `make shootout PHASES="... iometer iozone postmark discover"`.  Their own
# settings (ICF=... IOZONE_MAX=..., the group micro of harness/settings.tsv)
# reach the scripts with harness.mk's HARNESS_VARS.
MICRO_PHASES := phase-iometer phase-iozone phase-postmark phase-discover

.PHONY: $(MICRO_PHASES)
$(MICRO_PHASES): all
	@env $(call settings_env,$(HARNESS_VARS)) harness/$@.sh
