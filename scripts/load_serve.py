"""Load test of ``pitwatch serve``: N live tables of the bundled video, looping in real time, for D seconds.

Serves N copies of ``api/samples/round`` (each its own table id, looping, paced to real time) with the real
app under uvicorn on a free loopback port, and plays the part of the operators: one wall view (the table list
every 2 s, each table's thumbnail every second) and one table view (the MJPEG stream and the WebSocket of the
first table). Every ``--interval`` seconds it samples each table's analysed frame rate and the process's RSS
and CPU; at the end it reports, per table, the medians of the analysed fps and of the event delay (wall clock,
from the moment the deciding frame was shown to the publication of the event; the round engine's 0.7 s hold
included), and the RSS samples over time, as JSON (stdout, and ``--out`` when given).

Usage: python scripts/load_serve.py [--tables 4] [--seconds 60] [--observer oracle|detector] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SAMPLE = ROOT / "api" / "samples" / "round"


def rss_mb() -> float:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    import resource

    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system


def make_tables(folder: Path, n: int, observer: str) -> list[Path]:
    for name in ("layout.yaml", "calibration.json", "synth.json"):
        shutil.copy(SAMPLE / name, folder / name)
    video = folder / "video.mp4"
    try:
        video.symlink_to(SAMPLE / "video.mp4")
    except OSError:
        shutil.copy(SAMPLE / "video.mp4", video)
    text = (SAMPLE / "serve.yaml").read_text(encoding="utf-8")
    if observer != "oracle":
        text = text.replace("observer: oracle\n", "")
    paths = []
    for i in range(1, n + 1):
        path = folder / f"bj-{i:02d}.yaml"
        path.write_text(text.replace("id: synth-11", f"id: bj-{i:02d}"), encoding="utf-8")
        paths.append(path)
    return paths


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def viewers(base: str, token: str, table_ids: list[str], stop: threading.Event, counts: dict) -> list[threading.Thread]:
    """A wall view and a table view, as the pages would poll and stream."""
    import httpx

    headers = {"Authorization": f"Bearer {token}"}

    def wall():
        with httpx.Client(base_url=base, headers=headers, timeout=10) as c:
            last_list = 0.0
            while not stop.is_set():
                now = time.monotonic()
                if now - last_list >= 2.0:
                    c.get("/api/tables")
                    c.get("/api/alerts", params={"acknowledged": "false", "limit": 100})
                    last_list = now
                for tid in table_ids:
                    r = c.get(f"/api/tables/{tid}/snapshot.jpg", params={"width": 480})
                    counts["thumbs"] += r.status_code == 200
                stop.wait(1.0)

    def stream():
        with httpx.Client(base_url=base, headers=headers, timeout=None) as c:
            while not stop.is_set():
                try:
                    with c.stream("GET", f"/api/tables/{table_ids[0]}/stream.mjpg", params={"width": 960}) as r:
                        for chunk in r.iter_bytes():
                            counts["mjpeg_bytes"] += len(chunk)
                            if stop.is_set():
                                return
                except httpx.HTTPError:
                    stop.wait(1.0)

    def ws():
        from websockets.sync.client import connect

        url = base.replace("http://", "ws://") + f"/api/tables/{table_ids[0]}/events?token={token}"
        while not stop.is_set():
            try:
                with connect(url, open_timeout=10) as conn:
                    while not stop.is_set():
                        try:
                            conn.recv(timeout=1.0)
                            counts["ws_messages"] += 1
                        except TimeoutError:
                            continue
            except Exception:  # noqa: BLE001 - reconnect, as the page does
                stop.wait(1.0)

    threads = [threading.Thread(target=f, daemon=True) for f in (wall, stream, ws)]
    for t in threads:
        t.start()
    return threads


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--interval", type=float, default=5.0, help="seconds between samples")
    ap.add_argument("--observer", choices=("oracle", "detector"), default="oracle",
                    help="oracle: the render's own readings (the detector is still in training)")
    ap.add_argument("--analyse-fps", type=float, default=10.0)
    ap.add_argument("--no-viewers", action="store_true", help="no wall view, MJPEG or WebSocket clients")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()

    import uvicorn

    from api.app import Settings, create_app

    folder = Path(tempfile.mkdtemp(prefix="pitwatch-load-"))
    try:
        tables = make_tables(folder, args.tables, args.observer)
        rss0 = rss_mb()
        app = create_app(Settings(data_dir=folder / "data", tables=tables, start_jobs=False,
                                  analyse_fps=args.analyse_fps))
        token = app.state.store.create_token("viewer", "load")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                               ws="websockets-sansio", timeout_graceful_shutdown=3))
        st = threading.Thread(target=server.run, daemon=True)
        st.start()
        while not server.started:
            time.sleep(0.05)
        workers = app.state.workers.all()
        ids = [w.id for w in workers]
        stop = threading.Event()
        counts = {"thumbs": 0, "mjpeg_bytes": 0, "ws_messages": 0}
        clients = [] if args.no_viewers else viewers(f"http://127.0.0.1:{port}", token, ids, stop, counts)
        t0 = time.monotonic()
        cpu0 = cpu_seconds()
        samples = []
        fps_samples: dict[str, list[float]] = {i: [] for i in ids}
        last_cpu, last_t = cpu0, t0
        while time.monotonic() - t0 < args.seconds:
            time.sleep(min(args.interval, max(0.0, args.seconds - (time.monotonic() - t0))))
            now, cpu = time.monotonic(), cpu_seconds()
            row = {"t_s": round(now - t0, 1), "rss_mb": rss_mb(),
                   "cpu_percent": round(100 * (cpu - last_cpu) / max(1e-6, now - last_t), 1),
                   "fps": {w.id: w.fps() for w in workers}}
            last_cpu, last_t = cpu, now
            if now - t0 > 4.0:  # after the first seconds of start-up
                for w in workers:
                    fps_samples[w.id].append(w.fps())
            samples.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
        elapsed = time.monotonic() - t0
        stop.set()
        per_table = {}
        for w in workers:
            delays = list(w.delays)
            per_table[w.id] = {
                "fps_analysed_median": round(statistics.median(fps_samples[w.id]), 2) if fps_samples[w.id] else None,
                "event_delay_s": {"median": round(statistics.median(delays), 3) if delays else None,
                                  "p90": round(percentile(delays, 0.9), 3) if delays else None,
                                  "max": round(max(delays), 3) if delays else None, "events": len(delays)},
                "frames_read": w.frames_read, "frames_analysed": w.frames_analysed,
                "frames_dropped": w.frames_dropped, "loops": getattr(w, "_source", None) and w._source.loops,
                "source_state": w.source_state, "error": w.error,
                "alerts": len(app.state.store.alerts(table=w.id)),
            }
        result = {
            "tables": args.tables, "seconds": round(elapsed, 1), "observer": args.observer,
            "analyse_fps": args.analyse_fps, "cpus": os.cpu_count(), "viewers": not args.no_viewers,
            "per_table": per_table,
            "fps_analysed_median_all": round(statistics.median(
                [v for s in fps_samples.values() for v in s]), 2) if any(fps_samples.values()) else None,
            "event_delay_median_all_s": round(statistics.median(
                [d for w in workers for d in w.delays]), 3) if any(w.delays for w in workers) else None,
            "rss_mb": {"before_app": rss0, "samples": [[s["t_s"], s["rss_mb"]] for s in samples],
                       "max": max(s["rss_mb"] for s in samples) if samples else None},
            "cpu_percent_mean": round(100 * (cpu_seconds() - cpu0) / elapsed, 1),
            "clients": counts,
        }
        server.should_exit = True
        app.state.workers.stop_all()
        st.join(10)
        for t in clients:
            t.join(2)
        text = json.dumps(result, indent=1)
        print(text)
        if args.out:
            args.out.write_text(text + "\n", encoding="utf-8")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
