# The phases on one host.  Each target runs harness/<target>.sh
# with the variables below in its environment (only those that are set).
HARNESS_VARS := TARGET DATASET SEED SOURCE FLUSH TRIALS VARIANT RUN_ID RESULTS \
  SERVE_PROCS REPLAY_CONC REPLAY_KEEPALIVE REPLAY_FROM PRIME_GB ALLOW_NONMOUNT \
  PRIME_DIR NET_PROCS NET_COUNT NET_CONC NET_KEEPALIVE NET_SIZE PORT TRIAL \
  HOST FS MKFS_OPTS SSH REPLAY_BIN SERVE_HOST SERVE_BIND REPLAY_COUNT PRELOAD \
  PRELOAD_PROCS SERVE_HOST6 SERVE_BIND6 SERVE_MODES TCPSERVER
HARNESS_PHASES := phase-untar phase-untar2 phase-serve phase-preload phase-net phase-delete phase-flush

# shell-quote a value for the recipe's command line
harness_q = '$(subst ','\'',$(1))'
harness_env = $(foreach v,$(HARNESS_VARS),$(if $(filter-out undefined,$(origin $(v))),$(v)=$(call harness_q,$($(v)))))

.PHONY: $(HARNESS_PHASES) shootout
$(HARNESS_PHASES): all
	@env $(harness_env) harness/$@.sh

shootout: all
	$(call deps,harness fs)
	@env $(harness_env) harness/shootout.sh
