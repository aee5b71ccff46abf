"""pitwatch serve's table workers: one clock across loops and reopens, back-off, camera_lost, fan-out.

Fake sources (small synthetic frames) keep these fast; the bundled video is used by the browser test.
"""

from __future__ import annotations

import asyncio
import shutil
import threading
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from api.workers import Hub, LiveSource, TableWorker  # noqa: E402
from vision.sources import Frame, FrameSource, SourceError, Stopped  # noqa: E402

SAMPLE = Path(__file__).resolve().parents[1] / "api" / "samples" / "round"


class FakeSource(FrameSource):
    """``n`` frames at ``fps``, then stops (with ``reason``, or cleanly like the end of a file)."""

    def __init__(self, n: int, fps: float = 15.0, reason: str | None = None, size=(108, 192)) -> None:
        self.n, self.fps, self.reason, self.size = n, fps, reason, size
        self.name, self.expected_frames, self.stopped = "fake", n, None

    def frames(self):
        for i in range(self.n):
            yield Frame(i, i / self.fps, np.full((*self.size, 3), 40, np.uint8))
        if self.reason:
            self.stopped = Stopped(self.n, (self.n - 1) / self.fps, self.reason)


def opener(script):
    """open_source callable: each call takes the next item (a FakeSource, or an exception to raise)."""
    items = list(script)

    def open_source():
        item = items.pop(0) if len(items) > 1 else items[0]
        if isinstance(item, Exception):
            raise item
        return item
    return open_source


def test_a_looping_file_keeps_one_clock():
    src = LiveSource(opener([FakeSource(10), FakeSource(10), FakeSource(10)]), is_file=True, loop=True,
                     realtime=False)
    frames = []
    for f in src.frames():
        frames.append(f)
        if len(frames) == 30:
            src.stop.set()
    ts = [f.t_s for f in frames]
    assert [f.index for f in frames] == list(range(30))
    assert all(b > a for a, b in zip(ts, ts[1:]))
    assert ts[10] == pytest.approx(10 / 15) and ts[29] == pytest.approx(29 / 15)
    assert src.loops == 2 and frames[-1].utc is not None


def test_a_file_without_loop_ends():
    states = []
    src = LiveSource(opener([FakeSource(5)]), is_file=True, loop=False, realtime=False,
                     on_state=lambda s, r: states.append(s))
    assert len(list(src.frames())) == 5
    assert states[-1] == "ended"


def test_a_dropped_source_is_reopened_with_back_off_and_reported_once_per_outage():
    lost, states, reopens = [], [], []
    script = [FakeSource(5, reason="stream dropped"), SourceError("connection refused"),
              SourceError("connection refused"), FakeSource(5)]
    waits = []
    stop = threading.Event()
    real_wait = stop.wait
    stop.wait = lambda s: (waits.append(s), real_wait(0))[1]    # record the back-off, do not sleep
    src = LiveSource(opener(script), is_file=False, loop=False, realtime=False, stop=stop,
                     on_state=lambda s, r: states.append(s), on_lost=lambda r, f: lost.append((r, f)),
                     on_reopen=lambda: reopens.append(1), max_backoff_s=30)
    frames = []
    for f in src.frames():
        frames.append(f)
        if len(frames) == 10:
            stop.set()
    assert len(frames) == 10
    assert [r for r, _ in lost] == ["stream dropped"]            # one camera_lost for the whole outage
    assert lost[0][1].index == 4                                  # with the last frame seen
    assert waits[:3] == [1.0, 2.0, 4.0]                           # exponential back-off
    assert "reconnecting" in states and states[-1] in ("playing", "stopped")
    assert all(b.t_s >= a.t_s for a, b in zip(frames, frames[1:]))


def test_the_hub_fans_out_across_threads_and_drops_the_oldest_when_full():
    hub = Hub()

    async def main():
        sub = hub.subscribe(maxsize=3)
        t = threading.Thread(target=lambda: [hub.publish({"n": i}) for i in range(5)])
        t.start()
        t.join()
        await asyncio.sleep(0.05)
        got = [sub.queue.get_nowait() for _ in range(sub.queue.qsize())]
        hub.unsubscribe(sub)
        return got, sub.dropped

    got, dropped = asyncio.run(main())
    assert got == [{"n": 2}, {"n": 3}, {"n": 4}] and dropped == 2
    hub.publish({"n": 9})  # no subscriber: nothing to do


@pytest.fixture
def worker_env(tmp_path):
    for name in ("layout.yaml", "calibration.json", "synth.json", "serve.yaml"):
        shutil.copy(SAMPLE / name, tmp_path / name)
    (tmp_path / "video.mp4").symlink_to(SAMPLE / "video.mp4")
    from api.metrics import Metrics
    from api.store import Store

    store = Store(f"sqlite:///{tmp_path / 'db.sqlite'}")
    store.migrate()
    return tmp_path, store, Metrics()


def test_a_worker_stores_camera_lost_once_per_outage_and_recovers(worker_env, monkeypatch):
    folder, store, metrics = worker_env
    w = TableWorker(folder / "serve.yaml", store, folder / "data", metrics, realtime=False, drift_every=0,
                    max_backoff_s=0.05)
    script = [FakeSource(20, reason="stream dropped: no frame after 3 reconnects"), SourceError("refused"),
              SourceError("refused"), FakeSource(400)]
    w._open = opener(script)
    monkeypatch.setattr("api.workers.LiveSource._outage",
                        lambda self, reason, backoff, outage: (None if outage else self.on_lost(reason, self.last),
                                                               self.on_state("reconnecting", reason), 0.01)[2])
    w.start()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not (w.frames_read >= 100 and w.source_state == "playing"):
        time.sleep(0.05)
    w.stop()
    lost = store.alerts(table="synth-11", type="camera_lost")
    assert len(lost) == 1
    assert "stream dropped" in lost[0]["message"]
    assert lost[0]["evidence"].endswith(".jpg")
    assert (folder / "data" / lost[0]["evidence_base"] / lost[0]["evidence"]).is_file()
    assert w.frames_read >= 100 and w.error is None
    text = metrics.render().decode()
    assert 'pitwatch_alerts_total{table="synth-11",type="camera_lost"} 1.0' in text
    assert 'pitwatch_source_reopens_total{table="synth-11"} 1.0' in text


def test_mjpeg_and_snapshot_serve_the_live_frames_with_boxes(worker_env):
    from fastapi.testclient import TestClient

    from api.app import Settings, create_app

    folder, store, _ = worker_env
    app = create_app(Settings(data_dir=folder / "data", tables=[folder / "serve.yaml"], realtime=True,
                              start_jobs=False, drift_every=0), store=store)
    token = store.create_token("viewer", "wall")
    h = {"Authorization": f"Bearer {token}"}
    with TestClient(app) as client:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and client.get("/api/tables/synth-11/snapshot.jpg",
                                                         headers=h).status_code != 200:
            time.sleep(0.2)
        snap = client.get("/api/tables/synth-11/snapshot.jpg?width=320", headers=h)
        assert snap.status_code == 200 and snap.content[:2] == b"\xff\xd8"
        with client.stream("GET", "/api/tables/synth-11/stream.mjpg?max_frames=3&width=480", headers=h) as r:
            assert r.headers["content-type"].startswith("multipart/x-mixed-replace")
            body = b"".join(r.iter_bytes())
        assert body.count(b"--frame\r\nContent-Type: image/jpeg") == 3
        with client.websocket_connect(f"/api/tables/synth-11/events?token={token}") as ws:
            assert ws.receive_json()["type"] == "hello"
            for _ in range(100):
                m = ws.receive_json()
                if m["type"] == "frame" and m["boxes"]:
                    break
        assert m["type"] == "frame" and m["size"] == [1920, 1080]
        assert {"label", "box", "kind"} <= set(m["boxes"][0])
        status = client.get("/api/tables/synth-11", headers=h).json()
        assert status["source_state"] == "playing" and status["fps_analysed"] > 3
        assert status["last_frame_utc"]
