# engine.cloud: build, try and test the collection. `make help` lists the targets. Each target installs what it
# needs into virtualenvs of this clone (uv, pinned by the requirements and constraints files), so a fresh clone
# needs only python3 with pip, git and GNU make.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:

# The interpreter the venvs are made from (the base of PYTHON when that is a venv's), passed on to sub-makes.
PYTHON ?= python3
ifeq ($(origin BASE_PYTHON),undefined)
BASE_PYTHON := $(shell $(PYTHON) -c 'import sys; print(sys._base_executable)')
endif
export BASE_PYTHON
export PATH := $(CURDIR)/.venv/bin:$(PATH)
# Where the environment sets PYTHONDONTWRITEBYTECODE (this project's machines do), every Python process compiles
# every module it imports, every time: an ansible-playbook start then costs twice the CPU.
unexport PYTHONDONTWRITEBYTECODE
VERSION := $(shell sed -n 's/^version: *//p' galaxy.yml)
TARBALL := dist/engine-cloud-$(VERSION).tar.gz
DEV := .venv/.requirements-dev.stamp
DOCS := .venv/.requirements-docs.stamp
# A recipe's own copy of the collection ($$coll, on the collections path $$tmp), removed when it ends: the
# layout ansible-test and ansible-galaxy need, and no two targets running side by side share one.
COPY = tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; coll=$$tmp/ansible_collections/engine/cloud; \
	python scripts/layout.py "$$coll" >/dev/null
# $(call ARTIFACT,VENV): that venv's ansible-galaxy builds the collection and installs it into $$tmp/installed.
ARTIFACT = $(COPY); $(1)/bin/ansible-galaxy collection build "$$coll" --output-path "$$tmp/dist" >/dev/null \
	&& $(1)/bin/ansible-galaxy collection install -p "$$tmp/installed" "$$tmp"/dist/*.tar.gz >/dev/null
# ansible-test makes a virtualenv for each sanity test and bootstraps pip in it with a get-pip script downloaded
# from a host that only the internet reaches; scripts/get_pip.py takes its place, with pip's wheel from the index.
# $(call SANITY,VENV,PYTHON VERSION[,TESTS]): ansible-test sanity with that venv's ansible-core, on a copy of the tree
# (TESTS: --test or --skip-test options; the lock keeps two runs from saving the get-pip script at once).
SANITY = pip=$$(sed -n "s/^ *pip='\(.*\)',$$/\1/p" $(1)/lib/python*/site-packages/ansible_test/_internal/python_requirements.py); \
	cache=~/.ansible/test/cache; get_pip=$$cache/get_pip_$${pip//./_}.py; mkdir -p $$cache; \
	(flock 9 && { [ -f $$get_pip ] || { $(BASE_PYTHON) -m pip download -q --no-deps -d $$cache pip==$$pip \
	    && cp scripts/get_pip.py $$get_pip; }; }) 9>$$cache/.get_pip.lock; \
	$(COPY); cd "$$coll" && PATH=$(1)/bin:$$PATH ansible-test sanity --local --python $(2) --color no $(3)
# The integration targets that exercise templating, run on every ansible-core line.
MATRIX_TARGETS ?= action_groups inventory_services lookup_chart_series roles

.PHONY: help venv build install simulator demo test units sanity sanity-pylint sanity-rest lint integration integration-1 integration-2 ci units-2.16 units-2.21 \
	integration-2.16 integration-2.21 demo-2.16 demo-2.21 sanity-2.21 e2e galaxy-importer docs docs-lint \
	events demo-events load mutants changelog release constraints bench bench-fleet bench-observability \
	bench-organization clean

help:  ## this list
	@sed -n 's/^\([a-z][^:]*\):.*## \(.*\)/\1\t\2/p' $(MAKEFILE_LIST) | awk -F'\t' '{printf "  make %-24s %s\n", $$1, $$2}'

venv: $(DEV)  ## .venv: ansible-core 2.19 and the tools of requirements-dev.txt (again when it changes)
$(DEV): requirements-dev.txt requirements-uv.txt constraints.txt
	$(BASE_PYTHON) -m venv --without-pip .venv
	$(BASE_PYTHON) -m pip --python .venv/bin/python install -q -r requirements-uv.txt
	uv pip install -q --python .venv/bin/python -r requirements-dev.txt -c constraints.txt
	touch $@

# The venvs of make ci, from requirements-<name>.txt: ansible-core 2.16 on Python 3.10 (the oldest pair the collection
# claims), 2.21 (it needs Python 3.12 or later: 3.13), and ansible-rulebook (.venv-eda: it needs a Java 17 runtime too).
LINE_PYTHON_2.16 = $$(scripts/find_python.sh 3.10)
LINE_PYTHON_2.21 = $$(scripts/find_python.sh 3.13)
LINE_PYTHON_eda = $(BASE_PYTHON)
.venv-%/.requirements.stamp: requirements-%.txt constraints-%.txt | $(DEV)
	uv venv -q --allow-existing --python $(LINE_PYTHON_$*) .venv-$*
	uv pip install -q --python .venv-$*/bin/python -r requirements-$*.txt -c constraints-$*.txt
	touch $@

# What docs, docs-lint, e2e and galaxy-importer add to .venv; constraints.txt resolves it with requirements-dev.txt.
$(DOCS): requirements-docs.txt constraints.txt $(DEV)
	uv pip install -q --python .venv/bin/python -r requirements-docs.txt -c constraints.txt
	touch $@

build: venv  ## dist/engine-cloud-VERSION.tar.gz (galaxy.yml's version), from what git lists
	@$(COPY); rm -rf dist; ansible-galaxy collection build "$$coll" --output-path dist

install: build  ## that artifact into .collections/ (then: export ANSIBLE_COLLECTIONS_PATH=$PWD/.collections)
	ansible-galaxy collection install --force -p .collections $(TARBALL)

# The simulator in the foreground, for playbooks by hand; once it listens it prints what the getting-started
# guide's second shell runs (the venv, the collections path, the ENGINE_* exports).
SIM_PORT ?= 8080
simulator: venv  ## the API simulator on 127.0.0.1:8080 (SIM_PORT=...) until Ctrl-C
	@python -m tests.simulator --host 127.0.0.1 --port $(SIM_PORT) \
	    --say "simulator: both APIs at http://127.0.0.1:$(SIM_PORT) until Ctrl-C. In another shell, in this directory:" \
	    --say '. .venv/bin/activate' \
	    --say 'export ANSIBLE_COLLECTIONS_PATH=$$PWD/.collections ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_INVENTORY_UNPARSED_WARNING=false' \
	    --exports || { status=$$?; [ $$status != 3 ] || echo "simulator: port $(SIM_PORT) is in use;" \
	    "stop what listens there, or choose another: make simulator SIM_PORT=$$(( $(SIM_PORT) + 1 ))" >&2; exit $$status; }

demo: install  ## the tour of playbooks/demo.yml against a simulator
	scripts/demo.sh

demo-events: .venv-eda/.requirements.stamp  ## a CPU alert fires and clears; the shipped rulebook scales a service up and back
	python scripts/demo_events.py

test: venv  ## what every change runs: units, sanity, lint and integration, side by side
	@$(MAKE) --no-print-directory -k -j6 -O units sanity lint integration-1 integration-2

units: venv  ## pytest: tests/unit, tests/simulator and tests/tools, on a copy of the collection
	@$(COPY); cd "$$coll" && PYTHONPATH=$$tmp python -m pytest tests/unit tests/simulator tests/tools -q -p no:cacheprovider

sanity: sanity-pylint sanity-rest  ## ansible-test sanity --local (Python 3.11), in two parts that make -j runs side by side

sanity-pylint: venv  ## ansible-test sanity's pylint, about half of sanity's time
	@$(call SANITY,$(CURDIR)/.venv,3.11,--test pylint)

sanity-rest: venv  ## every other ansible-test sanity test
	@$(call SANITY,$(CURDIR)/.venv,3.11,--skip-test pylint)

lint: venv  ## ansible-lint --profile production (.ansible-lint)
	@$(COPY); cd "$$coll" && ANSIBLE_COLLECTIONS_PATH=$$tmp ansible-lint --profile production --nocolor

integration: venv  ## ansible-test integration --local against a private simulator [TARGETS="cloud roles"]
	scripts/integration.sh $(TARGETS)

# make test runs the integration targets in two halves of about equal time, side by side: the first is these.
FIRST_HALF := roles secrets_vvv playbook_nightly_stop lookup_chart_series inventory_services

integration-1 integration-2: integration-%: venv  ## the integration targets in two halves (FIRST_HALF, the rest), each its own simulator
	scripts/integration.sh $(if $(filter 1,$*),$(FIRST_HALF),$(addprefix --exclude ,$(FIRST_HALF)))

# The longest parts first: e2e and load mostly wait (paced playbooks, the live rate limit) beside the others.
ci: venv $(DOCS)  ## the rest of CI, side by side: the other ansible-core lines, e2e, Galaxy, docs, events, load
	@$(MAKE) --no-print-directory -k -j4 -O e2e load sanity-2.21 integration-2.21 integration-2.16 units-2.16 \
	    units-2.21 demo-2.21 demo-2.16 events galaxy-importer docs docs-lint

units-2.16: .venv-2.16/.requirements.stamp  ## ansible-test units in the artifact that 2.16 built and installed, as a packager
	@$(call ARTIFACT,.venv-2.16); cd "$$tmp/installed/ansible_collections/engine/cloud" \
	    && PATH=$(CURDIR)/.venv-2.16/bin:$$PATH ansible-test units --local --python 3.10 --color no --num-workers 1

units-2.21: .venv-2.21/.requirements.stamp  ## pytest tests/unit on 2.21, property tests at 10 examples each
	@$(COPY); cd "$$coll" && PYTHONPATH=$$tmp ENGINE_CLOUD_HYPOTHESIS=matrix $(CURDIR)/.venv-2.21/bin/python -m pytest tests/unit -q -p no:cacheprovider

integration-2.16 integration-2.21: integration-%: .venv-%/.requirements.stamp  ## the MATRIX_TARGETS on that line
	VENV=.venv-$* scripts/integration.sh $(MATRIX_TARGETS)

demo-2.16 demo-2.21: demo-%: .venv-%/.requirements.stamp  ## the demo, built and installed by that line
	@$(call ARTIFACT,.venv-$*); COLLECTIONS=$$tmp/installed VENV=.venv-$* scripts/demo.sh

sanity-2.21: .venv-2.21/.requirements.stamp  ## ansible-test sanity --local on 2.21 (Python 3.13)
	@$(call SANITY,$(CURDIR)/.venv-2.21,3.13)

e2e: $(DOCS)  ## tests/e2e: guides as printed, module EXAMPLES, an AWX job through ansible-runner, the EE, the artifact
	python -m pytest tests/e2e -q -p no:cacheprovider -rfE

galaxy-importer: $(DOCS) build  ## the import check Galaxy runs, on the artifact (its report in dist/)
	cd dist && GALAXY_IMPORTER_CONFIG=$(CURDIR)/tests/e2e/galaxy-importer.cfg python -m galaxy_importer.main $(notdir $(TARBALL))

docs: $(DOCS)  ## the module and role reference and the guides as HTML, in build/docs
	@$(COPY); docs/build.sh "$$tmp" $(CURDIR)/build/docs

docs-lint: $(DOCS)  ## antsibull-docs lint-collection-docs --plugin-docs
	@$(COPY); cd "$$coll" && antsibull-docs lint-collection-docs --plugin-docs .

events: .venv-eda/.requirements.stamp  ## the shipped rulebooks in one ansible-rulebook run against a private simulator
	@command -v java >/dev/null || { echo "events: ansible-rulebook needs a Java 17 runtime: no java on PATH" >&2; exit 1; }
	EDA_VENV=$(CURDIR)/.venv-eda python -m pytest tests/eda -q -p no:cacheprovider -rfE

load: venv  ## 50 hosts at forks 10 and 50 under the live rate limit (tests/load)
	python -m pytest tests/load -q -s -p no:cacheprovider

mutants: venv  ## plant each defect of tests/mutants.py in a copy of HEAD and show make test's units catch it
	python tests/mutants.py --command "make units"

changelog: venv  ## lint the fragments of changelogs/fragments/
	antsibull-changelog lint

release: changelog  ## fold the fragments into galaxy.yml's version's release (scripts/check_release.py refuses a wrong bump)
	python scripts/check_release.py
	antsibull-changelog release --reload-plugins

# Every venv is pinned whole: a release on the index between two runs changes nothing. Run this after changing
# a requirements file, and commit its result.
COMPILE = uv pip compile -q --universal --no-header --python-version $(2) $(3) -o $(1).new \
	&& { sed '/^$$/q' $(1); cat $(1).new; } > $(1).tmp && mv $(1).tmp $(1) && rm $(1).new
constraints: venv  ## resolve the requirements files again into constraints*.txt
	$(call COMPILE,constraints.txt,3.11,requirements-dev.txt requirements-docs.txt)
	$(call COMPILE,constraints-2.16.txt,3.10,requirements-2.16.txt)
	$(call COMPILE,constraints-2.21.txt,3.12,requirements-2.21.txt)
	$(call COMPILE,constraints-eda.txt,3.11,requirements-eda.txt)

# Measurements against a private simulator, not tests: they rewrite or print docs/performance.md's tables.
bench: venv  ## the cost of a task, polling and scale [BENCH_ARGS=...]
	python bench/bench.py $(BENCH_ARGS)

bench-fleet: venv  ## fleet jobs at the live rate limit [FLEET_ARGS=...]
	python bench/fleet.py $(FLEET_ARGS)

bench-observability: venv  ## 30 dashboards and 200 alerts as code at the token's budget [OBSERVABILITY_ARGS=...]
	python bench/observability.py $(OBSERVABILITY_ARGS)

bench-organization: venv  ## a whole organization (20 services, 60 pipes, 30 dashboards, 200 alerts) exported and applied [ORG_ARGS=...]
	python bench/organization.py $(ORG_ARGS)

clean:  ## remove build/, dist/, .collections/ and tests/output/ (the venvs stay)
	rm -rf build dist .collections tests/output
