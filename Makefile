# The two commands of README's quick start, and helpers.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PYTEST_ARGS ?=

.PHONY: run test lint clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,nvidia]'
	touch $@

run: $(BIN)/.installed
	$(BIN)/python examples/vector_add.py

test: lint
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: $(BIN)/.installed
	$(BIN)/ruff check src tests benchmarks examples tools
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build src/*.egg-info .pytest_cache .ruff_cache .mypy_cache
