# Two entry points (see README): `make demo` and `make test`. Both set everything up first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.stamp-install
# Debian packages s2s uses: a C compiler, clang-14 with Polly and OpenMP for the `polly` comparison and the LLVM
# front end (C++ through s2s-c++), flang-16 for Fortran's LLVM IR (the front end's tests), and PostgreSQL
# and openssl for the recipe server's tests (a server of their own, a certificate of their own); Highway
# (libhwy-dev) for the highway target, with the aarch64 cross compiler and qemu-user that check its portability.
APT_PACKAGES := gcc g++ make clang-14 libpolly-14-dev libomp-14-dev flang-16 postgresql openssl \
	libhwy-dev g++-aarch64-linux-gnu qemu-user

.PHONY: setup system-packages demo test test-all bench clean

# (bytecode for the editable sources too: s2s-cc starts a Python process per C file it compiles)
setup: system-packages $(STAMP)
	@$(BIN)/python -m compileall -q s2s frontends backends polybench > /dev/null

system-packages:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian packages:$$missing"; \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	  else \
	    echo "warning: missing Debian packages (run as root to install):$$missing" >&2; \
	  fi; \
	fi

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev,server,cluster]'
	touch $@

demo: setup
	$(BIN)/s2s demo

test: setup
	$(BIN)/python -m pytest -n 2 -m "not slow" tests

test-all: setup
	$(BIN)/python -m pytest -n 2 tests

bench: setup
	$(BIN)/s2s bench --dataset LARGE

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
