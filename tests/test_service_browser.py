"""pitwatch serve in a real browser (headless Debian chromium through Playwright).

Serves the bundled sample video as a live table (real time, looping, the render's own readings), signs in on
the login form, opens the wall view and the table view, waits for boxes on the video and for the sample's
overpaid-bonus alert, acknowledges it with a comment, and checks the screenshots are not blank.
Screenshots go to the test's tmp folder (or ``$PITWATCH_SCREENSHOTS`` when set).
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
SAMPLE = Path(__file__).resolve().parents[1] / "api" / "samples" / "round"

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
if not CHROMIUM.is_file():
    pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium) for the browser test",
                allow_module_level=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    import uvicorn

    from api.app import Settings, create_app

    folder = tmp_path_factory.mktemp("svc-browser")
    for name in ("layout.yaml", "calibration.json", "synth.json", "serve.yaml"):
        shutil.copy(SAMPLE / name, folder / name)
    (folder / "video.mp4").symlink_to(SAMPLE / "video.mp4")
    app = create_app(Settings(data_dir=folder / "data", tables=[folder / "serve.yaml"], start_jobs=False))
    token = app.state.store.create_token("investigator", "pit-boss")
    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", ws="websockets-sansio",
                                        timeout_graceful_shutdown=2))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert srv.started, "uvicorn did not start"
    yield {"url": f"http://127.0.0.1:{port}", "token": token, "app": app}
    srv.should_exit = True
    thread.join(15)


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    where = os.environ.get("PITWATCH_SCREENSHOTS")
    folder = Path(where) if where else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def not_blank(path: Path, min_std: float = 12.0) -> float:
    import cv2

    img = cv2.imread(str(path))
    assert img is not None, path
    std = float(img.reshape(-1, 3).std(axis=0).mean())
    assert std > min_std, f"{path} looks blank (pixel std {std:.1f})"
    return std


def test_sign_in_watch_a_table_and_acknowledge_its_alert(server, shots):
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1600, "height": 900})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            # without a session every page sends the browser to the login form
            page.goto(server["url"] + "/")
            page.wait_for_url("**/login")
            page.fill("#token", server["token"])
            page.click("button[type=submit]")
            page.wait_for_url(server["url"] + "/")

            # wall view: a tile per table with a live thumbnail
            page.wait_for_selector(".tile[data-table='synth-11'] .thumb img:not([hidden])", timeout=60_000)
            page.wait_for_timeout(500)
            page.screenshot(path=str(shots / "wall.png"))
            not_blank(shots / "wall.png")
            page.locator(".tile[data-table='synth-11'] .thumb").screenshot(path=str(shots / "wall-thumb.png"))
            not_blank(shots / "wall-thumb.png")

            # table view: video with boxes, then the sample's alert
            page.click(".tile[data-table='synth-11']")
            page.wait_for_url("**/tables/synth-11")
            page.wait_for_function("Number(document.getElementById('hud-boxes').dataset.n) > 0", timeout=60_000)
            page.wait_for_selector("#nosignal", state="hidden", timeout=30_000)
            item = page.wait_for_selector(".alert-item[data-type='bonus_overpaid']:not(.acked)", timeout=90_000)
            page.wait_for_timeout(800)
            page.screenshot(path=str(shots / "table.png"))
            not_blank(shots / "table.png")
            page.locator("#stream").screenshot(path=str(shots / "table-video.png"))
            not_blank(shots / "table-video.png", min_std=20.0)
            assert page.locator(".timeline .rnd").count() >= 1
            assert item.query_selector(".ev img") is not None  # an investigator sees the evidence

            # acknowledge with a comment
            item.query_selector("input[name=comment]").fill("bonus overpaid $72: dealer corrected")
            item.query_selector("button[type=submit]").click()
            page.wait_for_selector(".alert-item[data-type='bonus_overpaid'].acked .acked-by", timeout=15_000)
            page.screenshot(path=str(shots / "table-acked.png"))
            not_blank(shots / "table-acked.png")
            assert not errors, errors
        finally:
            browser.close()
    store = server["app"].state.store
    acked = store.alerts(table="synth-11", type="bonus_overpaid", acknowledged=True)
    assert acked and acked[0]["ack"]["by"] == "pit-boss"
    assert acked[0]["ack"]["comment"] == "bonus overpaid $72: dealer corrected"
    assert store.verify() == []
