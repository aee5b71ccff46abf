# One virtual environment for everything; pinned versions live in pyproject.toml.
# `make demo` needs only the runtime; `make test` adds the `train` extra (torch + ultralytics, from this
# machine's local wheels) so the one-epoch smoke training and the PyTorch/ONNX parity test run.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TRAIN_STAMP := $(VENV)/.installed-train

.PHONY: demo test venv clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev,serve]'
	touch $(STAMP)

# ultralytics goes in without its own requirements (they pull the GUI opencv); the train extra pins the rest.
$(TRAIN_STAMP): $(STAMP)
	( $(BIN)/python -m pip install -q -e '.[dev,serve,train]' && \
	  $(BIN)/python -m pip install -q --no-deps ultralytics==8.4.190 && touch $(TRAIN_STAMP) ) || \
	  echo "WARNING: the train extra did not install; training tests will be skipped with a reason"

venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/pitwatch demo

test: $(STAMP) $(TRAIN_STAMP)
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) build *.egg-info
