# The VM lab: the shootout playbook against qemu guests on this
# machine, flushed by real reboots.  docs/lab.md.
#   make lab [LAB_OS="debian12 debian13"] [LAB_GUESTS=1] [LAB_VARIANTS=ext4,xfs] [DATASET=tiny] [LAB_ACCEL=kvm|tcg]
#   make test-lab      the lab's end-to-end tests (the kernel A/B, make bisect); TAP also in build/lab/test-lab.tap
#   make lab-clean     stop and remove what the lab left [LAB_CLEAN_IMAGE=1: the cached images too]
#   make lab LAB_KERNELS="image initonfree"   the same image with each kernel of playbooks/lab/kernels.tsv
#   make bisect BISECT_TREE=DIR BISECT_GOOD=REF BISECT_BAD=REF [BISECT_FIGURE="files wall_s +10%"] [BISECT_BUILD=CMD]
#                      the first commit that makes the figure worse, each candidate booted in the lab
#   make lab-kernel [KERNEL_SRC=DIR] [KERNEL_MAKE="make -j2 bzImage"]
#                      a kernel with the lab's small config (from the guest's) into build/kernel/small,
#                      from Debian's linux-source or KERNEL_SRC: the kernel small of kernels.tsv
# The settings of the group lab of harness/settings.tsv (harness.mk's settings_env).
LAB_VARS := $(call settings_of,lab)

.PHONY: lab test-lab lab-clean bisect lab-kernel
lab: all
	$(call deps,lab playbooks)
	@env $(call settings_env,$(LAB_VARS)) playbooks/lab/lab.sh run

test-lab: all
	$(call deps,lab playbooks test)
	@mkdir -p build/lab
	@set -o pipefail; env $(call settings_env,$(LAB_VARS)) sh -c 'LAB_TEST_END=$$(($$(date +%s) + $${LAB_TEST_DEADLINE:-2700})) exec bats --tap tests/lab/lab.bats tests/lab/bisect.bats' </dev/null | \
	  tee build/lab/test-lab.tap.tmp; \
	  rc=$$?; mv -f build/lab/test-lab.tap.tmp build/lab/test-lab.tap; exit $$rc

bisect:
	$(call deps,lab playbooks plots kernel)
	@env $(call settings_env,$(LAB_VARS)) playbooks/lab/bisect.sh run

lab-kernel:
	$(call deps,lab kernel)
	@env $(call settings_env,$(LAB_VARS)) playbooks/lab/kernel-build.sh run

lab-clean:
	@env $(call settings_env,$(LAB_VARS)) playbooks/lab/lab.sh clean
