# plots/plots.mk: the charts, the report and the comparison of runs.
# They read only $(RESULTS)/<run>/ (the formats: docs/formats.md#the-results-tree).
#   make plots   [RUN="run1 run2 ..."]   charts into plots/out/<run1+run2>/
#   make report  [RUN="run1 ..."]        report/index.html and report/summary.md
#   make compare BASE=run1 NEW=run2      plots/out/compare-run1-vs-run2/
#   make export  [RUN="run1 ..."]        report/results.csv, results.json, composite.xml
#                                        (make report writes them too; make shootout into results/RUN/)
# RUN defaults to the current run (results/.current), else the newest one.
# OUT=DIR writes somewhere else.
RESULTS ?= results
RUN ?=
OUT ?=
BASE ?=
NEW ?=
# The system's python3, for which harness/deps.sh installs python3-scipy (make
# compare's t-test); a python3 of its own earlier in PATH (pyenv, a venv)
# would lack it.  PLOTS_PYTHON=... chooses another.
PLOTS_PYTHON ?= $(if $(wildcard /usr/bin/python3),/usr/bin/python3,python3)
PLOTS_PY = $(PLOTS_PYTHON) plots/plots.py $(if $(OUT),--out '$(OUT)')

.PHONY: plots report compare export
plots:
	$(call deps,plots)
	@$(PLOTS_PY) plots --results '$(RESULTS)' $(RUN)

# A run with kernel profiles (PROFILE=1) is drawn with inferno too: the
# profile group, when one of the runs has them (plots.py needs).
needs = $(shell $(PLOTS_PYTHON) plots/plots.py needs --results '$(RESULTS)' $(1) 2>/dev/null)

report:
	$(call deps,plots $(call needs,$(RUN)))
	@$(PLOTS_PY) report --results '$(RESULTS)' $(RUN)

compare:
	@[ -n '$(BASE)' ] && [ -n '$(NEW)' ] || { echo 'plots: compare wants BASE=run1 NEW=run2' >&2; exit 2; }
	$(call deps,plots $(call needs,$(BASE) $(NEW)))
	@$(PLOTS_PY) compare --results '$(RESULTS)' '$(BASE)' '$(NEW)'

# Python's standard library only (no gnuplot, no scipy).
export:
	@$(PLOTS_PY) export --results '$(RESULTS)' $(RUN)
