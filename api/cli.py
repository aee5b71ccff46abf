"""The ``pitwatch`` command line: one entry point for every job.

Each sub-command lives beside the code it drives (``datasets/cli.py`` for
``synth``, ``calibration/cli.py`` for ``calibrate``, ...) and is registered here.
Heavy imports happen inside the commands so ``pitwatch --help`` stays fast.

Exit codes (contracts): 0 success, 2 bad input (one line on stderr), 1 internal error.
"""

from __future__ import annotations

import sys

import typer

from api.errors import bad_input_types

app = typer.Typer(
    name="pitwatch",
    help="Computer-vision monitor for casino blackjack tables (NJ side-bet audit).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _register() -> None:
    from api.rules_cli import register as register_rules

    register_rules(app)
    for module in ("datasets.cli", "calibration.cli", "vision.cli", "vision.review_cli", "models.cli", "api.demo",
                   "api.store_cli", "api.serve_cli"):
        try:
            mod = __import__(module, fromlist=["register"])
        except ModuleNotFoundError as exc:
            if exc.name == module:
                continue  # that part of the product is not built yet
            raise
        mod.register(app)


_register()


def main() -> None:
    """Console-script entry point: run the app, turning bad input into exit code 2."""
    try:
        code = app(standalone_mode=False)
    except bad_input_types() as exc:
        print(f"pitwatch: error: {exc}", file=sys.stderr)
        sys.exit(2)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        print("pitwatch: aborted", file=sys.stderr)
        sys.exit(1)
    except Exception as exc:  # click's own usage errors arrive here too (typer may vendor click)
        if hasattr(exc, "show") and hasattr(exc, "exit_code"):
            exc.show()
            sys.exit(2)
        raise
    # without standalone mode click hands back typer.Exit's code instead of exiting
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
