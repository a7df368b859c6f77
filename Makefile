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

DEMO_MATCHES ?= 400
DEMO_SWEEP   ?= 200
DEMO_JOBS    ?= 2
DEMO_RUN     := results/demo-learned-$(DEMO_MATCHES)
DEMO_GAP     := results/demo-learned-basic-$(DEMO_MATCHES)
DEMO_GRID    := results/demo-sweep-$(DEMO_SWEEP)
FIVE         := --variant school-2016 --variant huizhou --variant baiyun-2016 --variant two-deck-2011 --variant guangxi-2012

# the five tournaments under learned self-play (the calibrated policy: docs/policies.md), then the stronger
# pair (learned against basic), then an organiser's question (bottom 6 or 10, capture x2 or x3) as one sweep
# and one compare, and the sweep's report. Every run plays learned with the three heuristics, the engine's
# learned set, whose first compile takes about 1.5 min (docs/performance.md, "Compilation").
demo: $(STAMP)
	$(BIN)/simsuite variants
	$(BIN)/simsuite judge examples/scenarios/follow-3plus3.toml --variant all
	$(BIN)/simsuite simulate $(FIVE) --policies learned --matches $(DEMO_MATCHES) --jobs $(DEMO_JOBS) --seed 1 \
		--out $(DEMO_RUN)
	$(BIN)/simsuite summary $(DEMO_RUN)
	$(BIN)/simsuite simulate $(FIVE) --policies learned,basic --matches $(DEMO_MATCHES) --jobs $(DEMO_JOBS) --seed 1 \
		--out $(DEMO_GAP)
	$(BIN)/simsuite summary $(DEMO_GAP)
	$(BIN)/simsuite sweep --variant school-2016 --grid bottom_size=6,10 --grid capture_per_card=2,3 \
		--policies learned --matches $(DEMO_SWEEP) --jobs $(DEMO_JOBS) --seed 1 --out $(DEMO_GRID) --quiet
	$(BIN)/simsuite compare $(DEMO_GRID)
	$(BIN)/simsuite report $(DEMO_GRID) -o $(DEMO_GRID)/report.html
	$(BIN)/simsuite explore $(DEMO_GRID) -o $(DEMO_GRID)/explorer.html

# two pytest-xdist workers; each compiles one of the engine's two loop sets (tests/conftest.py). The suite
# includes the import contracts (pyproject.toml's [tool.importlinter], run by tests/test_layers.py)
# Each worker's BLAS runs one thread: two workers already fill two cores, and a second BLAS thread
# would only take cycles from the other worker's compile.
TEST_JOBS ?= 2

test: $(STAMP)
	OPENBLAS_NUM_THREADS=1 $(BIN)/python -m pytest -q -n $(TEST_JOBS)

# execute every notebook at full scale, in place (outputs kept in the .ipynb files), once the claims files
# agree with their registry (notebooks/claims/README.md); the sweeps run with 2 worker processes and go to
# results/notebooks/ (a run already there is resumed or reused); then docs/findings.md is generated from the
# notebooks' saved outputs (their answers, marks and fingerprints; notebooks/findings/ holds its fixed parts).
# The kernel's connection is encrypted (CurveZMQ, where the kernel supports it): over plain TCP ipykernel warns.
notebooks: $(STAMP)
	$(BIN)/python notebooks/_common.py check-claims
	cd notebooks && SIMSUITE_QUICK=0 SIMSUITE_JOBS=2 $(abspath $(BIN))/jupyter nbconvert --to notebook --execute \
		--inplace --ExecutePreprocessor.timeout=1800 --ExecutePreprocessor.kernel_name=python3 \
		--KernelManager.transport_encryption=auto [0-9][0-9]-*.ipynb
	$(BIN)/python notebooks/_common.py findings docs/findings.md notebooks/[0-9][0-9]-*.ipynb

# docs/report-run.png, docs/report-sweep.png, docs/report-design.png: Chromium's screenshots of the top of the
# pages of a current run (the docs/report.md example), a step x take-over sweep and the tiny test design, each
# reduced to a 128-colour palette (about a fifth of the size). Needs a chromium binary: apt-get install -y chromium
CHROMIUM ?= $(shell command -v chromium || command -v chromium-browser || command -v google-chrome)
SHOT = $(CHROMIUM) --headless=new --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=10000
report-png: $(STAMP)
	@test -n "$(CHROMIUM)" || { echo "report-png: no chromium on PATH (apt-get install -y chromium)"; exit 2; }
	rm -rf results/example results/example-sweep results/example-design
	$(BIN)/simsuite simulate --variant school-2016 --variant two-deck-2011 --matches 300 --duplicate --seed 1 \
		--out results/example --quiet
	$(BIN)/simsuite report results/example -o results/example/report.html
	printf 'base = "two-deck-2011"\nmatches = 200\nseed = 1\npolicies = "expert,basic"\n\n[grid]\nstep = [20, 30, 40]\ntakeover = [80, 100, 120]\n' \
		> results/example-sweep.toml
	$(BIN)/simsuite sweep results/example-sweep.toml --out results/example-sweep --jobs 2 --quiet
	$(BIN)/simsuite report results/example-sweep -o results/example-sweep/report.html
	$(BIN)/simsuite design tests/designs/tiny.toml --out results/example-design --quiet > /dev/null
	$(BIN)/simsuite report results/example-design -o results/example-design/report.html
	$(SHOT) --window-size=1280,1900 --screenshot=docs/report-run.png file://$(abspath results/example/report.html)
	$(SHOT) --window-size=1280,1900 --screenshot=docs/report-sweep.png file://$(abspath results/example-sweep/report.html)
	$(SHOT) --window-size=1280,1500 --screenshot=docs/report-design.png \
		file://$(abspath results/example-design/report.html)
	$(BIN)/python -c "import sys; from PIL import Image; \
		[Image.open(p).convert('RGB').quantize(128).save(p, optimize=True) for p in sys.argv[1:]]" \
		docs/report-run.png docs/report-sweep.png docs/report-design.png

# rewrite tests/golden/*.txt from the current engine (review the diff before committing)
golden: $(STAMP)
	SIMSUITE_REGEN_GOLDEN=1 $(BIN)/python -m pytest -q tests/test_golden.py

clean-cache:
	find simsuite -name "*.nbi" -delete; find simsuite -name "*.nbc" -delete

clean: clean-cache
	rm -rf $(VENV) build *.egg-info .pytest_cache
