"""Review jobs: ``pitwatch review`` run by the service, one at a time, in a background thread.

A job reviews a video file on the server (uploaded, or named by path) with a table file and writes the
review's files (``report.json``, ``report.html``, ``annotated.mp4``, evidence) to ``DATA/reviews/<id>/``;
its rounds and alerts go to the store with dedup keys ``review:<id>:round:<index>`` and
``review:<id>:alert:<round>:<n>``, so a job run twice never stores a round or an alert twice.

States: ``queued`` -> ``running`` -> ``done`` | ``failed`` (with ``error``) | ``cancelled``.
Progress (0..1) is stored about once a second.

On start-up (:meth:`ReviewJobs.recover`) a job left ``running`` by a server that was killed is run again
from the start (its half-written folder is cleared first) when its video and table file are still there,
and marked ``failed`` with the reason otherwise; ``queued`` jobs are queued again.
"""

from __future__ import annotations

import logging
import shutil
import threading
import time
from collections import deque
from pathlib import Path

log = logging.getLogger("pitwatch.jobs")

RESUMED_NOTE = "the server stopped while this job ran; it was run again from the start"


class ReviewJobs:
    """The review-job queue and its worker thread.

    Args:
        store: the :class:`api.store.Store`.
        data_dir: the service's data folder (jobs write to ``reviews/<id>/`` in it).
        metrics: :class:`api.metrics.Metrics` (or None).
        analyse_fps: frames analysed per second of video.
    """

    def __init__(self, store, data_dir: str | Path, metrics=None, analyse_fps: float = 10.0,
                 threads: int | None = None) -> None:
        self.store = store
        self.data_dir = Path(data_dir)
        self.metrics = metrics
        self.analyse_fps = analyse_fps
        self.threads = threads
        self._queue: deque[int] = deque()
        self._wake = threading.Condition()
        self._stop = threading.Event()
        self._cancel: set[int] = set()
        self._running: int | None = None
        self._thread: threading.Thread | None = None

    # -- queue ----------------------------------------------------------------------------------

    def out_dir(self, job_id: int) -> Path:
        return self.data_dir / "reviews" / str(int(job_id))

    def submit(self, source_path: str | Path, table_path: str | Path, by: str, *, no_video: bool = False,
               observer: str | None = None) -> dict:
        """Queue a review of ``source_path`` with ``table_path``; returns the stored job."""
        job = self.store.create_job(str(source_path), str(table_path), by)
        out = self.out_dir(job["id"])
        job = self.store.update_job(job["id"], out_dir=str(out))
        self._save_options(job["id"], {"no_video": bool(no_video), "observer": observer})
        self._enqueue(job["id"])
        return job

    def _options_path(self, job_id: int) -> Path:
        return self.data_dir / "reviews" / f"{int(job_id)}.options.json"

    def _save_options(self, job_id: int, options: dict) -> None:
        import json

        from calibration.files import write_atomic

        self._options_path(job_id).parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self._options_path(job_id), json.dumps(options))

    def _options(self, job_id: int) -> dict:
        """The options a job was submitted with (kept beside its folder, so a resumed job keeps them)."""
        import json

        try:
            return json.loads(self._options_path(job_id).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}

    def _enqueue(self, job_id: int) -> None:
        with self._wake:
            if job_id not in self._queue:
                self._queue.append(job_id)
            self._wake.notify()

    def cancel(self, job_id: int) -> dict:
        """Cancel a queued or running job (a finished one is left as it is); returns the job."""
        job = self.store.job(job_id)
        if job is None:
            from api.store import NotFoundError

            raise NotFoundError(f"no review job with id {job_id}")
        if job["state"] == "queued":
            with self._wake:
                if job_id in self._queue:
                    self._queue.remove(job_id)
            job = self.store.update_job(job_id, state="cancelled", error="cancelled before it started")
            self._count("cancelled")
        elif job["state"] == "running":
            self._cancel.add(int(job_id))
        return job

    def recover(self) -> list[dict]:
        """Jobs a previous server left ``running`` or ``queued``: run again from the start, or failed.

        Returns the jobs as they stand afterwards.
        """
        out = []
        for job in sorted(self.store.jobs(), key=lambda j: j["id"]):
            if job["state"] not in ("running", "queued"):
                continue
            problem = self._missing(job)
            if problem:
                reason = ("the server stopped while this job ran, and it cannot be run again: " + problem
                          if job["state"] == "running" else "cannot be started: " + problem)
                out.append(self.store.update_job(job["id"], state="failed", error=reason))
                self._count("failed")
                continue
            if job["state"] == "running":
                job = self.store.update_job(job["id"], state="queued", progress=0.0, error=RESUMED_NOTE)
            self._enqueue(job["id"])
            out.append(job)
        return out

    @staticmethod
    def _missing(job: dict) -> str | None:
        for key, what in (("source_path", "video"), ("table_path", "table file")):
            if not Path(job[key]).is_file():
                return f"its {what} {job[key]} is gone"
        return None

    # -- thread ---------------------------------------------------------------------------------

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="review-jobs", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        with self._wake:
            self._wake.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def running(self) -> int | None:
        return self._running

    def _loop(self) -> None:
        while not self._stop.is_set():
            with self._wake:
                while not self._queue and not self._stop.is_set():
                    self._wake.wait(1.0)
                if self._stop.is_set():
                    return
                job_id = self._queue.popleft()
            try:
                self._run(job_id)
            except Exception:  # noqa: BLE001 - the queue must go on
                log.exception("review job %s", job_id)

    def _run(self, job_id: int) -> None:
        from api.errors import BadInput, bad_input_types
        from vision.review_cli import ReviewCancelled, review_pipeline

        job = self.store.job(job_id)
        if job is None or job["state"] != "queued":
            return
        opts = self._options(job_id)
        out = self.out_dir(job_id)
        if out.exists():  # a run cut short: start again from nothing
            shutil.rmtree(out, ignore_errors=True)
        self._running = job_id
        self.store.update_job(job_id, state="running", progress=0.0, out_dir=str(out))
        last = [0.0]

        def progress(n: int, total: int | None, t_s: float) -> None:
            if job_id in self._cancel or self._stop.is_set():
                raise ReviewCancelled()
            now = time.monotonic()
            if total and now - last[0] >= 1.0:
                last[0] = now
                self.store.update_job(job_id, progress=min(0.99, n / max(1, total)))

        try:
            report, _run = review_pipeline(Path(job["source_path"]), Path(job["table_path"]), out,
                                           no_video=bool(opts.get("no_video")), analyse_fps=self.analyse_fps,
                                           threads=self.threads, observer=opts.get("observer"),
                                           progress=progress)
        except ReviewCancelled:
            if job_id not in self._cancel:
                return  # the server is stopping: left 'running', so the next start runs it again
            self.store.update_job(job_id, state="cancelled", error="cancelled while running")
            shutil.rmtree(out, ignore_errors=True)
            self._count("cancelled")
            return
        except bad_input_types() + (BadInput,) as exc:
            self.store.update_job(job_id, state="failed", error=str(exc))
            self._count("failed")
            return
        except Exception as exc:  # noqa: BLE001 - a failed job says why
            log.exception("review job %s failed", job_id)
            self.store.update_job(job_id, state="failed", error=f"internal error: {type(exc).__name__}: {exc}")
            self._count("failed")
            return
        finally:
            self._running = None
        self.store_results(job_id, job.get("table_path"), report)
        self.store.update_job(job_id, state="done", progress=1.0, error=job.get("error") if job.get("error") ==
                              RESUMED_NOTE else None)
        self._count("done")
        self._cancel.discard(job_id)

    def store_results(self, job_id: int, table_path: str | None, report: dict) -> None:
        """The report's rounds and alerts into the store (idempotent: dedup keys)."""
        table = report.get("table")
        base = f"reviews/{int(job_id)}"
        for r in report["rounds"]:
            payload = dict(r, evidence_base=base, source="review", video=report.get("video"))
            self.store.append(table, "round", payload, t_s=r["start_s"], review_id=job_id,
                              dedup_key=f"review:{job_id}:round:{r['index']}")
            for n, a in enumerate(r["alerts"]):
                self.store.append(table, "alert", dict(a, round_index=r["index"], evidence_base=base,
                                                       source="review", video=report.get("video")),
                                  t_s=a["t_s"], frame=a["frame"], review_id=job_id,
                                  dedup_key=f"review:{job_id}:alert:{r['index']}:{n}")
        for n, a in enumerate(report.get("alerts", [])):
            self.store.append(table, "alert", dict(a, round_index=-1, evidence_base=base, source="review",
                                                   video=report.get("video")),
                              t_s=a["t_s"], frame=a["frame"], review_id=job_id,
                              dedup_key=f"review:{job_id}:alert:table:{n}")

    def _count(self, state: str) -> None:
        if self.metrics is not None:
            self.metrics.jobs.labels(state).inc()
