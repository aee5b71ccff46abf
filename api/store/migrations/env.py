"""Alembic environment: runs migrations on the connection ``api.store.migrate`` hands over.

Run from the command line (``alembic -x url=sqlite:///x.db upgrade head`` with a config whose
script_location is this folder), it connects to that URL itself.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from api.store.schema import metadata

config = context.config


def _run(connection) -> None:
    context.configure(connection=connection, target_metadata=metadata, render_as_batch=True,
                      compare_type=True)
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option("sqlalchemy.url")
    if not url:
        raise SystemExit("pitwatch migrations: pass -x url=<database URL>")
    engine = create_engine(url)
    with engine.begin() as conn:
        _run(conn)
    engine.dispose()
