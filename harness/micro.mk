# The micro-benchmark phases (README, "Micro-benchmarks"): Iometer access
# specifications and IOzone's sweep run with fio, PostMark, and filesystem
# discovery with bin/fsdisco.  Each records into the current run like every
# phase; the variables below (and any given on the command line, e.g.
# ICF=... IOZONE_MAX=...) reach the scripts through the environment.
.PHONY: phase-iometer phase-iozone phase-postmark phase-discover
# (quoted as in harness.mk: any TARGET reaches the scripts' guard intact)
MICRO_VARS = TARGET=$(call harness_q,$(TARGET)) RUN_ID=$(call harness_q,$(RUN_ID)) \
	RESULTS=$(call harness_q,$(RESULTS)) VARIANT=$(call harness_q,$(VARIANT)) \
	ALLOW_NONMOUNT=$(call harness_q,$(ALLOW_NONMOUNT))

phase-iometer:
	$(MICRO_VARS) harness/phase-iometer.sh

phase-iozone:
	$(MICRO_VARS) harness/phase-iozone.sh

phase-postmark:
	$(MICRO_VARS) harness/phase-postmark.sh

phase-discover: $(BIN)/fsdisco
	$(MICRO_VARS) BIN="$(BIN)" harness/phase-discover.sh
