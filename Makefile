# The two commands of README's quick start, and helpers.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PYTEST_ARGS ?=

.PHONY: run test lint clean amd-toolchain

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,nvidia,cpu]'
	touch $@

run: $(BIN)/.installed
	$(BIN)/python examples/vector_add.py

test: lint amd-toolchain
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# ROCm's compiler for hipkit cc --platform amd's tests (tests/test_cc_amd.py):
# Debian's and Ubuntu's packages (hipkit.platforms.amd.toolkit.PACKAGES), installed when missing,
# as root or with sudo that asks no password.  Where they cannot be, those tests
# skip and say why.
amd-toolchain: $(BIN)/.installed
	@packages="$$($(BIN)/python -c 'from hipkit.platforms.amd.toolkit import PACKAGES; print(*PACKAGES)')"; \
	if [ -n "$$packages" ] && command -v apt-get >/dev/null 2>&1 && ! dpkg -s $$packages >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then sudo=; \
	  elif sudo -n true 2>/dev/null; then sudo="sudo -n"; \
	  else echo "not installing $$packages (needs root): the AMD compile tests will skip"; exit 0; fi; \
	  echo "installing $$packages for the AMD compile tests"; \
	  { $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq \
	      $$packages >/dev/null; } \
	    || echo "could not install $$packages: the AMD compile tests will skip"; \
	fi

lint: $(BIN)/.installed
	$(BIN)/ruff check src tests benchmarks examples tools
	$(BIN)/ruff format --check src tests benchmarks examples tools
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build src/*.egg-info .pytest_cache .ruff_cache .mypy_cache
