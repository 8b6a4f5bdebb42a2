# The phases on one host.  Each target runs harness/<target>.sh with the
# settings of harness/settings.tsv (the one list: name, default, groups,
# meaning) in its environment: those make knows (command line, environment
# or a makefile), shell-quoted by settings_env.
SETTINGS := $(dir $(lastword $(MAKEFILE_LIST)))settings.tsv
# settings_of GROUP... : the names of the settings of those groups, once each.
settings_of = $(shell awk -F '\t' -v groups='$(1)' 'BEGIN { n = split(groups, g, " ") } \
  $$1 ~ /^[A-Z]/ { for (i = 1; i <= n; i++) if (index("," $$3 ",", "," g[i] ",") && !seen[$$1]++) print $$1 }' $(SETTINGS))
# settings_env NAME... : NAME='value' for each one make knows, for env(1).
# A value from the environment is taken as it is ($(value)): make never
# expands it, so no $(...) in it runs.  A value with a newline is refused,
# naming the setting (make exits 2): the shell would get a broken line; the
# scripts refuse every other control character (harness/common/settings.sh).
settings_q = '$(subst ','\'',$(1))'
settings_val = $(if $(filter environment,$(origin $(1))),$(value $(1)),$($(1)))
define settings_newline


endef
settings_one = $(if $(findstring $(settings_newline),$(2)),$(error $(1): a newline in the value; a setting is one line),$(1)=$(call settings_q,$(2)))
settings_env = $(foreach v,$(1),$(if $(filter-out undefined,$(origin $(v))),$(call settings_one,$(v),$(call settings_val,$(v)))))

# The phase scripts (and micro.mk's) take the groups harness and micro.
HARNESS_VARS := $(call settings_of,harness micro)
HARNESS_PHASES := phase-untar phase-untar2 phase-serve phase-preload phase-net phase-delete phase-flush

.PHONY: $(HARNESS_PHASES) shootout settings-docs
$(HARNESS_PHASES): all
	@env $(call settings_env,$(HARNESS_VARS)) harness/$@.sh

shootout: all
	$(call deps,harness fs)
	@env $(call settings_env,$(HARNESS_VARS)) harness/shootout.sh

# The settings tables of docs/harness.md, docs/micro.md and docs/lab.md,
# made again from harness/settings.tsv (tests/settings.bats checks them).
settings-docs:
	@harness/settings-doc --update
