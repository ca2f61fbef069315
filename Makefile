# robolib workbench — the commands people type.
#   make book    create the environment, run every study (papermill, defaults), build the HTML book
#   make test    create the environment, run the whole test suite
# See README.md for the rest (one study with other parameters, JupyterLab, benchmarks).

SHELL      := /bin/bash
PYTHON     ?= python3.11
VENV       ?= .venv
BIN        := $(VENV)/bin
STAMP      := $(VENV)/.installed
export PATH := $(abspath $(BIN)):$(PATH)
export PYDEVD_DISABLE_FILE_VALIDATION := 1

STUDIES    := $(sort $(basename $(notdir $(wildcard notebooks/*.md))))
SRC_NB     := build/notebooks
OUT_NB     := book/studies
NAME       ?=
PARAMS     ?=

.PHONY: help env browser test book notebooks study lab bench bifurcation lock clean fuzz mutate
export SKIP_BROWSER ?= 0
PAPERMILL  := $(BIN)/papermill --log-level WARNING --execution-timeout 3600

help:
	@sed -n '2,4p' Makefile

# ---- environment -----------------------------------------------------------
$(STAMP): requirements.lock pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) not found; install Python 3.11 or run 'make PYTHON=/path/to/python3.11 ...'"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q -r requirements.lock
	$(BIN)/python -m pip install -q --no-deps -e .
	touch $(STAMP)

env: $(STAMP)

# ---- notebooks: MyST text sources -> executed .ipynb ------------------------
$(SRC_NB)/%.ipynb: notebooks/%.md $(STAMP)
	@mkdir -p $(SRC_NB)
	$(BIN)/jupytext --quiet --to ipynb --output $@ $<

# Every study at its default parameters (the full study). The timing study runs alone (it measures
# wall-clock ratios side by side and must not share the cores); the others run NB_JOBS at a time.
TIMING_STUDIES := stewart_timing
NB_JOBS    ?= 2
notebooks: $(STAMP) $(addprefix $(SRC_NB)/,$(addsuffix .ipynb,$(STUDIES)))
	@$(MAKE) --no-print-directory $(addprefix run-,$(filter $(TIMING_STUDIES),$(STUDIES)))
	@$(MAKE) --no-print-directory -j$(NB_JOBS) $(addprefix run-,$(filter-out $(TIMING_STUDIES),$(STUDIES)))

# run-<study>: one study at its defaults, then its claims with --strict (every claim must hold).
run-%: $(SRC_NB)/%.ipynb
	@mkdir -p $(OUT_NB)
	@$(BIN)/python -m robolib.study $* --check-notebook
	@echo "== papermill $* (defaults)"
	@SECONDS=0; $(PAPERMILL) --no-progress-bar $(SRC_NB)/$*.ipynb $(OUT_NB)/$*.ipynb || { echo "error: the default run of $* failed (see above)"; exit 1; }; \
	  echo "== $* ran in $$SECONDS s"
	@$(BIN)/python -m robolib.book.claims --strict $(OUT_NB)/$*.ipynb || { echo "error: a claim of the default run of $* fails or is not computed (see above)"; exit 1; }

# One study with other parameters:  make study NAME=prp3_roundtrip PARAMS="-p seed 7 -p n_samples 200000"
study: $(STAMP)
	@test -n "$(NAME)" || { echo "usage: make study NAME=<one of: $(STUDIES)> PARAMS='-p name value ...'"; exit 2; }
	@test -f notebooks/$(NAME).md || { echo "error: no study '$(NAME)'; studies: $(STUDIES)"; exit 2; }
	$(MAKE) --no-print-directory $(SRC_NB)/$(NAME).ipynb
	@mkdir -p $(OUT_NB)
	$(PAPERMILL) $(SRC_NB)/$(NAME).ipynb $(OUT_NB)/$(NAME).ipynb $(PARAMS)
	$(BIN)/python -m robolib.book.claims $(OUT_NB)/$(NAME).ipynb

# --all: the evidence pages and chapter 6 re-display the studies' glued outputs (robolib.book.evidence.reglue);
# their own sources rarely change, so an incremental build would keep the previous run's numbers on them.
book: notebooks
	$(BIN)/jupyter-book build book --all --warningiserror --keep-going --quiet
	@echo "The book is at: $(abspath book/_build/html/index.html)"

# ---- tests, benchmarks --------------------------------------------------------
browser:
	@tools/ensure_chromium.sh

test: $(STAMP) browser
	$(BIN)/ruff check --no-cache .
	$(BIN)/lint-imports --no-cache
	$(BIN)/python -m pytest --durations=20

# The fuzz tests (pytest marker fuzz, across tests/) with a larger budget: FUZZ_EXAMPLES bad values per argument (CI: 30) and
# property budgets scaled alike; HYPOTHESIS_PROFILE=explore draws fresh examples instead of the fixed CI ones.
FUZZ_EXAMPLES ?= 500
fuzz: $(STAMP)
	ROBOLIB_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest -m fuzz -q

bench: $(STAMP)
	$(BIN)/python -m bench

# Remake the stored runs of the clearance chapter: the bifurcation sweeps of both engines (data/gearshift/
# bifurcation.npz for the DAE, bifurcation_fast.npz for the fast model the book reads; on a 2-worker Dask
# LocalCluster) and the DAE's verdict study (data/gearshift/verdict_runs.json, by running the clearance study (python -m robolib.study) at
# its defaults with ROBOLIB_WRITE_STUDY_STORE=1). Needed after a change of the gear-shift model or its
# integrator: tests/gearshift/test_store.py fails until then.
bifurcation: $(STAMP)
	$(BIN)/python -m robolib.gearshift.store --workers 2
	$(BIN)/python -m robolib.gearshift.store --workers 2 --engine fast
	rm -f data/gearshift/verdict_runs.json
	@mkdir -p build/studies
	ROBOLIB_WRITE_STUDY_STORE=1 $(BIN)/python -m robolib.study clearance_dynamics -p engine dae --out build/studies

# The chapters' .md files open as notebooks on a double click (jupyter/overrides.json, the JupyterLab settings
# this workbench ships); jupytext.toml pairs each with build/lab/<name>.ipynb (ignored by git), which keeps its outputs.
lab: $(STAMP)
	@mkdir -p $(VENV)/share/jupyter/lab/settings build/lab
	cp jupyter/overrides.json $(VENV)/share/jupyter/lab/settings/overrides.json
	$(BIN)/jupyter lab --notebook-dir=. --ServerApp.default_url=/lab/tree/notebooks $(if $(filter 0,$(shell id -u)),--allow-root)

# Mutation testing of the kernel modules (mutmut, config [tool.mutmut] in pyproject.toml; tools/mutate.py):
# one worker, niced; prints killed / total per module. MODULES="contact stewart" narrows the modules.
MODULES    ?=
mutate: $(STAMP)
	nice -n 10 $(BIN)/python tools/mutate.py $(if $(MODULES),--only $(MODULES)) --survivors

# Re-resolve the pins from requirements.in (needs the package registry).
lock:
	$(PYTHON) tools/lock.py

clean:
	rm -rf build book/_build $(OUT_NB)/*.ipynb
