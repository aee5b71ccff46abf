"""Errors raised by the store.

``StoreInputError`` is bad input the caller can fix (a role that does not exist, a payload that is not
JSON, a URL that is not a database URL); the command line reports it with exit code 2.
``NotFoundError`` means the id names no stored record.
"""

from __future__ import annotations


class StoreInputError(ValueError):
    """A value handed to the store is wrong; the message names the field and what is wrong."""


class NotFoundError(LookupError):
    """No stored record has that id (an alert, a review job, a token)."""
