# Development entry points. The virtualenv lives in .venv; it is (re)installed
# only when pyproject.toml changes, tracked by a stamp file.
PYTHON ?= python3
VENV   := .venv
STAMP  := $(VENV)/.installed

.PHONY: install test soak lint run bench duel clean messages

install: $(STAMP)

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(VENV)/bin/python
	$(VENV)/bin/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

test: $(STAMP)
	$(VENV)/bin/python -m pytest -q

# The longer reliability variants (more races, kills, inputs and matches); a few minutes.
soak: $(STAMP)
	$(VENV)/bin/python -m pytest -q -m soak tests/reliability

lint: $(STAMP)
	$(VENV)/bin/ruff check shared services tests bench

# Every catalogue: extract the server's sentences, the browser table's and the terminal's to
# shared/i18n/locales/<domain>.pot and bring each language's <domain>.po up to them (new
# strings arrive empty for translators; the tests fail until they are translated).
messages: $(STAMP)
	$(VENV)/bin/python -m shared.i18n.extract

# Everything in one terminal: embedded redis-server (AOF under DATA_DIR), the API under
# gunicorn and WORKERS projector workers, kept up by supervisord. Ctrl-C stops it all.
# Settings: docs/operations.md.
run: $(STAMP)
	$(VENV)/bin/python -m services.stack

# Benchmarks print their figures beside a baseline measured in the same run (never in `make test`).
# The load suite starts and stops its own stacks on 127.0.0.1 and writes var/bench/results.json;
# `make bench BENCH_ARGS=--quick` for a shorter run (docs/benchmarks.md).
bench: $(STAMP)
	$(VENV)/bin/python -m bench.rules_engine
	$(VENV)/bin/python -m bench.bots
	$(VENV)/bin/python -m bench.archive_size
	$(VENV)/bin/python -m bench.archiving $(filter --quick,$(BENCH_ARGS))
	$(VENV)/bin/python -m bench.ratings
	$(VENV)/bin/python -m bench.suite $(BENCH_ARGS)

# The search bot's duels against the zoo (about an hour; `make duel DUEL_ARGS=--quick`, about
# 10 minutes): saved under var/duels as each match ends, so a stopped run resumes (docs/bot.md).
duel: $(STAMP)
	$(VENV)/bin/python -m bench.duel_table $(DUEL_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
