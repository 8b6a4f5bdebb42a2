# The VM lab: the shootout playbook against qemu guests on this
# machine, flushed by real reboots.  docs/lab.md.
#   make lab [LAB_OS="debian12 debian13"] [LAB_GUESTS=1] [LAB_VARIANTS=ext4,xfs] [DATASET=tiny] [LAB_ACCEL=kvm|tcg]
#   make test-lab      the lab's end-to-end test; TAP also in build/lab/test-lab.tap
#   make lab-clean     stop and remove what the lab left [LAB_CLEAN_IMAGE=1: the cached images too]
LAB_VARS := LAB_OS LAB_MIRROR LAB_GUESTS LAB_VARIANTS LAB_SERVE_MODES DATASET SEED TRIALS LAB_ACCEL LAB_BOOT_TIMEOUT LAB_NET_COUNT LAB_MEM \
  LAB_CPUS LAB_DATA_SIZE LAB_KVM_PROBE LAB_PLAYBOOK LAB_RUN_ID LAB_STATE LAB_CACHE \
  LAB_ANSIBLE_ARGS LAB_CLEAN_IMAGE LAB_TOOLS LAB_LOGS LAB_INVENTORY LAB_APPEND LAB_TEST_DEADLINE \
  LAB_KEEP_RESULTS
lab_env = $(foreach v,$(LAB_VARS),$(if $(filter-out undefined,$(origin $(v))),$(v)='$(subst ','\'',$($(v)))'))

.PHONY: lab test-lab lab-clean
lab: all
	$(call deps,lab playbooks)
	@env $(lab_env) playbooks/lab/lab.sh run

test-lab: all
	$(call deps,lab playbooks test)
	@mkdir -p build/lab
	@set -o pipefail; env $(lab_env) bats --tap tests/lab/lab.bats </dev/null | tee build/lab/test-lab.tap.tmp; \
	  rc=$$?; mv -f build/lab/test-lab.tap.tmp build/lab/test-lab.tap; exit $$rc

lab-clean:
	@env $(lab_env) playbooks/lab/lab.sh clean
