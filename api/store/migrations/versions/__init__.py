"""Migration scripts, oldest first by revision chain (Alembic skips this file)."""
