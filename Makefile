# Development entry points. The virtualenv lives in .venv; it is (re)installed
# only when pyproject.toml changes, tracked by a stamp file.
PYTHON ?= python3
VENV   := .venv
STAMP  := $(VENV)/.installed

.PHONY: install test clean

install: $(STAMP)

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(VENV)/bin/python
	$(VENV)/bin/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

test: $(STAMP)
	$(VENV)/bin/python -m pytest -q

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
