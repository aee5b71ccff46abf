"""The pitwatch store: the hash-chained event log, tokens, sessions and review jobs (api/SERVICE.md).

``Store`` is the only thing that touches the database.
"""

from api.store.database import DEFAULT_URL, default_url
from api.store.errors import NotFoundError, StoreInputError
from api.store.records import JOB_STATES, ROLES, Principal, StoredEvent, role_rank
from api.store.store import Store

__all__ = ["Store", "StoredEvent", "Principal", "ROLES", "JOB_STATES", "role_rank", "StoreInputError",
           "NotFoundError", "default_url", "DEFAULT_URL"]
