"""Alembic migrations of the pitwatch store (run by ``Store.migrate()``; no alembic.ini needed)."""
