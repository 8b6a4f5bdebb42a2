# The micro-benchmark phases (docs/micro.md): Iometer access
# specifications run with fio, IOzone's sweep (IOzone itself, or emulated
# with fio where it is not installed), PostMark, and filesystem
# discovery with bin/fsdisco.  They run like every phase (the frame of
# harness/common.sh) and can be named in
# `make shootout PHASES="... iometer iozone postmark discover"`.  Their own
# settings (ICF=... IOZONE_MAX=..., the group micro of harness/settings.tsv)
# reach the scripts with harness.mk's HARNESS_VARS.
MICRO_PHASES := phase-iometer phase-iozone phase-postmark phase-discover

.PHONY: $(MICRO_PHASES)
$(MICRO_PHASES): all
	@env $(call settings_env,$(HARNESS_VARS)) harness/$@.sh
