# The two commands of README's quick start, and helpers.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PYTEST_ARGS ?=

.PHONY: run test lint clean amd-toolchain cross-toolchain

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,nvidia,cpu]'
	touch $@

run: $(BIN)/.installed
	$(BIN)/python examples/vector_add.py

test: lint amd-toolchain cross-toolchain
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# Debian's and Ubuntu's packages (hipkit's tuple $(1).$(2)) installed when missing,
# as root or with sudo that asks no password; where they cannot be, the tests that
# need them ($(3)) skip and say why.
define install-packages
	@packages="$$($(BIN)/python -c 'from $(1) import $(2); print(*$(2))')"; \
	if [ -n "$$packages" ] && command -v apt-get >/dev/null 2>&1 && ! dpkg -s $$packages >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then sudo=; \
	  elif sudo -n true 2>/dev/null; then sudo="sudo -n"; \
	  else echo "not installing $$packages (needs root): $(3) will skip"; exit 0; fi; \
	  echo "installing $$packages for $(3)"; \
	  { $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq \
	      $$packages >/dev/null; } \
	    || echo "could not install $$packages: $(3) will skip"; \
	fi
endef

# ROCm's compiler for hipkit cc --platform amd's tests (tests/test_cc_amd.py):
# hipkit.platforms.amd.toolkit.PACKAGES.
amd-toolchain: $(BIN)/.installed
	$(call install-packages,hipkit.platforms.amd.toolkit,PACKAGES,the AMD compile tests)

# The AArch64 cross compiler and qemu for the CPU platform's AArch64 check
# (tests/test_cpu_aarch64.py): hipkit.platforms.cpu.isa.CROSS_PACKAGES.
cross-toolchain: $(BIN)/.installed
	$(call install-packages,hipkit.platforms.cpu.isa,CROSS_PACKAGES,the AArch64 tests)

lint: $(BIN)/.installed
	$(BIN)/ruff check src tests benchmarks examples tools
	$(BIN)/ruff format --check src tests benchmarks examples tools
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build src/*.egg-info .pytest_cache .ruff_cache .mypy_cache
