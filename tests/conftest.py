"""Shared test fixtures: where ../shared lives, and skipping when it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The read-only ../shared folder; tests that need it skip with a reason where it is absent."""
    if not SHARED.is_dir():
        pytest.skip(f"../shared is absent ({SHARED}): spec vectors and real photos are not available")
    return SHARED
