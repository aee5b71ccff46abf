"""pitwatch serve: every route needs a token (401), the right role (403); /healthz and the login form do not.

The app is built without its worker threads (no video is decoded): these tests only look at who may do what.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from fastapi.testclient import TestClient  # noqa: E402

from api.app import Settings, create_app  # noqa: E402

SAMPLE = Path(__file__).resolve().parents[1] / "api" / "samples" / "round"

# least role each documented route needs (api/SERVICE.md); anything not listed needs viewer
NEEDS = {
    ("get", "/api/rounds/{round_id}"): "investigator",
    ("get", "/api/evidence/{path}"): "investigator",
    ("post", "/api/reviews"): "investigator",
    ("get", "/api/reviews"): "investigator",
    ("get", "/api/reviews/{job_id}"): "investigator",
    ("post", "/api/reviews/{job_id}/cancel"): "investigator",
    ("get", "/api/reviews/{job_id}/{name}"): "investigator",
    ("get", "/api/reviews/{job_id}/evidence/{name}"): "investigator",
    ("post", "/api/tables"): "admin",
    ("delete", "/api/tables/{table_id}"): "admin",
    ("post", "/api/calibration"): "admin",
}
PUBLIC = {("get", "/healthz")}
RANK = {"viewer": 0, "investigator": 1, "admin": 2}


def served_table(folder: Path) -> Path:
    """The bundled sample as a live table (a file source, looping, oracle readings) in ``folder``."""
    for name in ("layout.yaml", "calibration.json", "synth.json", "video.mp4"):
        dst = folder / name
        if not dst.exists():
            try:
                dst.symlink_to(SAMPLE / name)
            except OSError:
                shutil.copy(SAMPLE / name, dst)
    text = (SAMPLE / "serve.yaml").read_text(encoding="utf-8")
    path = folder / "table.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    folder = tmp_path_factory.mktemp("svc-auth")
    table = served_table(folder)
    app = create_app(Settings(data_dir=folder / "data", tables=[table], start_workers=False, start_jobs=False))
    store = app.state.store
    app.state.test_tokens = {role: store.create_token(role, f"t-{role}") for role in RANK}
    return app


@pytest.fixture(scope="module")
def client(app):
    return TestClient(app)


def concrete(path: str) -> str:
    values = {"table_id": "synth-11", "round_id": "1", "alert_id": "1", "job_id": "1", "path": "live/x.jpg",
              "name": "report.json"}
    return re.sub(r"\{(\w+)(:path)?\}", lambda m: values.get(m.group(1), "1"), path)


def operations(app):
    for path, item in app.openapi()["paths"].items():
        for method in item:
            yield method, path


def call(client, method: str, path: str, token: str | None = None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    kwargs = {"json": {}} if method in ("post", "put", "patch") else {}
    url = concrete(path)
    if method == "delete":
        url = url.replace("synth-11", "no-such-table")  # the guard is what is tested: keep the table served
    if path.endswith("stream.mjpg"):
        url += "?max_frames=1"
    return client.request(method.upper(), url, headers=headers, **kwargs)


def test_the_schema_documents_the_service(app):
    ops = set(operations(app))
    for needed in [("get", "/api/tables"), ("get", "/api/rounds"), ("get", "/api/alerts"),
                   ("post", "/api/alerts/{alert_id}/ack"), ("post", "/api/reviews"), ("get", "/metrics"),
                   ("post", "/api/calibration"), ("get", "/api/tables/{table_id}/stream.mjpg"), ("get", "/")]:
        assert needed in ops


def test_every_route_but_healthz_answers_401_without_a_token(app, client):
    for method, path in operations(app):
        r = call(client, method, path)
        if (method, path) in PUBLIC:
            assert r.status_code == 200, (method, path)
        else:
            assert r.status_code == 401, (method, path, r.status_code, r.text[:200])


def test_a_wrong_or_revoked_token_is_401(app, client):
    r = client.get("/api/tables", headers={"Authorization": "Bearer not-a-token"})
    assert r.status_code == 401
    store = app.state.store
    token = store.create_token("viewer", "soon-revoked")
    store.revoke_token(store.principal_for(token).token_id)
    assert client.get("/api/tables", headers={"Authorization": f"Bearer {token}"}).status_code == 401


def test_a_role_too_low_is_403(app, client):
    tokens = app.state.test_tokens
    checked = 0
    for method, path in operations(app):
        need = NEEDS.get((method, path), "viewer")
        if (method, path) in PUBLIC:
            continue
        for role, rank in RANK.items():
            if rank < RANK[need]:
                r = call(client, method, path, tokens[role])
                assert r.status_code == 403, (method, path, role, r.status_code)
                checked += 1
    assert checked >= 14


def test_the_right_role_gets_past_the_guard(app, client):
    tokens = app.state.test_tokens
    for method, path in operations(app):
        need = NEEDS.get((method, path), "viewer")
        if (method, path) in PUBLIC:
            continue
        r = call(client, method, path, tokens[need])
        assert r.status_code not in (401, 403), (method, path, r.status_code)
        assert r.status_code < 500, (method, path, r.status_code, r.text[:300])


def test_schema_docs_and_static_files_need_a_token(app, client):
    tokens = app.state.test_tokens
    for url in ("/openapi.json", "/docs", "/static/app.css", "/static/table.js", "/"):
        assert client.get(url, follow_redirects=False).status_code == 401, url
        assert client.get(url, headers={"Authorization": f"Bearer {tokens['viewer']}"}).status_code == 200, url


def test_pages_send_a_browser_without_a_session_to_the_login_form(client):
    r = client.get("/tables/synth-11", follow_redirects=False)
    assert r.status_code == 401 and 'url=/login' in r.text
    assert client.get("/login").status_code == 200


def test_login_sets_a_session_cookie_that_opens_pages_and_api(app):
    client = TestClient(app)
    r = client.post("/login", data={"token": app.state.test_tokens["viewer"]}, follow_redirects=False)
    assert r.status_code == 303
    assert client.get("/").status_code == 200
    assert client.get("/api/tables").json()[0]["id"] == "synth-11"


def test_websocket_needs_a_token(app, client):
    from starlette.websockets import WebSocketDisconnect

    with pytest.raises(WebSocketDisconnect) as exc:
        with client.websocket_connect("/api/tables/synth-11/events") as ws:
            ws.receive_json()
    assert exc.value.code == 1008
    token = app.state.test_tokens["viewer"]
    with client.websocket_connect(f"/api/tables/synth-11/events?token={token}") as ws:
        hello = ws.receive_json()
    assert hello["type"] == "hello" and hello["table"] == "synth-11" and hello["role"] == "viewer"
