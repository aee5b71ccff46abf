"""Shared test fixtures: where ../shared lives (skipping when it is absent), and concurrent store writers."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Callable

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The read-only ../shared folder; tests that need it skip with a reason where it is absent."""
    if not SHARED.is_dir():
        pytest.skip(f"../shared is absent ({SHARED}): spec vectors and real photos are not available")
    return SHARED


def append_from_threads(store_for: Callable[[int], object], per_thread: int, threads: int = 8) -> list[BaseException]:
    """Append ``per_thread`` events from each of ``threads`` threads (``store_for(worker)`` picks the Store each
    worker writes to); returns the exceptions the workers raised, so the test asserts there were none."""
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        target = store_for(worker)
        try:
            for i in range(per_thread):
                target.append(f"bj-{worker}", "table_status", {"worker": worker, "i": i})
        except BaseException as exc:  # surfaced in the main thread by the caller
            errors.append(exc)

    pool = [threading.Thread(target=work, args=(w,)) for w in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    return errors


@pytest.fixture
def concurrent_appends():
    """:func:`append_from_threads`, for the store tests (SQLite and PostgreSQL)."""
    return append_from_threads
