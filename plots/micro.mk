# The micro-benchmark plots: IOzone heat maps (plots/iozone.py, plots/iozone.gp).
#   make plots-iozone RUN="<run-id or results dir> ..." [IOZONE_PLOTS=plots/out/iozone]
.PHONY: plots-iozone
IOZONE_PLOTS ?= plots/out/iozone
plots-iozone:
	@run="$(RUN)"; [ -n "$$run" ] || run=$$(cat "$${RESULTS:-results}/.current" 2>/dev/null); \
	[ -n "$$run" ] || { echo "plots-iozone: which run? RUN=<run-id>" >&2; exit 2; }; \
	plots/iozone.py -o "$(IOZONE_PLOTS)" $$run
