"""Access control (api/SERVICE.md, contracts: serve): tokens and the login cookie to roles; 401, 403, 200."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from fastapi import Depends, FastAPI, Request, WebSocket  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from api.auth import (SESSION_COOKIE, Principal, log_evidence_access, login_router, new_token,  # noqa: E402
                      require_role)
from api.store import Store  # noqa: E402


@pytest.fixture
def store(tmp_path: Path) -> Store:
    store = Store(f"sqlite:///{tmp_path / 'pitwatch.db'}")
    store.migrate()
    yield store
    store.close()


@pytest.fixture
def client(store: Store) -> TestClient:
    """A tiny app with one route per role, the login routes and an evidence route."""
    app = FastAPI()
    app.state.store = store
    app.include_router(login_router())

    @app.get("/")
    def home(principal: Principal = Depends(require_role("viewer"))):
        return {"name": principal.name}

    for role in ("viewer", "investigator", "admin"):
        app.get(f"/{role}")(lambda principal=Depends(require_role(role)): {"role": principal.role})

    @app.get("/evidence/{name}")
    def evidence(name: str, request: Request, principal: Principal = Depends(require_role("investigator"))):
        log_evidence_access(request, principal, f"evidence/{name}")
        return {"ok": True}

    @app.websocket("/ws")
    async def live(websocket: WebSocket, principal: Principal = Depends(require_role("viewer"))):
        await websocket.accept()
        await websocket.send_json({"name": principal.name})
        await websocket.close()

    with TestClient(app, follow_redirects=False) as client:
        yield client


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_no_token_gives_401_with_a_bearer_challenge(client: TestClient):
    response = client.get("/viewer")
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"


def test_an_unknown_token_gives_401(client: TestClient):
    assert client.get("/viewer", headers=bearer(new_token())).status_code == 401


def test_a_role_too_low_gives_403(client: TestClient, store: Store):
    token = store.create_token(role="viewer")
    assert client.get("/investigator", headers=bearer(token)).status_code == 403


@pytest.mark.parametrize("role, route", [("viewer", "/viewer"), ("investigator", "/viewer"),
                                         ("investigator", "/investigator"), ("admin", "/admin")])
def test_enough_role_gives_200(client: TestClient, store: Store, role: str, route: str):
    response = client.get(route, headers=bearer(store.create_token(role=role)))
    assert response.status_code == 200 and response.json() == {"role": role}


def test_a_revoked_token_gives_401(client: TestClient, store: Store):
    token = store.create_token(role="admin")
    store.revoke_token(store.principal_for(token).token_id)
    assert client.get("/viewer", headers=bearer(token)).status_code == 401


def test_the_login_form_answers_without_a_token_and_loads_nothing_from_elsewhere(client: TestClient):
    response = client.get("/login")
    assert response.status_code == 200
    assert 'name="token"' in response.text and 'action="/login"' in response.text
    assert "http://" not in response.text and "https://" not in response.text


def test_a_good_token_at_login_sets_an_httponly_strict_cookie_and_redirects_home(client: TestClient, store: Store):
    response = client.post("/login", data={"token": store.create_token(role="viewer", name="ops-1")})
    assert response.status_code == 303 and response.headers["location"] == "/"
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"{SESSION_COOKIE}=")
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie


def test_the_session_cookie_authenticates(client: TestClient, store: Store):
    client.post("/login", data={"token": store.create_token(role="viewer", name="ops-1")})
    assert client.get("/").json() == {"name": "ops-1"}


def test_a_bad_token_at_login_shows_the_form_again_with_401(client: TestClient):
    response = client.post("/login", data={"token": "wrong"})
    assert response.status_code == 401
    assert "not valid" in response.text and 'name="token"' in response.text
    assert SESSION_COOKIE not in response.headers.get("set-cookie", "")


def test_logout_ends_the_session(client: TestClient, store: Store):
    client.post("/login", data={"token": store.create_token(role="viewer")})
    session_id = client.cookies[SESSION_COOKIE]
    assert client.post("/logout").status_code == 303
    assert store.principal_for_session(session_id) is None
    client.cookies.set(SESSION_COOKIE, session_id)
    assert client.get("/").status_code == 401


def test_evidence_access_is_logged_with_who_and_what(client: TestClient, store: Store):
    token = store.create_token(role="investigator", name="inv-1")
    assert client.get("/evidence/r0.jpg", headers=bearer(token)).status_code == 200
    (access,) = store.events(kind="access")
    assert access.payload == {"by": "inv-1", "resource": "evidence/r0.jpg"}


def test_a_websocket_needs_a_token(client: TestClient, store: Store):
    with pytest.raises(WebSocketDisconnect) as refused, client.websocket_connect("/ws"):
        pass
    assert refused.value.code == 1008
    with client.websocket_connect("/ws", headers=bearer(store.create_token(role="viewer", name="wall"))) as ws:
        assert ws.receive_json() == {"name": "wall"}
