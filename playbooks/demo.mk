# `make demo`: the whole shootout on this machine (loop-device filesystems and
# tmpfs, the small dataset, FLUSH=drop) through Ansible and the local
# inventory, then the report.  As root.  Knobs: DEMO_VARIANTS=ext4,xfs
# DATASET=small DEMO_SIZE=4G TRIALS=1 (see playbooks/demo.sh).  DATASET and
# TRIALS count only when given on the command line or in the environment,
# not the harness's own defaults.
# The harness's stopping rule (docs/harness.md), passed on when given.
DEMO_STOPPING_RULE := PRECISION PRECISION_MAX_TRIALS PRECISION_MAX_S MIN_MEASURE_S DISTURBED_PCT
# Each value is shell-quoted (harness.mk's settings_one), never spliced
# into the command line as code.
demo_given = $(if $(filter command line environment,$(origin $(1))),$(call settings_val,$(1)))
.PHONY: demo
demo:
	@env $(call settings_one,DATASET,$(call demo_given,DATASET)) $(call settings_one,TRIALS,$(call demo_given,TRIALS)) \
	  $(call settings_one,PROFILE,$(call demo_given,PROFILE)) $(call settings_one,BLKLAT,$(call demo_given,BLKLAT)) \
	  $(call settings_one,FORKLAT,$(call demo_given,FORKLAT)) \
	  $(foreach v,$(DEMO_STOPPING_RULE),$(call settings_one,$(v),$(call demo_given,$(v)))) \
	  $(call settings_one,DEMO_VARIANTS,$(call settings_val,DEMO_VARIANTS)) \
	  $(call settings_one,DEMO_SIZE,$(call settings_val,DEMO_SIZE)) \
	  $(call settings_one,DEMO_REPEAT,$(call settings_val,DEMO_REPEAT)) playbooks/demo.sh
