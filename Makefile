# The README's two commands: `make run` (install, load the demo, serve) and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint format messages bench-import bench-export clean

# The worker pages' translations (locale/README.md): each catalog's .mo is compiled from its
# .po by Babel (pure Python, no GNU gettext needed) whenever the .po changes.
CATALOGS := $(patsubst %.po,%.mo,$(wildcard locale/*/LC_MESSAGES/django.po))
BABEL_KEYWORDS := -k pgettext_lazy:1c,2 -k npgettext_lazy:1c,2,3 -k gettext_lazy -k gettext_noop

$(BIN)/python:
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "evalsite needs Python 3.11 or newer; set PYTHON=/path/to/python3.11"'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Re-install whenever pyproject.toml changes; the marker files remember the last install.
$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	@touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'
	@touch $@ $(VENV)/.installed-run

%.mo: %.po | $(VENV)/.installed-run
	$(BIN)/pybabel compile --input-file $< --output-file $@

# Worker links, Prolific URLs and the printed addresses use the address the server runs on,
# unless PUBLIC_BASE_URL (from the environment or the command line) says otherwise.
PUBLIC_BASE_URL ?= http://$(HOST):$(PORT)
run: $(VENV)/.installed-run $(CATALOGS)
	$(BIN)/python manage.py demo --base-url $(PUBLIC_BASE_URL)
	PUBLIC_BASE_URL=$(PUBLIC_BASE_URL) $(BIN)/python manage.py runserver $(HOST):$(PORT)

# The suite runs in one process per core (pytest-xdist; each process has its own test
# database and Redis database, tests/conftest.py); a file's tests stay in one process.
# TEST_PROCESSES=0 runs it in this process alone.
TEST_PROCESSES ?= auto
test: $(VENV)/.installed-dev $(CATALOGS)
	$(BIN)/pytest -n $(TEST_PROCESSES) --dist loadfile $(PYTEST_ARGS)

lint: $(VENV)/.installed-dev
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .

format: $(VENV)/.installed-dev
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# After changing the worker pages' words: extract the msgids from the code and bring every
# catalog up to date (new msgids untranslated, removed ones dropped); then translate them.
messages: $(VENV)/.installed-dev
	$(BIN)/pybabel extract $(BABEL_KEYWORDS) --add-comments=Translators: --add-location=file \
		--sort-output --project=evalsite --output-file=locale/django.pot judgments
	$(BIN)/pybabel update --input-file=locale/django.pot --output-dir=locale --domain=django \
		--no-fuzzy-matching --ignore-obsolete
	rm locale/django.pot

bench-import: $(VENV)/.installed-dev
	$(BIN)/python bench/import_speed.py

bench-export: $(VENV)/.installed-dev
	$(BIN)/python bench/export_judgments.py

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles .pytest_cache $(CATALOGS)
