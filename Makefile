# One virtual environment for everything; pinned versions live in pyproject.toml.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test venv clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev,serve]'
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/pitwatch demo

test: $(STAMP)
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) build *.egg-info
