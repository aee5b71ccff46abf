"""pitwatch serve: review jobs survive a killed server, are cancelled on request, and serve their files.

A server killed mid-review is simulated: a job is stored as ``running`` with part of its results already in the
log and a half-written folder, then a fresh app starts over the same database. The job must run again from the
start (or fail with a reason when its video is gone) without storing any round or alert twice, and the hash
chain must still verify. Reviews use the render's own readings (``observer: oracle``) so no model is needed.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from fastapi.testclient import TestClient  # noqa: E402

from api.app import Settings, create_app  # noqa: E402
from api.store import Store  # noqa: E402

SAMPLE = Path(__file__).resolve().parents[1] / "api" / "samples" / "round"


def sample_folder(folder: Path) -> Path:
    """The bundled sample's files in ``folder`` with a table file for oracle reviews; returns the table file."""
    for name in ("layout.yaml", "calibration.json", "synth.json", "truth.json", "serve.yaml"):
        shutil.copy(SAMPLE / name, folder / name)
    shutil.copy(SAMPLE / "video.mp4", folder / "video.mp4")  # a copy: paths are checked after resolving links
    return folder / "serve.yaml"


def wait_for(client, headers, job_id: int, states: tuple[str, ...], timeout: float = 120.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = client.get(f"/api/reviews/{job_id}", headers=headers).json()
        if job["state"] in states:
            return job
        time.sleep(0.3)
    raise AssertionError(f"job {job_id} still {job['state']} after {timeout} s: {job}")


@pytest.fixture(scope="module")
def killed(tmp_path_factory):
    """A database where a server died while running job A (video present) and job B (video gone)."""
    folder = tmp_path_factory.mktemp("svc-jobs")
    table = sample_folder(folder)
    data = folder / "data"
    data.mkdir()
    url = f"sqlite:///{data / 'pitwatch.db'}"
    store = Store(url)
    store.migrate()
    job_a = store.create_job(str(folder / "video.mp4"), str(table), by="inv-1")
    gone = folder / "gone.mp4"
    job_b = store.create_job(str(gone), str(table), by="inv-1")
    for job in (job_a, job_b):
        out = data / "reviews" / str(job["id"])
        store.update_job(job["id"], state="running", progress=0.4, out_dir=str(out))
    # the killed run had written part of its folder and stored a round of job A before dying
    out_a = data / "reviews" / str(job_a["id"])
    (out_a / "evidence").mkdir(parents=True)
    (out_a / "evidence" / "half-written.jpg").write_bytes(b"\xff\xd8 not finished")
    (data / "reviews" / f"{job_a['id']}.options.json").write_text(json.dumps({"no_video": False, "observer": None}))
    truth = json.loads((SAMPLE / "truth.json").read_text())
    r1 = dict(truth["rounds"][1], evidence_base=f"reviews/{job_a['id']}", source="review")
    store.append("synth-11", "round", r1, t_s=r1["start_s"], review_id=job_a["id"],
                 dedup_key=f"review:{job_a['id']}:round:1")
    store.close()
    app = create_app(Settings(data_dir=data, db_url=url, start_workers=False, media_roots=[folder]))
    admin = app.state.store.create_token("investigator", "inv-2")
    with TestClient(app) as client:
        yield {"app": app, "client": client, "headers": {"Authorization": f"Bearer {admin}"}, "a": job_a["id"],
               "b": job_b["id"], "truth": truth, "folder": folder, "table": table, "data": data}


def test_a_job_whose_video_is_gone_fails_with_the_reason(killed):
    job = wait_for(killed["client"], killed["headers"], killed["b"], ("failed", "done", "queued", "running"))
    assert job["state"] == "failed"
    assert "gone.mp4" in job["error"] and "gone" in job["error"]


def test_a_job_cut_short_is_run_again_from_the_start_without_duplicates(killed):
    client, headers, store = killed["client"], killed["headers"], killed["app"].state.store
    job = wait_for(client, headers, killed["a"], ("done", "failed", "cancelled"))
    assert job["state"] == "done", job
    assert job["progress"] == 1.0
    assert "run again" in (job["error"] or "")  # the note says it was resumed
    rounds = store.rounds(review_id=killed["a"])
    assert sorted(r["index"] for r in rounds) == [r["index"] for r in killed["truth"]["rounds"]]
    alerts = store.alerts(review_id=killed["a"])
    assert sorted((a["type"], a["seat"]) for a in alerts) == sorted(
        (a["type"], a["seat"]) for r in killed["truth"]["rounds"] for a in r["alerts"])
    assert store.verify() == []
    # the half-written folder was cleared before the new run
    assert not (killed["data"] / "reviews" / str(killed["a"]) / "evidence" / "half-written.jpg").exists()
    # storing the results again changes nothing (dedup keys)
    report = client.get(f"/api/reviews/{killed['a']}/report.json", headers=headers).json()
    killed["app"].state.jobs.store_results(killed["a"], None, report)
    assert len(store.rounds(review_id=killed["a"])) == len(rounds)
    assert len(store.alerts(review_id=killed["a"])) == len(alerts)


def test_the_jobs_files_and_evidence_are_served_and_access_is_logged(killed):
    client, headers, store = killed["client"], killed["headers"], killed["app"].state.store
    job = wait_for(client, headers, killed["a"], ("done", "failed"))
    assert set(job["files"]) == {"report.json", "report.html", "annotated.mp4"}
    report = client.get(job["files"]["report.json"], headers=headers)
    assert report.status_code == 200 and report.json()["table"] == "synth-11"
    page = client.get(job["files"]["report.html"], headers=headers)
    assert page.status_code == 200 and "<html" in page.text
    video = client.get(job["files"]["annotated.mp4"], headers=headers)
    assert video.status_code == 200 and video.headers["content-type"] == "video/mp4" and len(video.content) > 10_000
    alert = store.alerts(review_id=killed["a"])[0]
    r = client.get(f"/api/alerts?review_id={killed['a']}", headers=headers).json()[0]
    assert r["evidence_url"].startswith(f"/api/evidence/reviews/{killed['a']}/evidence/")
    img = client.get(r["evidence_url"], headers=headers)
    assert img.status_code == 200 and img.content[:2] == b"\xff\xd8"
    linked = client.get(f"/api/reviews/{killed['a']}/{alert['evidence']}", headers=headers)  # as report.html links it
    assert linked.status_code == 200
    accessed = [e.payload["resource"] for e in store.events(kind="access")]
    assert r["evidence_url"] in accessed and f"/api/reviews/{killed['a']}/report.json" in accessed
    with_alerts = [r for r in store.rounds(review_id=killed["a"]) if r["alerts"]]
    rnd = client.get(f"/api/rounds/{with_alerts[0]['id']}", headers=headers).json()
    assert rnd["alerts"] and all(a["evidence_url"] and a["clip_url"] for a in rnd["alerts"])


def test_a_running_job_can_be_cancelled(killed):
    client, headers = killed["client"], killed["headers"]
    r = client.post("/api/reviews", headers=headers, json={"video": str(killed["folder"] / "video.mp4"),
                                                           "table": str(killed["table"]), "annotated": False})
    assert r.status_code == 202, r.text
    job_id = r.json()["id"]
    job = wait_for(client, headers, job_id, ("running", "done"), timeout=60)
    assert job["state"] == "running"
    assert client.post(f"/api/reviews/{job_id}/cancel", headers=headers).status_code == 200
    job = wait_for(client, headers, job_id, ("cancelled", "done", "failed"), timeout=60)
    assert job["state"] == "cancelled"
    assert killed["app"].state.store.rounds(review_id=job_id) == []
    assert client.get(f"/api/reviews/{job_id}/report.json", headers=headers).status_code == 404
