# engine.cloud: build, test and demo. GNU make; every target installs what it needs itself
# (a virtualenv with the pinned requirements-dev.txt), so a fresh clone needs only python3.
# `make help` lists the targets.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:

PYTHON ?= python3
VENV ?= .venv
# Run a subset of the integration targets: make integration TARGETS="simulator_health service"
TARGETS ?=

ROOT := $(CURDIR)
VENV_DIR := $(abspath $(VENV))
BIN := $(VENV_DIR)/bin
STAMP := $(VENV_DIR)/.requirements-dev.stamp
VERSION := $(shell sed -n 's/^version: *//p' galaxy.yml)
TARBALL := dist/engine-cloud-$(VERSION).tar.gz
LAYOUT := build/ansible_collections/engine/cloud

# The venv's tools come first for every recipe (ansible-test, ansible-galaxy, ansible-lint, ...).
export PATH := $(BIN):$(PATH)
# A machine's environment may set PYTHONDONTWRITEBYTECODE (this project's machines do): every Python
# process then compiles every module it imports from source, every time (an ansible-playbook start
# took 1.0 CPU-s instead of 0.5). make's processes write the bytecode once, into the venvs,
# ansible-test's environments and each stage's collection copy, and read it from then on.
unexport PYTHONDONTWRITEBYTECODE
# The uv that scripts/pip_install.sh makes venvs and installs with (requirements-uv.txt).
export INSTALLER_UV := $(BIN)/uv

.PHONY: help quick venv venv-2.16 venv-2.21 units-2.16 units-2.21 integration-2.16 integration-2.21 demo-2.16 demo-2.21 sanity-2.21 layout build install simulator sanity lint units simtests integration integration-group1 integration-group2 integration-group3 demo test changelog constraints release clean

help:
	@echo "Build and try:"
	@echo "  make venv           create $(VENV) and install requirements-dev.txt, held to constraints.txt (only when one changed)"
	@echo "  make layout         copy the tree to $(LAYOUT) (what ansible-test needs)"
	@echo "  make build          build $(TARBALL)"
	@echo "  make install        install it into .collections/ (then: export ANSIBLE_COLLECTIONS_PATH=\$$PWD/.collections)"
	@echo "  make simulator      run the API simulator on 127.0.0.1:$(SIM_PORT) until Ctrl-C; prints the ENGINE_* exports"
	@echo "  make demo           build, install, start the simulator, run playbooks/demo.yml"
	@echo "Test:"
	@echo "  make quick          the daily loop: units, simtests and lint side by side (about a minute)"
	@echo "  make test           every stage of TEST_STAGES, side by side in TEST_LANES; summary at the end:"
	@echo "                      $(TEST_STAGES)"
	@echo "  make sanity         ansible-test sanity (--venv, Python 3.11)"
	@echo "  make lint           ansible-lint --profile production"
	@echo "  make units          pytest tests/unit (from a layout copy)"
	@echo "  make simtests       pytest tests/simulator and tests/tools (the test tooling)"
	@echo "  make integration    ansible-test integration against a private simulator [TARGETS=...]"
	@echo "  make integration-group1, integration-group2, integration-group3"
	@echo "                      a third of the integration targets each (make test's lanes)"
	@echo "  make reliability    faults, bad input, secrets, TLS, load (tests/reliability) [RELIABILITY_LOAD=0: no load run]"
	@echo "  make load           the reliability suite's load run only"
	@echo "  make docs-venv      add requirements-docs.txt to $(VENV) (what docs, docs-lint, e2e and galaxy-importer need)"
	@echo "  make docs           the module and role reference and the guides as HTML, into build/docs"
	@echo "  make docs-lint      antsibull-docs lint-collection-docs --plugin-docs"
	@echo "  make e2e            tests/e2e: AWX runner job, module EXAMPLES, guides, execution environment, the artifact"
	@echo "  make galaxy-importer  the import check Galaxy runs, on the tarball of make build"
	@echo "Events (ansible-rulebook in .venv-eda, from requirements-eda.txt; needs java 17):"
	@echo "  make venv-eda       create .venv-eda (ansible-rulebook, held to constraints-eda.txt)"
	@echo "  make events         both shipped rulebooks in one ansible-rulebook run against a private simulator"
	@echo "  make demo-events    the loop: a CPU alert fires and clears, the service is scaled up and back"
	@echo "Version matrix (ansible-core 2.16 and 2.21, each in .venv-<line>):"
	@echo "  make venv-2.16, venv-2.21                 create .venv-<line> from requirements-<line>.txt"
	@echo "  make units-2.16, units-2.21               the unit tests on that line (2.16: ansible-test units on the installed artifact)"
	@echo "  make integration-2.16, integration-2.21   MATRIX_TARGETS ($(MATRIX_TARGETS))"
	@echo "  make demo-2.16, demo-2.21                 the demo, built and installed by that line"
	@echo "  make sanity-2.21                          ansible-test sanity on 2.21 (Python 3.13)"
	@echo "Measure (not part of make test):"
	@echo "  make bench          the cost of a task, polling and scale; rewrites docs/performance.md [BENCH_ARGS=...]"
	@echo "  make bench-fleet    fleet jobs at the live rate limit [FLEET_ARGS=...]"
	@echo "  make bench-observability  30 dashboards and 200 alerts: the requests of an export applied [OBSERVABILITY_ARGS=...]"
	@echo "Maintain:"
	@echo "  make constraints    resolve the requirements files again into constraints.txt and constraints-<line>.txt"
	@echo "  make changelog      lint the changelog fragments (changelogs/fragments/)"
	@echo "  make release        fold the fragments into the $(VERSION) release: changelogs/changelog.yaml, CHANGELOG.rst"
	@echo "  make clean          remove build/, dist/, .collections/, tests/output/, the venvs' bytecode caches (keeps the venvs)"
	@echo "  make help           this list"

venv: $(STAMP)

# The stamp is newer than the requirements files once they are installed: an unchanged file does
# not reinstall. pip installs uv (requirements-uv.txt), then uv the rest (scripts/pip_install.sh:
# 1 CPU-second where pip took 13; pip again if uv fails). Neither compiles bytecode at install time:
# Python writes the bytecode of what is imported when it is first imported, in the stages that run
# side by side on both cores, instead of one core compiling every installed file before they start.
# The venv's module processes share their compiled imports (scripts/zipimport_cache.py), and in the
# integration stages, the matrix's demos, e2e and the reliability suite fork from a zygote (scripts/module_zygote.py).
# Both files installed into .venv (requirements-dev.txt here, requirements-docs.txt by docs-venv, while
# other stages already run from it) are held to constraints.txt, one resolution of the two: the second
# install only adds packages and never replaces one that a running stage imports. Left free, the two
# resolved attrs differently (26.1.0 and 23.2.0, galaxy-importer's attrs<24), and the simulators
# that reliability started during the swap failed on a missing attrs.
$(STAMP): requirements-dev.txt requirements-uv.txt constraints.txt scripts/zipimport_cache.py scripts/module_zygote.py scripts/site_hook.py
	@test -x $(BIN)/python || { echo "venv: creating $(VENV)"; $(PYTHON) -m venv $(VENV_DIR); }
	@$(BIN)/python -m pip install -qq --no-compile --disable-pip-version-check -r requirements-uv.txt \
	    || echo "venv: uv could not be installed; pip installs everything" >&2
	@scripts/pip_install.sh $(VENV_DIR) requirements-dev.txt constraints.txt
	@$(BIN)/python scripts/zipimport_cache.py install
	@$(BIN)/python scripts/module_zygote.py install
	@touch $@

layout:
	@$(PYTHON) scripts/layout.py $(LAYOUT)

build: venv
	@$(PYTHON) scripts/layout.py build/src/ansible_collections/engine/cloud
	@rm -rf dist && mkdir -p dist
	ansible-galaxy collection build build/src/ansible_collections/engine/cloud --output-path dist --force
	@test -f $(TARBALL)

install: build
	ANSIBLE_COLLECTIONS_PATH=$(ROOT)/.collections ansible-galaxy collection install -p .collections --force $(TARBALL)
	@echo "install: for ansible and ansible-playbook to find it: export ANSIBLE_COLLECTIONS_PATH=$(ROOT)/.collections"

# The simulator in the foreground, to try playbooks by hand against it. Once it listens, it prints what
# the getting-started guide's second shell runs: the venv, the collections path (and no warnings about
# the inventory that an ad-hoc run on localhost does not need), and the exports that point the modules
# at it with the fixture's credentials (tests/simulator/fixture_ids.py). A busy port fails naming SIM_PORT.
SIM_PORT ?= 8080
simulator: venv
	@python -m tests.simulator --host 127.0.0.1 --port $(SIM_PORT) \
	    --say "simulator: both APIs at http://127.0.0.1:$(SIM_PORT) until Ctrl-C. In another shell, in this directory:" \
	    --say '. .venv/bin/activate' \
	    --say 'export ANSIBLE_COLLECTIONS_PATH=$$PWD/.collections ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_INVENTORY_UNPARSED_WARNING=false' \
	    --exports || { status=$$?; if [ $$status -eq 3 ]; then \
	    echo "simulator: port $(SIM_PORT) is in use; stop what listens there, or choose another: make simulator SIM_PORT=$$(( $(SIM_PORT) + 1 ))" >&2; \
	    fi; exit $$status; }

# sanity, lint and units each work on a private layout copy (the same copy `make layout` makes,
# but in a mktemp directory, removed afterwards): several people share this working tree, and two
# runs writing to one build/ would pull files from under each other. Inside a recipe,
# $(PRIVATE_LAYOUT) leaves the copy's collection root in $$coll and its collections path in $$tmp.
PRIVATE_LAYOUT = tmp=$$(mktemp -d "$${TMPDIR:-/tmp}/engine-cloud-$@.XXXXXX"); trap 'rm -rf "$$tmp"' EXIT; \
	coll="$$tmp/ansible_collections/engine/cloud"; $(PYTHON) scripts/layout.py "$$coll"

# --venv: ansible-test makes its own virtualenvs (under ~/.ansible/test) with each test's pinned
# requirements from PyPI. Their pip bootstrap script is normally downloaded from a host this
# machine cannot reach; scripts/get_pip_standin.py takes its place in the cache (see there).
# The pip it installs hands `pip install` and `pip uninstall` to .venv's uv (make sanity's environments,
# --prime-venvs with a new HOME: 24.9 CPU-s with pip, 13.4 with uv).
# $(call PIP_STANDIN,VENV): the stand-in for the pip version that VENV's ansible-test asks for.
PIP_STANDIN = pip_version=$$(sed -n "s/^ *pip='\([0-9.]*\)',$$/\1/p" $(1)/lib/python3*/site-packages/ansible_test/_internal/python_requirements.py); \
	$(PYTHON) scripts/get_pip_standin.py --install-cache "$${pip_version:?cannot find ansible-test pip version}" \
	    $$(test -x $(BIN)/uv && echo --uv $(BIN)/uv)
sanity: venv
	@$(call PIP_STANDIN,$(VENV_DIR))
	@$(PRIVATE_LAYOUT); \
	cd "$$coll" && ansible-test sanity --venv --python 3.11 --color no -v

# From the repository root (ansible-lint reads galaxy.yml and .ansible-lint there), with a layout
# copy on the collections path so that engine.cloud.* modules and roles resolve (with
# offline: true in .ansible-lint, ansible-lint does not make the repository importable as the
# collection by itself).
lint: venv
	@$(PRIVATE_LAYOUT); \
	ANSIBLE_COLLECTIONS_PATH="$$tmp" ansible-lint --profile production --nocolor

units: venv
	@if ! find tests/unit -name 'test_*.py' 2>/dev/null | grep -q .; then \
	    echo "units: no tests under tests/unit yet: skipped"; exit 0; fi; \
	$(PRIVATE_LAYOUT); \
	cd "$$coll" && PYTHONPATH="$$tmp" python -m pytest tests/unit -q -p no:cacheprovider

simtests: venv
	@if ! find tests/simulator -name 'test_*.py' 2>/dev/null | grep -q .; then \
	    echo "simtests: no tests under tests/simulator yet: skipped"; exit 0; fi; \
	python -m pytest tests/simulator tests/tools -q -p no:cacheprovider

integration: venv
	VENV=$(VENV_DIR) scripts/integration.sh $(TARGETS)

# A third of the targets each (the group1, group2 or group3 alias of every target), for make test's lanes.
integration-group1 integration-group2 integration-group3: venv
	VENV=$(VENV_DIR) scripts/integration.sh $(@:integration-%=%)/

demo: install
	VENV=$(VENV_DIR) scripts/demo.sh

# Runs every stage even when one fails, then prints a summary (each stage's result and time,
# the wall time, and a closing `stages: N passed, N failed` line); exits non-zero if any failed.
# The stages run in lanes side by side (TEST_LANES: one quoted string per lane, its stages in
# order); each stage works in its own temporary copy with its own simulator, and its output goes to
# tests/output/stages/<stage>.log. The venv is installed first; docs-venv (what the docs, e2e and
# Galaxy stages add to it) is a stage at the start of a lane, so its install runs beside the first
# stages instead of before them (its recipe holds a lock: two lanes may need it at once).
# `make test TEST_STAGES="lint units"` runs a subset.
TEST_STAGES ?= sanity lint units simtests integration-group1 integration-group2 integration-group3 reliability \
	$(MATRIX_STAGES)
# Five lanes of about even CPU time. Each lane beyond what keeps the two cores busy only adds
# processes that queue for a core, and a process that shares its core costs more CPU time
# (CONTRIBUTING.md, "Lanes and the run queue", has the figures). The reliability suite and e2e wait
# more than they compute (retry waits, timeouts, paced playbook runs), so each leads a lane that
# takes less after it.
TEST_LANES ?= "integration-group3 sanity" "docs-venv integration-group1 docs sanity-2.21" \
	"integration-group2 lint units docs-lint simtests galaxy-importer" "e2e events units-2.16 integration-2.16" \
	"reliability units-2.21 integration-2.21 demo-2.21 demo-2.16"
test: venv
	@python scripts/stages.py --log-dir tests/output/stages --only "$(TEST_STAGES)" $(TEST_LANES)

changelog: venv
	antsibull-changelog lint

# Every venv of make test is pinned whole, so that a release on the index between two runs changes
# nothing: constraints.txt holds .venv (requirements-dev.txt and requirements-docs.txt resolved
# together, see $(STAMP)), constraints-<line>.txt the matrix's .venv-<line>. This resolves them
# again; run it after changing a requirements file, then commit the result.
# $(call COMPILE,OUTPUT,PYTHON VERSION,REQUIREMENTS): REQUIREMENTS resolved into OUTPUT, whose header stays.
COMPILE = $(BIN)/uv pip compile --quiet --universal --python-version $(2) --no-header $(3) -o $(1).new \
	&& { sed '/^$$/q' $(1); cat $(1).new; } > $(1).tmp && mv $(1).tmp $(1) && rm $(1).new
constraints:
	@test -x $(BIN)/uv || { echo "constraints: $(BIN)/uv is missing; run make venv first" >&2; exit 1; }
	$(call COMPILE,constraints.txt,3.11,requirements-dev.txt requirements-docs.txt)
	$(call COMPILE,constraints-2.16.txt,3.11,requirements-2.16.txt)
	$(call COMPILE,constraints-2.21.txt,3.12,requirements-2.21.txt)
	$(call COMPILE,constraints-eda.txt,3.11,requirements-eda.txt)

# The loop for daily work: what most changes need (the unit tests, the simulator's tests, lint), side
# by side, each stage's output in one piece (-O). make test stays the one command that runs everything.
quick: venv
	@$(MAKE) --no-print-directory -j3 -O units simtests lint VENV=$(VENV)

# Folds every fragment of changelogs/fragments/ into the release of galaxy.yml's version
# (changelogs/changelog.yaml, CHANGELOG.rst, changelogs/.plugin-cache.yaml) and removes the
# fragments; the plugins are read again (--reload-plugins), so the modules and plugins whose
# version_added is that version are listed as new. scripts/check_release.py refuses first a version
# that has a released section already (bump galaxy.yml's version instead) or a bump smaller than the
# fragments call for (CONTRIBUTING.md, "What ships, and releasing").
release: changelog
	python scripts/check_release.py
	antsibull-changelog release --reload-plugins

clean:
	rm -rf build dist .collections tests/output $(VENV_DIR)/.zipimport-cache .venv-*/.zipimport-cache

# ---- reliability suite (tests/reliability/, owned by the reliability engineer) ----------------
# Faults, bad input, secrets, TLS and load, through real ansible-playbook runs against private
# simulators; rewrites docs/reliability.md from what it measured after a complete run.
# `make reliability RELIABILITY_LOAD=0` leaves out the 50-host load run; `make load` runs only it.
RELIABILITY_LOAD ?= 1
.PHONY: reliability load
reliability: venv
	RELIABILITY_LOAD=$(RELIABILITY_LOAD) python -m pytest tests/reliability -q -p no:cacheprovider -rfEX

load: venv
	RELIABILITY_LAZY=1 python -m pytest tests/reliability/test_load.py -q -s -p no:cacheprovider

# ---- benchmark (bench/, owned by the performance engineer) ------------------------------------
# The cost of a task: every module next to ansible.builtin.ping (the floor) and ansible.builtin.uri,
# polling and scale, against a private simulator; rewrites docs/performance.md. A measurement, not
# a test (never fails on a slow machine), not part of `make test`; about 45 minutes on 2 cores.
# Options: make bench BENCH_ARGS="--n 10 --repeats 3 --polling 5 --only service_info"
BENCH_ARGS ?=
.PHONY: bench
bench: venv
	python bench/bench.py $(BENCH_ARGS)

# Fleet jobs at the live rate limit (bench/fleet.py, shared reads): start/stop N services and create/delete
# N pipes with forks N, next to the floor measured in the same run, and two controllers on one key. Prints
# the tables of docs/performance.md's "Fleet jobs" (not written there by itself); about 15 minutes.
# Options: make bench-fleet FLEET_ARGS="--sizes 20 --two-controllers 0 --sharing on,off"
FLEET_ARGS ?=
.PHONY: bench-fleet
bench-fleet: venv
	python bench/fleet.py $(FLEET_ARGS)

# A team's dashboards and alerts as code at the token's budget (bench/observability.py, kept reads): 30 dashboards
# and 200 alerts exported, the export applied twice (no change) and once with one alert changed, each run's requests
# from the simulator's log, beside the unpaced floor in the same run. Prints docs/performance.md's "Dashboards and
# alerts at scale" table; about 25 minutes and 400 CPU-seconds on 2 cores (--before adds the run without kept reads).
# Options: make bench-observability OBSERVABILITY_ARGS="--dashboards 10 --alerts 50 --before"
OBSERVABILITY_ARGS ?=
.PHONY: bench-observability
bench-observability: venv
	python bench/observability.py $(OBSERVABILITY_ARGS)

# ---- docs, AWX and release checks (docs/, roles/, tests/e2e/, owned by the roles/docs engineer) --
# Tools pinned in requirements-docs.txt, installed once into the same venv (stamp file).
#   make docs             module/role reference + docs/docsite guides as HTML (antsibull-docs, Sphinx)
#   make docs-lint        antsibull-docs lint-collection-docs --plugin-docs
#   make e2e              tests/e2e: a job through ansible-runner with the AWX credential type's
#                         environment, every module's EXAMPLES against the simulator, ansible-builder
#                         create/introspect of meta/execution-environment.yml, the paths the documents
#                         name, the getting-started steps as written, the Galaxy artifact on its own
#   make galaxy-importer  the import check Galaxy runs, on the tarball of `make build`
DOCS_STAMP := $(VENV_DIR)/.requirements-docs.stamp
TEST_STAGES += docs-venv docs-lint docs e2e galaxy-importer
.PHONY: docs-venv docs docs-lint e2e galaxy-importer

docs-venv: $(DOCS_STAMP)

$(DOCS_STAMP): requirements-docs.txt constraints.txt $(STAMP)
	@echo "venv: installing requirements-docs.txt"
	@flock $(VENV_DIR)/.requirements-docs.lock scripts/pip_install.sh $(VENV_DIR) requirements-docs.txt constraints.txt
	@touch $@

docs: docs-venv layout
	docs/build.sh $(ROOT)/build $(ROOT)/build/docs

docs-lint: docs-venv layout
	cd $(LAYOUT) && antsibull-docs lint-collection-docs --plugin-docs .

e2e: docs-venv
	python -m pytest tests/e2e -q -p no:cacheprovider -rfE

galaxy-importer: docs-venv build
	@# galaxy-importer writes importer_result.json into its working directory: keep it in dist/.
	cd dist && GALAXY_IMPORTER_CONFIG=$(ROOT)/tests/e2e/galaxy-importer.cfg python -m galaxy_importer.main $(notdir $(TARBALL))

# ---- version matrix: the oldest ansible-core line that meta/runtime.yml claims and the newest ----
# that pip gives, beside the pinned one of .venv (requirements-dev.txt). Each line has its own venv,
# .venv-<line>, from requirements-<line>.txt (pinned; held to constraints-<line>.txt), made by
# scripts/line_venv.sh when a stage first needs it: 2.16 with $(PYTHON) (3.11, as .venv), 2.21 with
# Python 3.13 (2.21 needs 3.12 or later on the controller), found by scripts/find_python.sh
# (python3.13 on PATH, or pyenv's).
# On each line: the unit tests, the integration targets that exercise templating (MATRIX_TARGETS:
# the lookup, the inventory plugin, module_defaults groups, the roles in loops and the role whose
# results are computed by templates) and the demo; sanity on 2.21 too (make sanity is the pinned
# line's). make test runs them as stages (MATRIX_STAGES).
MATRIX_TARGETS ?= lookup_chart_series inventory_services action_groups role_loops role_metrics_gate_matrix
MATRIX_STAGES := units-2.16 integration-2.16 demo-2.16 units-2.21 integration-2.21 demo-2.21 sanity-2.21
LINE_PYTHON_2.16 = $(PYTHON)
LINE_PYTHON_2.21 = "$$(scripts/find_python.sh 3.13)"

venv-2.16 venv-2.21: venv-%: venv
	@scripts/line_venv.sh $(ROOT)/.venv-$* requirements-$*.txt $(LINE_PYTHON_$*) constraints-$*.txt

# units-2.16 runs the unit tests as a packager does, with `ansible-test units` on the artifact that
# line's ansible-galaxy built and installed (only the shipped files, its tests/unit/requirements.txt
# already in .venv-2.16); units-2.21 runs pytest on a layout copy, as make units does. One worker: each
# pytest-xdist worker imports and collects every test again (2 workers: 54 CPU-s and 36 s; 1: 41 and 45 s).
units-2.16: venv-2.16
	@$(PRIVATE_LAYOUT); \
	$(ROOT)/.venv-2.16/bin/ansible-galaxy collection build "$$coll" --output-path "$$tmp/dist" >/dev/null; \
	$(ROOT)/.venv-2.16/bin/ansible-galaxy collection install -p "$$tmp/installed" "$$tmp"/dist/engine-cloud-*.tar.gz >/dev/null; \
	cd "$$tmp/installed/ansible_collections/engine/cloud" && PATH="$(ROOT)/.venv-2.16/bin:$$PATH" \
	    ansible-test units --local --python 3.11 --color no --num-workers 1

# units-2.21 runs the property tests with 10 examples each, make units with 100 (tests/unit/conftest.py).
units-2.21: venv-2.21
	@$(PRIVATE_LAYOUT); \
	cd "$$coll" && PYTHONPATH="$$tmp" ENGINE_CLOUD_HYPOTHESIS=matrix $(ROOT)/.venv-2.21/bin/python -m pytest tests/unit -q -p no:cacheprovider

integration-2.16 integration-2.21: integration-%: venv-%
	VENV=$(ROOT)/.venv-$* scripts/integration.sh $(MATRIX_TARGETS)

# The demo of `make demo`, with the collection built and installed by that line's ansible-galaxy
# into a private directory (make demo's dist/ and .collections/ may be in use by another stage). What
# these prove is the collection on that line, not how a module process starts: their module processes
# fork from a module zygote (DEMO_ZYGOTE=1), as the integration stages' do; make demo's do not.
demo-2.16 demo-2.21: demo-%: venv-%
	@$(PRIVATE_LAYOUT); \
	$(ROOT)/.venv-$*/bin/ansible-galaxy collection build "$$coll" --output-path "$$tmp/dist"; \
	$(ROOT)/.venv-$*/bin/ansible-galaxy collection install -p "$$tmp/installed" "$$tmp"/dist/engine-cloud-*.tar.gz; \
	COLLECTIONS="$$tmp/installed" VENV=$(ROOT)/.venv-$* DEMO_ZYGOTE=1 scripts/demo.sh

# Every sanity test on the whole tree, except the linters of style (pylint, pep8, yamllint), which 2.21
# runs on the code a 2.21 controller and its modules import (plugins/, extensions/: their YAML
# documentation included), and the two that read only the repository's text (changelog, shellcheck).
# make sanity runs all of them on every file; here they would give only a newer tool's opinion of the
# test tooling (pylint 3.3 there, 4.0 here), not the collection's behaviour on 2.21. The tests, the
# simulator, bench/ and scripts/ are two thirds of the Python and of pylint's time (about 40 CPU-s);
# changelog and shellcheck, and the whole tree's pep8 and yamllint, were about 10 CPU-s more.
SANITY_2.21_STYLE := --test pylint --test pep8 --test yamllint
sanity-2.21: venv-2.21
	@$(call PIP_STANDIN,$(ROOT)/.venv-2.21)
	@$(PRIVATE_LAYOUT); \
	cd "$$coll" && export PATH="$(ROOT)/.venv-2.21/bin:$$PATH" \
	&& ansible-test sanity --venv --python 3.13 --color no -v $(subst --test,--skip-test,$(SANITY_2.21_STYLE)) \
	    --skip-test changelog --skip-test shellcheck \
	&& ansible-test sanity --venv --python 3.13 --color no -v $(SANITY_2.21_STYLE) plugins/ extensions/

# ---- event sources for Event-Driven Ansible (extensions/eda/, owned by the eda engineer) ----------
# ansible-rulebook, and the ansible-core whose ansible-playbook runs the rulebooks' run_module actions, in
# their own venv, .venv-eda (requirements-eda.txt held to constraints-eda.txt), so that .venv's pins never
# move. ansible-rulebook needs a Java 17 runtime (its rules engine, drools); make demo does not.
#   make events       tests/eda: both shipped rulebooks in one ansible-rulebook run against a private simulator
#   make demo-events  the loop: a CPU alert fires and clears, the service is scaled up and back (under a minute)
TEST_STAGES += events
.PHONY: venv-eda events demo-events

venv-eda: venv
	@scripts/line_venv.sh $(ROOT)/.venv-eda requirements-eda.txt $(PYTHON) constraints-eda.txt

JAVA_CHECK = command -v java >/dev/null || { echo "$@: ansible-rulebook needs a Java 17 runtime: no java on PATH" >&2; exit 1; }

events: venv-eda
	@$(JAVA_CHECK)
	EDA_VENV=$(ROOT)/.venv-eda python -m pytest tests/eda -q -p no:cacheprovider -rfE

demo-events: venv-eda
	@$(JAVA_CHECK)
	@EDA_VENV=$(ROOT)/.venv-eda python scripts/demo_events.py
