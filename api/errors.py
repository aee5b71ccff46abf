"""Errors that the command line reports as bad input (exit code 2)."""

from __future__ import annotations

import importlib


class BadInput(ValueError):
    """Input the user can fix: the message names the file, line or field and what is wrong."""


# (module, class) of every error that means "the input is wrong", wherever it is raised
_BAD_INPUT_ERRORS: tuple[tuple[str, str], ...] = (
    ("rules.cards", "UnknownCardError"),
    ("rules.profile", "ProfileError"),
    ("calibration.layout", "LayoutError"),
    ("calibration.chipset", "ChipSetError"),
    ("calibration.table", "TableFileError"),
    ("calibration.homography", "CalibrationError"),
    ("vision.sources", "SourceError"),
    ("vision.onnx_runtime", "ModelFileError"),
    ("datasets.rounds", "RoundOptionsError"),
    ("datasets.faults", "FaultKindError"),
    ("api.store.errors", "StoreInputError"),
)


def bad_input_types() -> tuple[type[BaseException], ...]:
    """Exception types that mean "bad input" wherever they are raised (exit 2, one line on stderr)."""
    types: list[type[BaseException]] = [BadInput]
    for module, name in _BAD_INPUT_ERRORS:
        try:
            types.append(getattr(importlib.import_module(module), name))
        except (ImportError, AttributeError):  # that part of the product is not installed or built
            continue
    return tuple(types)
