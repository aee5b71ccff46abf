"""``pitwatch calibrate``, ``pitwatch calibrate-lens`` and ``pitwatch eval-calibration`` (contracts.md).

``pitwatch calibrate IMAGE --layout LAYOUT.yaml --out calibration.json`` finds the
printed layout in the image by itself; ``--points FILE`` uses point pairs given
by a person instead (format: :mod:`calibration.points`), ``--markers`` uses ArUco
markers laid on the felt (placement: :mod:`calibration.markers`), and ``--lens``
adds a ChArUco lens model made by ``pitwatch calibrate-lens``.  The written file is
printed as one JSON line.  Where the layout cannot be found the command exits 2
saying what was missing and how many features matched.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from api.errors import BadInput
from api.images import read_image as _read_image




def _load_layout(spec: Path):
    """A layout file, or the id of a shipped layout where no such file exists."""
    from calibration.layout import LAYOUT_DIR, builtin_layout, load_layout

    if spec.exists() or spec.suffix in (".yaml", ".yml") or "/" in str(spec):
        if not spec.exists():
            known = ", ".join(sorted(p.stem for p in LAYOUT_DIR.glob("*.yaml")))
            raise BadInput(f"{spec}: layout file not found (shipped layouts: {known})")
        return load_layout(spec)
    return builtin_layout(str(spec))


def register(app: typer.Typer) -> None:
    """Add ``calibrate``, ``calibrate-lens`` and ``eval-calibration`` to the ``pitwatch`` app."""

    @app.command("calibrate")
    def calibrate(
        image: Path = typer.Argument(..., help="A frame of the table from the camera to calibrate."),
        layout: Path = typer.Option(..., "--layout", help="Layout YAML file (or a shipped layout's id)."),
        out: Path = typer.Option(..., "--out", help="calibration.json to write."),
        points: Path | None = typer.Option(None, "--points", help="Point pairs given by a person (see calibration.points)."),
        markers: bool = typer.Option(False, "--markers", help="Use ArUco markers laid on the felt."),
        marker_map: Path | None = typer.Option(None, "--marker-map", help="Where the markers lie (YAML/JSON); "
                                                                          "default: one on each main spot."),
        lens: Path | None = typer.Option(None, "--lens", help="Lens model from `pitwatch calibrate-lens`."),
        max_error_mm: float | None = typer.Option(None, "--max-error-mm", min=0.01,
                                                  help="Reject a calibration whose error exceeds this (mm)."),
    ) -> None:
        """Map the camera's pixels to the layout's millimetres and write calibration.json."""
        from calibration.homography import CalibrationError

        try:
            lay = _load_layout(layout)
            img = _read_image(image)
            K = D = None
            if lens is not None:
                from calibration.markers import LensModel

                model = LensModel.load(lens)
                if tuple(model.image_size) != (img.shape[1], img.shape[0]):
                    raise BadInput(f"{lens}: lens model is for {model.image_size[0]}x{model.image_size[1]} images, "
                                   f"{image} is {img.shape[1]}x{img.shape[0]}")
                K, D = model.camera_matrix, model.dist_coeffs
            if points is not None and markers:
                raise BadInput("--points and --markers: give one way to calibrate, not both")
            extra = {} if max_error_mm is None else {"max_error_mm": max_error_mm}
            if points is not None:
                from calibration.points import calibrate_points, load_points

                cal = calibrate_points(load_points(points, lay), lay, (img.shape[1], img.shape[0]), camera_matrix=K,
                                       dist_coeffs=D, source=str(points), **extra)
            elif markers:
                from calibration.markers import calibrate_markers, default_marker_map, load_marker_map

                mm = load_marker_map(marker_map) if marker_map is not None else default_marker_map(lay)
                cal = calibrate_markers(img, lay, mm, camera_matrix=K, dist_coeffs=D, source=str(image), **extra)
            else:
                from calibration.auto import calibrate_auto

                cal = calibrate_auto(img, lay, camera_matrix=K, dist_coeffs=D, source=str(image), **extra)
        except CalibrationError as exc:
            raise BadInput(str(exc)) from None
        cal.save(out)
        print(json.dumps({"out": str(out), **cal.to_json()}))

    @app.command("calibrate-lens")
    def calibrate_lens_cmd(
        images: list[Path] = typer.Argument(..., help="Photos of a ChArUco board in several poses, one camera."),
        out: Path = typer.Option(..., "--out", help="lens.json to write."),
        squares: str = typer.Option("7x5", "--squares", help="Board squares, columns x rows."),
        square_mm: float = typer.Option(40.0, "--square-mm", min=0.1, help="Side of a chessboard square, mm."),
        marker_mm: float = typer.Option(30.0, "--marker-mm", min=0.1, help="Side of an ArUco marker, mm."),
        dictionary: str = typer.Option("DICT_5X5_100", "--dictionary", help="ArUco dictionary of the board."),
    ) -> None:
        """Measure the lens (intrinsics and distortion) from a ChArUco board and write lens.json."""
        from calibration.homography import CalibrationError
        from calibration.markers import CharucoSpec, calibrate_lens

        try:
            cols, rows = (int(v) for v in squares.lower().split("x"))
        except ValueError:
            raise BadInput(f"--squares: expected COLSxROWS such as 7x5, got {squares!r}") from None
        try:
            spec = CharucoSpec((cols, rows), square_mm, marker_mm, dictionary)
            model = calibrate_lens([_read_image(p) for p in images], spec, source=f"{len(images)} image(s)")
        except CalibrationError as exc:
            raise BadInput(str(exc)) from None
        model.save(out)
        print(json.dumps({"out": str(out), **model.to_json()}))

    @app.command("eval-calibration")
    def eval_calibration(
        poses: int = typer.Option(50, "--poses", min=1, help="Random camera poses for the automatic calibration."),
        scenes: int = typer.Option(200, "--scenes", min=0, help="Random scenes for the zone assignment."),
        minutes: float = typer.Option(10.0, "--minutes", min=0.0, help="Unmoved video per camera for the drift watch."),
        moves: int = typer.Option(60, "--moves", min=0, help="Bumped cameras for the drift watch."),
        seed: int = typer.Option(0, "--seed"),
        parts: str = typer.Option("auto,play,zones,drift", "--parts", help="Which measurements, comma-separated."),
        out: Path | None = typer.Option(None, "--out", help="JSON file for every figure."),
    ) -> None:
        """Measure calibration on rendered frames (python -m calibration.evaluate)."""
        from calibration.evaluate import main as eval_main

        argv = ["--poses", str(poses), "--scenes", str(scenes), "--minutes", str(minutes), "--moves", str(moves),
                "--seed", str(seed), "--parts", parts] + (["--out", str(out)] if out else [])
        code = eval_main(argv)
        if code:
            sys.exit(code)
