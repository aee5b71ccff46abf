"""``pitwatch token create`` and ``pitwatch verify-log``: the store on the command line.

Both take ``--db URL`` (default: ``$PITWATCH_DB``, else ``sqlite:///pitwatch-data/pitwatch.db`` relative to
the working directory). SQLAlchemy is imported inside the commands so ``pitwatch --help`` stays fast.
"""

from __future__ import annotations

import sys
from typing import Optional

import typer

from api.errors import BadInput

_DB_HELP = "database URL (default: $PITWATCH_DB, else sqlite:///pitwatch-data/pitwatch.db)"


def _url(db: Optional[str]) -> str:
    from api.store import default_url

    return db or default_url()


def token_create(role: str = typer.Option(..., "--role", help="viewer, investigator or admin"),
                 name: Optional[str] = typer.Option(None, "--name", help="who or what the token is for"),
                 db: Optional[str] = typer.Option(None, "--db", help=_DB_HELP)) -> None:
    """Create an API token; it is printed once, alone on the last line of standard output (only its hash is kept)."""
    from api.store import Store, role_rank

    role_rank(role)  # a bad role is bad input before the database is touched
    store = Store(_url(db))
    try:
        store.migrate()
        token = store.create_token(role=role, name=name)
        principal = store.principal_for(token)
    finally:
        store.close()
    # the note goes to stderr so that `$(pitwatch token create ...)` captures the token alone
    print(f"token {principal.token_id} created: name {principal.name}, role {principal.role}. "
          "It is shown only now; keep it secret.", file=sys.stderr)
    print(token)


def verify_log(db: Optional[str] = typer.Option(None, "--db", help=_DB_HELP)) -> None:
    """Check the event log's hash chain: exit 0 when intact, else exit 1 with one line per bad row."""
    from sqlalchemy.engine import make_url

    from api.store import Store

    url = _url(db)
    try:
        parsed = make_url(url)
    except Exception:  # sqlalchemy's ArgumentError; imported lazily
        raise BadInput(f"--db: not a database URL: {url!r}") from None
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        from pathlib import Path

        if not Path(parsed.database).is_file():
            raise BadInput(f"--db: no database file at {parsed.database}")
    store = Store(url)
    try:
        if store.revision() is None:
            raise BadInput(f"--db: {url} is not a pitwatch database (it has no tables)")
        count, problems = store.verify_summary()
    finally:
        store.close()
    if problems:
        for line in problems:
            print(line)
        raise typer.Exit(1)
    print(f"{count} events, chain intact")


def register(app: typer.Typer) -> None:
    """Add ``token create`` and ``verify-log`` to the ``pitwatch`` app."""
    token_app = typer.Typer(help="API tokens for pitwatch serve.", no_args_is_help=True)
    token_app.command("create")(token_create)
    app.add_typer(token_app, name="token")
    app.command("verify-log")(verify_log)
