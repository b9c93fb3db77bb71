# make serve  - live preview on http://$(ADDR)/ (re-renders generated pages on every change)
# make test   - the whole test suite (site build, generator, doc examples), one worker process per core (up to 4)
# make build  - strict build of the site into site/
# make render - rewrite docs/generated/*.md from aliases.yaml and templates/
# make setup  - only the environment: .venv, the pinned axe-core the browser tests inject, the Try it page's runtime
# Every target first creates .venv, or refreshes it when requirements.txt changed.

PYTHON ?= python3
ADDR ?= 127.0.0.1:8000
VENV := .venv
STAMP := $(VENV)/.requirements.stamp
TORCH := torch==2.13.0
# axe-core, the accessibility engine tests/test_browser.py injects into every page, from the npm registry
# (pinned; npm checks the tarball against the registry's integrity hash). The test reads this line.
AXE_CORE_VERSION := 4.14.1
AXE := .cache/axe-core-$(AXE_CORE_VERSION)/axe.min.js
# The Try it page's runtime: Pyodide (npm), PyYAML's sdist and packaging's wheel, pinned with their sha256 in this file
# (generator/pages/playground.py downloads them, and every site build checks them before publishing).
PLAYGROUND_PINS := generator/pages/playground.pins
PLAYGROUND := .cache/playground/.fetched

# Material 9.8 prints a multi-line MkDocs 2.0 notice on every build; it changes nothing.
export NO_MKDOCS_2_WARNING := 1

.PHONY: serve test build render setup

# --livereload: with Click 8.2.2-8.3.x `mkdocs serve` silently runs without it.
serve: $(STAMP) $(PLAYGROUND)
	$(VENV)/bin/mkdocs serve --livereload -a $(ADDR)

setup: $(STAMP) $(AXE) $(PLAYGROUND)

# PYTHONDONTWRITEBYTECODE emptied: the suite starts about 460 Python processes, 32 of them importing torch and
# transformers from release environments installed without bytecode; with it set (as on our CI machines), each one
# compiled the same modules again (measured: 19% of test_rehearse.py's CPU time). The bytecode goes to ignored
# __pycache__/ folders.
test: $(STAMP) $(AXE) $(PLAYGROUND)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	PYTHONDONTWRITEBYTECODE= $(VENV)/bin/python -m pytest -n auto --maxprocesses 4 --dist loadfile --no-loadscope-reorder

build: $(STAMP) $(PLAYGROUND)
	$(VENV)/bin/mkdocs build --strict

render: $(STAMP)
	$(VENV)/bin/python -m generator render

# torch goes first, on its own, so requirements.txt (transformers, accelerate) finds it installed
# instead of resolving a torch of its own. /opt/wheels holds the local CPU wheel where it exists.
# (Changing TORCH here does not refresh the venv; touch requirements.txt or delete .venv.)
# Last, the project itself, editable and without dependencies (they are the pins above): that installs the
# `checkpointing-migrate` console script and the pytest plugin's entry point.
$(STAMP): requirements.txt pyproject.toml
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	if [ -d /opt/wheels ]; then links="--find-links /opt/wheels"; else links=; fi; \
	$(VENV)/bin/pip install $$links $(TORCH) && \
	$(VENV)/bin/pip install $$links -r requirements.txt && \
	$(VENV)/bin/pip install --no-deps --no-build-isolation -e .
	touch $@

# Unpacked next to nothing else, then moved into place: an interrupted download leaves no $(AXE).
$(AXE):
	rm -rf $(@D).tmp && mkdir -p $(@D).tmp
	cd $(@D).tmp && npm pack --silent axe-core@$(AXE_CORE_VERSION) >/dev/null && tar -xzf axe-core-$(AXE_CORE_VERSION).tgz
	rm -rf $(@D) && mv $(@D).tmp/package $(@D) && rm -rf $(@D).tmp

# Each file is checked against its pinned sha256 before it is moved into place; the stamp follows the pins file.
$(PLAYGROUND): $(PLAYGROUND_PINS) $(STAMP)
	$(VENV)/bin/python -m generator.pages.playground fetch
	touch $@
