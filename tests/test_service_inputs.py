"""pitwatch serve: bad input gets a 4xx with a message that says what is wrong.

Uploads that are not videos or are too large, table files naming a missing source, unknown table ids, bad
filters, paths outside the service's folders, evidence paths that try to leave the evidence folders, and
calibration requests that cannot be solved. No worker threads run (nothing is decoded but the probes).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from fastapi.testclient import TestClient  # noqa: E402

from api.app import Settings, create_app  # noqa: E402

SAMPLE = Path(__file__).resolve().parents[1] / "api" / "samples" / "round"


@pytest.fixture(scope="module")
def svc(tmp_path_factory):
    folder = tmp_path_factory.mktemp("svc-inputs")
    for name in ("layout.yaml", "calibration.json", "synth.json", "serve.yaml", "video.mp4"):
        shutil.copy(SAMPLE / name, folder / name)
    text = (SAMPLE / "serve.yaml").read_text()
    (folder / "missing-source.yaml").write_text(text.replace("id: synth-11", "id: bj-02")
                                                .replace("source: video.mp4", "source: no-such-video.mp4"))
    (folder / "no-source.yaml").write_text(text.replace("id: synth-11", "id: bj-03").replace("source: video.mp4\n", ""))
    (folder / "other.yaml").write_text(text.replace("id: synth-11", "id: bj-04"))
    (folder / "not-a-video.mp4").write_text("this is text, not a video\n" * 20)
    app = create_app(Settings(data_dir=folder / "data", tables=[folder / "serve.yaml"], start_workers=False,
                              start_jobs=False, media_roots=[folder], upload_limit_bytes=4 * 1024 * 1024))
    store = app.state.store
    tokens = {role: store.create_token(role, f"t-{role}") for role in ("viewer", "investigator", "admin")}
    client = TestClient(app)
    return {"app": app, "client": client, "folder": folder,
            "h": {role: {"Authorization": f"Bearer {t}"} for role, t in tokens.items()}}


def detail(r) -> str:
    d = r.json()["detail"]
    return d if isinstance(d, str) else json.dumps(d)


def upload(svc, content: bytes, name="clip.mp4", table="synth-11", **fields):
    data = {"table": table, **fields}
    return svc["client"].post("/api/reviews", headers=svc["h"]["investigator"], data=data,
                              files={"video": (name, content, "video/mp4")})


def test_an_upload_that_is_not_a_video_is_415(svc):
    r = upload(svc, (svc["folder"] / "not-a-video.mp4").read_bytes())
    assert r.status_code == 415
    assert "video" in detail(r) and "not a readable video" in detail(r)
    assert not list((svc["folder"] / "data" / "uploads").glob("*.mp4"))  # not kept


def test_an_empty_upload_is_415(svc):
    r = upload(svc, b"")
    assert r.status_code == 415 and "empty" in detail(r)


def test_an_upload_over_the_limit_is_413(svc):
    r = upload(svc, b"\0" * (5 * 1024 * 1024))
    assert r.status_code == 413 and "limit" in detail(r)


def test_a_streamed_upload_without_length_is_cut_at_the_limit_with_413(svc):
    boundary = "pitwatchboundary"
    head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"table\"\r\n\r\nsynth-11\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"video\"; filename=\"big.mp4\"\r\n"
            "Content-Type: video/mp4\r\n\r\n").encode()

    def body():  # chunked: no Content-Length for the server to check up front
        yield head
        for _ in range(6):
            yield b"\0" * (1024 * 1024)
        yield f"\r\n--{boundary}--\r\n".encode()

    r = svc["client"].post("/api/reviews", content=body(),
                           headers={**svc["h"]["investigator"],
                                    "Content-Type": f"multipart/form-data; boundary={boundary}"})
    assert r.status_code == 413 and "limit" in detail(r)
    assert not [p for p in (svc["folder"] / "data" / "uploads").glob("*") if p.suffix == ".mp4"]


def test_an_upload_for_an_unknown_table_is_400(svc):
    r = upload(svc, (svc["folder"] / "video.mp4").read_bytes(), table="bj-99")
    assert r.status_code == 400 and "bj-99" in detail(r)


def test_an_upload_without_the_video_field_is_422(svc):
    r = svc["client"].post("/api/reviews", headers=svc["h"]["investigator"], data={"table": "synth-11"},
                           files={"other": ("x.mp4", b"123", "video/mp4")})
    assert r.status_code == 422 and "video" in detail(r)


def test_a_body_of_another_type_is_415(svc):
    r = svc["client"].post("/api/reviews", headers={**svc["h"]["investigator"], "Content-Type": "text/plain"},
                           content=b"video.mp4")
    assert r.status_code == 415 and "multipart/form-data" in detail(r)


def test_a_good_upload_is_queued_and_a_queued_job_can_be_cancelled(svc):
    r = upload(svc, (svc["folder"] / "video.mp4").read_bytes(), annotated="false")
    assert r.status_code == 202, r.text
    job = r.json()
    assert job["state"] == "queued" and job["table_path"].endswith("serve.yaml")
    assert Path(job["source_path"]).is_file()
    c = svc["client"].post(f"/api/reviews/{job['id']}/cancel", headers=svc["h"]["investigator"])
    assert c.status_code == 200 and c.json()["state"] == "cancelled"


def test_review_by_path_checks_the_paths(svc):
    post = lambda body: svc["client"].post("/api/reviews", headers=svc["h"]["investigator"], json=body)  # noqa: E731
    r = post({"video": "/etc/hostname", "table": "synth-11"})
    assert r.status_code == 400 and "outside the folders" in detail(r)
    r = post({"video": str(svc["folder"] / "nope.mp4"), "table": "synth-11"})
    assert r.status_code == 400 and "no such file" in detail(r)
    r = post({"video": str(svc["folder"] / "not-a-video.mp4"), "table": "synth-11"})
    assert r.status_code == 415
    r = post({"video": str(svc["folder"] / "video.mp4")})
    assert r.status_code == 422 and "table" in detail(r)
    r = svc["client"].post("/api/reviews", headers={**svc["h"]["investigator"], "Content-Type": "application/json"},
                           content=b"{not json")
    assert r.status_code == 400 and "JSON" in detail(r)


def test_a_table_file_naming_a_missing_source_is_400(svc):
    post = lambda path: svc["client"].post("/api/tables", headers=svc["h"]["admin"], json={"path": str(path)})  # noqa: E731
    r = post(svc["folder"] / "missing-source.yaml")
    assert r.status_code == 400 and "no such video file" in detail(r) and "no-such-video.mp4" in detail(r)
    r = post(svc["folder"] / "no-source.yaml")
    assert r.status_code == 400 and "'source' is missing" in detail(r)
    r = post(svc["folder"] / "absent.yaml")
    assert r.status_code == 400 and "no such file" in detail(r)
    r = post(svc["folder"] / "serve.yaml")
    assert r.status_code == 409 and "already served" in detail(r)
    r = post(svc["folder"] / "other.yaml")
    assert r.status_code == 201 and r.json()["id"] == "bj-04"
    assert svc["client"].delete("/api/tables/bj-04", headers=svc["h"]["admin"]).status_code == 204


def test_serve_refuses_a_table_file_with_a_missing_source(svc):
    from api.workers import TableConfigError

    with pytest.raises(TableConfigError, match="no such video file"):
        create_app(Settings(data_dir=svc["folder"] / "data2", tables=[svc["folder"] / "missing-source.yaml"],
                            start_workers=False, start_jobs=False))


def test_an_unknown_table_id_is_404(svc):
    c, h = svc["client"], svc["h"]["viewer"]
    for url in ("/api/tables/bj-99", "/tables/bj-99", "/api/tables/bj-99/snapshot.jpg",
                "/api/tables/bj-99/stream.mjpg"):
        r = c.get(url, headers=h)
        assert r.status_code == 404 and "bj-99" in detail(r), url
    from starlette.websockets import WebSocketDisconnect

    token = h["Authorization"].split()[1]
    with pytest.raises(WebSocketDisconnect) as exc:
        with c.websocket_connect(f"/api/tables/bj-99/events?token={token}") as ws:
            ws.receive_json()
    assert exc.value.code == 4404


@pytest.mark.parametrize("query, code, words", [
    ("since=yesterday", 422, "since"),
    ("until=2025-13-01T00:00:00", 422, "until"),
    ("since=2025-02-01T00:00:00Z&until=2025-01-01T00:00:00Z", 400, "after until"),
    ("seat=12", 422, "seat"),
    ("seat=player", 422, "seat"),
    ("acknowledged=perhaps", 422, "acknowledged"),
    ("type=MTD%20underpaid", 422, "type"),
    ("limit=0", 422, "limit"),
    ("review_id=-3", 422, "review_id"),
])
def test_bad_alert_filters_are_4xx_with_the_field_named(svc, query, code, words):
    r = svc["client"].get(f"/api/alerts?{query}", headers=svc["h"]["viewer"])
    assert r.status_code == code, r.text
    assert words in detail(r)


def test_good_filters_are_accepted(svc):
    r = svc["client"].get("/api/alerts?table=synth-11&since=2025-01-01T00:00:00Z&until=2100-01-01T00:00:00%2B02:00"
                          "&type=mtd_underpaid&seat=dealer&acknowledged=false", headers=svc["h"]["viewer"])
    assert r.status_code == 200 and r.json() == []
    assert svc["client"].get("/api/rounds?since=2025-01-01", headers=svc["h"]["viewer"]).status_code == 200


def test_acknowledging_an_unknown_alert_or_with_a_huge_comment(svc):
    c, h = svc["client"], svc["h"]["viewer"]
    r = c.post("/api/alerts/999/ack", headers=h, json={"comment": "seen"})
    assert r.status_code == 404 and "999" in detail(r)
    store = svc["app"].state.store
    a = store.append("synth-11", "alert", {"type": "mtd_underpaid", "seat": 3, "t_s": 1.0, "frame": 15})
    r = c.post(f"/api/alerts/{a.id}/ack", headers=h, json={"comment": "x" * 5000})
    assert r.status_code == 422
    r = c.post(f"/api/alerts/{a.id}/ack", headers=h, json={"comment": "paid back at the table"})
    assert r.status_code == 200
    body = r.json()
    assert body["acknowledged"] and body["ack"]["by"] == "t-viewer" and body["ack"]["comment"] == "paid back at the table"
    assert body["ack"]["at"]


@pytest.mark.parametrize("path", ["pitwatch.db", "../pitwatch.db", "live/../pitwatch.db", "uploads/x.mp4",
                                  "live/%2e%2e/%2e%2e/etc/passwd", "reviews/1/../../pitwatch.db", "live/.hidden"])
def test_evidence_paths_cannot_leave_the_evidence_folders(svc, path):
    r = svc["client"].get(f"/api/evidence/{path}", headers=svc["h"]["investigator"])
    assert r.status_code == 404, (path, r.status_code)


def test_calibration_from_point_pairs(svc):
    from calibration.homography import CalibrationResult
    from calibration.table import load_table

    table = load_table(svc["folder"] / "serve.yaml")
    cal = CalibrationResult.load(svc["folder"] / "calibration.json")
    spots = [z for z in table.layout.zones if z.circle is not None][:8]
    points = [{"image": [float(v) for v in cal.to_pixels([z.circle.center])[0]], "layout": z.name} for z in spots]
    c, h = svc["client"], svc["h"]["admin"]
    r = c.post("/api/calibration", headers=h, json={"table": "synth-11", "image_size": [1920, 1080], "points": points})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["layout"] == table.layout.id and body["reprojection_error_mm"] < 3
    r = c.post("/api/calibration", headers=h, json={"table": "synth-11", "image_size": [1920, 1080], "points": points[:3]})
    assert r.status_code == 400 and "need at least 4" in detail(r)
    r = c.post("/api/calibration", headers=h, json={"layout": "no-such-layout", "image_size": [1920, 1080],
                                                    "points": points})
    assert r.status_code == 400 and "layout" in detail(r)
    r = c.post("/api/calibration", headers=h, json={"image_size": [1920, 1080], "points": points})
    assert r.status_code == 400 and "either layout" in detail(r)
    bad = points[:4] + [{"image": [1, 2], "layout": "seat9.nowhere"}]
    r = c.post("/api/calibration", headers=h, json={"table": "synth-11", "image_size": [1920, 1080], "points": bad})
    assert r.status_code == 400 and "seat9.nowhere" in detail(r)


def test_pitwatch_serve_refuses_a_bad_table_file_as_bad_input(svc):
    from typer.testing import CliRunner

    from api.cli import app
    from api.errors import BadInput

    folder = svc["folder"]
    result = CliRunner().invoke(app, ["serve", "--data", str(folder / "data3"), "--tables", str(folder / "serve.yaml"),
                                      str(folder / "missing-source.yaml")])
    assert isinstance(result.exception, BadInput)
    assert "no such video file" in str(result.exception) and "missing-source.yaml" in str(result.exception)
