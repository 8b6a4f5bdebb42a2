# `make demo`: the whole shootout on this machine (loop-device filesystems and
# tmpfs, the small dataset, FLUSH=drop) through Ansible and the local
# inventory, then the report.  As root.  Knobs: DEMO_VARIANTS=ext4,xfs
# DATASET=small DEMO_SIZE=4G TRIALS=1 (see playbooks/demo.sh).  DATASET and
# TRIALS count only when given on the command line or in the environment,
# not the harness's own defaults.
demo_given = $(if $(filter command line environment,$(origin $(1))),$($(1)))
.PHONY: demo
demo:
	@DATASET="$(call demo_given,DATASET)" TRIALS="$(call demo_given,TRIALS)" \
	  DEMO_VARIANTS="$(DEMO_VARIANTS)" DEMO_SIZE="$(DEMO_SIZE)" playbooks/demo.sh
