# simsuite: the two commands that set everything up on a fresh machine.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test install clean clean-cache golden notebooks report-png

# uv installs the same packages from the same index (PyPI) as pip, in seconds instead of half a minute
# (README, "Two commands"); where uv cannot be installed, pip does the work. Neither writes bytecode
# here: uv only when asked, and these machines set PYTHONDONTWRITEBYTECODE, so that every process (each
# test worker, CLI subprocess, pool worker and kernel) would compile its imports from source, about 3 s
# each (docs/performance.md, "The test suite on two workers"). The commands below run without that
# variable instead: the first process to import a module writes its bytecode into .venv (or simsuite/),
# and the others load it. That writes only what is imported, where `uv pip install --compile-bytecode`
# compiled every installed package, 10 s of each fresh install (docs/performance.md, "Bytecode when
# imported").
unexport PYTHONDONTWRITEBYTECODE

# The venv starts without pip (ensurepip alone took 3.7 s), and the system's pip puts uv into it
# (`pip --python`, pip 22.3 or later); failing that, the venv's own pip does.
$(BIN)/python:
	$(PYTHON) -m venv --without-pip $(VENV) || python3 -m venv --without-pip $(VENV)
	$(PYTHON) -m pip --python $(BIN)/python install -q uv 2>/dev/null \
		|| { $(BIN)/python -m ensurepip >/dev/null && $(BIN)/python -m pip install -q uv; } \
		|| echo "make: uv not available, installing with pip"

$(STAMP): pyproject.toml | $(BIN)/python
	if [ -x $(BIN)/uv ]; then $(BIN)/uv pip install -q --python $(BIN)/python -e ".[test]"; \
	else { $(BIN)/python -m pip --version >/dev/null 2>&1 || $(BIN)/python -m ensurepip >/dev/null; } \
		&& $(BIN)/python -m pip install -q --upgrade pip && $(BIN)/python -m pip install -q -e ".[test]"; fi
	touch $(STAMP)

install: $(STAMP)

DEMO_MATCHES ?= 1000
DEMO_SWEEP   ?= 300
DEMO_JOBS    ?= 2
DEMO_RUN     := results/demo-learned-$(DEMO_MATCHES)
DEMO_PAIR    := results/demo-learned-basic-$(DEMO_MATCHES)
DEMO_GRID    := results/demo-sweep-$(DEMO_SWEEP)
FIVE         := --variant school-2016 --variant huizhou --variant baiyun-2016 --variant two-deck-2011 --variant guangxi-2012

# the five tournaments under realistic play (learned self-play), the stronger pair (learned against basic),
# then an organiser's question (bottom 6 or 10, capture x2 or x3) as one sweep and one compare, and the report
demo: $(STAMP)
	$(BIN)/simsuite variants
	$(BIN)/simsuite judge examples/scenarios/follow-3plus3.toml --variant all
	$(BIN)/simsuite simulate $(FIVE) --policies learned,learned --matches $(DEMO_MATCHES) --jobs $(DEMO_JOBS) --seed 1 \
		--out $(DEMO_RUN)
	$(BIN)/simsuite summary $(DEMO_RUN)
	$(BIN)/simsuite simulate $(FIVE) --policies learned,basic --matches $(DEMO_MATCHES) --jobs $(DEMO_JOBS) --seed 1 \
		--out $(DEMO_PAIR) --quiet
	$(BIN)/simsuite summary $(DEMO_PAIR)
	$(BIN)/simsuite sweep --variant school-2016 --grid bottom_size=6,10 --grid capture_per_card=2,3 \
		--policies learned,learned --matches $(DEMO_SWEEP) --jobs $(DEMO_JOBS) --seed 1 --out $(DEMO_GRID) --quiet
	$(BIN)/simsuite compare $(DEMO_GRID)
	$(BIN)/simsuite report $(DEMO_RUN) -o $(DEMO_RUN)/report.html

# two pytest-xdist workers; each compiles one of the engine's two loop sets (tests/conftest.py). The suite
# includes the import contracts (pyproject.toml's [tool.importlinter], run by tests/test_layers.py)
TEST_JOBS ?= 2

test: $(STAMP)
	$(BIN)/python -m pytest -q -n $(TEST_JOBS)

# execute every notebook at full scale, in place (outputs kept in the .ipynb files), once the claims files
# agree with their registry (notebooks/claims/README.md); the sweeps run with 2 worker processes and go to
# results/notebooks/ (a run already there is resumed or reused); then each notebook's robust /
# policy-dependent / undecided marks replace its <!-- marks NN --> block in docs/findings.md
notebooks: $(STAMP)
	$(BIN)/python notebooks/_common.py check-claims
	cd notebooks && SIMSUITE_QUICK=0 SIMSUITE_JOBS=2 $(abspath $(BIN))/jupyter nbconvert --to notebook --execute \
		--inplace --ExecutePreprocessor.timeout=1800 --ExecutePreprocessor.kernel_name=python3 [0-9][0-9]-*.ipynb
	$(BIN)/python notebooks/_common.py marks docs/findings.md notebooks/[0-9][0-9]-*.ipynb \
		--note "*Marks from the full run (\`make notebooks\`), written by \`notebooks/_common.py marks\`.*"

# docs/report.png: a current run of the docs/report.md example, its HTML report, and Chromium's screenshot of it
# (needs a chromium binary: apt-get install -y chromium)
CHROMIUM ?= $(shell command -v chromium || command -v chromium-browser || command -v google-chrome)
report-png: $(STAMP)
	rm -rf results/example
	$(BIN)/simsuite simulate --variant school-2016 --variant two-deck-2011 --matches 300 --duplicate --seed 1 \
		--out results/example --quiet
	$(BIN)/simsuite report results/example -o results/example/report.html
	@test -n "$(CHROMIUM)" || { echo "report-png: no chromium on PATH (apt-get install -y chromium)"; exit 2; }
	$(CHROMIUM) --headless=new --no-sandbox --disable-gpu --hide-scrollbars --screenshot=docs/report.png \
		--window-size=1280,4800 file://$(abspath results/example/report.html)

# rewrite tests/golden/*.txt from the current engine (review the diff before committing)
golden: $(STAMP)
	SIMSUITE_REGEN_GOLDEN=1 $(BIN)/python -m pytest -q tests/test_golden.py

clean-cache:
	find simsuite -name "*.nbi" -delete; find simsuite -name "*.nbc" -delete

clean: clean-cache
	rm -rf $(VENV) build *.egg-info .pytest_cache
