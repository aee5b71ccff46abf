"""``pitwatch serve``: the live monitor, its pages and its API (api/app.py).

Tokens come from ``pitwatch token create --role viewer|investigator|admin`` (api/store_cli.py) against the
same database: by default ``$PITWATCH_DB``, else ``DATA/pitwatch.db`` (``pitwatch-data/pitwatch.db``).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import List, Optional

import typer

from api.errors import BadInput


def serve(
    more_tables: Optional[List[Path]] = typer.Argument(None, metavar="[TABLE]...", show_default=False,
                                                       help="more table files (so --tables a.yaml b.yaml works)"),
    host: str = typer.Option("127.0.0.1", "--host", help="address to bind (loopback unless told otherwise)"),
    port: int = typer.Option(8000, "--port", help="TCP port"),
    tables: Optional[List[Path]] = typer.Option(None, "--tables", help="table file(s) to watch (each names its "
                                                                       "source); repeat or list several"),
    db: Optional[str] = typer.Option(None, "--db", help="database URL (default: $PITWATCH_DB, else "
                                                        "sqlite:///DATA/pitwatch.db)"),
    data: Path = typer.Option(Path("pitwatch-data"), "--data", help="folder for evidence, review jobs, uploads "
                                                                    "and (by default) the database"),
    analyse_fps: float = typer.Option(10.0, "--analyse-fps", help="frames analysed per second"),
    upload_limit_mb: int = typer.Option(2048, "--upload-limit-mb", help="largest video upload, MiB"),
    media_root: Optional[List[Path]] = typer.Option(None, "--media-root", help="folder review jobs may read "
                                                    "server-side videos from (default: DATA, the bundled "
                                                    "samples and the working directory)"),
    log_level: str = typer.Option("info", "--log-level", help="uvicorn log level"),
) -> None:
    """Serve the wall view at /, a table view per table, the API under /api, /metrics and /healthz."""
    import uvicorn

    from api.app import Settings, create_app
    from api.store import StoreInputError
    from api.workers import TableConfigError

    if not 0 < port < 65536:
        raise BadInput(f"--port: {port} is not a TCP port")
    settings = Settings(data_dir=data, db_url=db, tables=list(tables or []) + list(more_tables or []), analyse_fps=analyse_fps,
                        upload_limit_bytes=upload_limit_mb * 1024 * 1024, media_roots=media_root or None)
    try:
        app = create_app(settings)
    except (TableConfigError, StoreInputError) as exc:
        raise BadInput(str(exc)) from exc
    typer.echo(f"pitwatch serve: http://{host}:{port}/ ({len(settings.tables)} table(s), database "
               f"{settings.database_url()}); sign in with a token from `pitwatch token create --role viewer"
               f"{'' if db is None else ' --db ' + db}`", err=True)
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level, ws="websockets-sansio",
                            timeout_graceful_shutdown=5)
    redact = TokenRedactor()
    for name in ("uvicorn.access", "uvicorn.error"):
        logging.getLogger(name).addFilter(redact)   # after Config, which sets up uvicorn's logging
    uvicorn.Server(config).run()


class TokenRedactor(logging.Filter):
    """Keeps ``?token=...`` (the WebSocket's token in its URL) out of the server's logs."""

    _token = re.compile(r"(token=)[^&\s\"']+")

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(self._token.sub(r"\1[redacted]", a) if isinstance(a, str) else a for a in record.args)
        if isinstance(record.msg, str) and "token=" in record.msg:
            record.msg = self._token.sub(r"\1[redacted]", record.msg)
        return True


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the ``pitwatch`` app."""
    app.command("serve")(serve)
