"""Who is asking: tokens and login sessions to a ``Principal``, role checks, the login form, evidence access log.

Roles are ordered viewer < investigator < admin; a higher role may do what a lower one may (api/SERVICE.md).
A request proves who it is with ``Authorization: Bearer <token>`` or the login page's session cookie
(``pitwatch_session``). The Store is read from ``request.app.state.store``; nothing here holds state.
"""

from __future__ import annotations

import html
from typing import Callable

from fastapi import APIRouter, Form, HTTPException, Request, WebSocketException, status
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.requests import HTTPConnection

from api.store.records import ROLES, Principal, StoredEvent, role_rank
from api.store.tokens import SESSION_TTL_S, hash_secret, new_secret

__all__ = ["Principal", "ROLES", "SESSION_COOKIE", "hash_token", "new_token", "authenticate", "require_role",
           "login_router", "log_evidence_access"]

#: The login session cookie's name.
SESSION_COOKIE = "pitwatch_session"

_CHALLENGE = {"WWW-Authenticate": "Bearer"}


def hash_token(token: str) -> str:
    """sha256 hex of a token: the only form in which the store keeps it."""
    return hash_secret(token)


def new_token() -> str:
    """A fresh random token (``secrets.token_urlsafe(32)``: 256 bits, 43 URL-safe characters)."""
    return new_secret()


def _store(connection: HTTPConnection):
    store = getattr(connection.app.state, "store", None)
    if store is None:
        raise RuntimeError("app.state.store is not set: create_app must put the Store there")
    return store


def _bearer(connection: HTTPConnection) -> str | None:
    header = connection.headers.get("authorization")
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def authenticate(connection: HTTPConnection) -> Principal | None:
    """The principal behind a request or WebSocket (bearer token first, then the session cookie), or None."""
    store = _store(connection)
    token = _bearer(connection)
    if token is not None:
        return store.principal_for(token)
    session_id = connection.cookies.get(SESSION_COOKIE)
    if session_id:
        return store.principal_for_session(session_id)
    return None


def require_role(role: str) -> Callable[[HTTPConnection], Principal]:
    """A FastAPI dependency that returns the caller's Principal when its role is ``role`` or higher.

    Over HTTP it answers 401 (with ``WWW-Authenticate: Bearer``) when no valid token or session is given and
    403 when the role is too low; on a WebSocket it closes with code 1008 (policy violation) in both cases.
    The principal is also put on ``request.state.principal``. Raises StoreInputError for an unknown role.
    """
    needed = role_rank(role)

    def dependency(connection: HTTPConnection) -> Principal:
        is_ws = connection.scope.get("type") == "websocket"
        principal = authenticate(connection)
        if principal is None:
            if is_ws:
                raise WebSocketException(code=status.WS_1008_POLICY_VIOLATION, reason="a valid token is needed")
            raise HTTPException(status.HTTP_401_UNAUTHORIZED, "a valid token is needed", headers=_CHALLENGE)
        if role_rank(principal.role) < needed:
            message = f"role {role} or higher is needed; this token is {principal.role}"
            if is_ws:
                raise WebSocketException(code=status.WS_1008_POLICY_VIOLATION, reason=message)
            raise HTTPException(status.HTTP_403_FORBIDDEN, message)
        connection.state.principal = principal
        return principal

    dependency.__name__ = f"require_{role}"
    return dependency


def log_evidence_access(request: HTTPConnection, principal: Principal, resource: str) -> StoredEvent:
    """Record in the log that ``principal`` opened the evidence ``resource`` (a path or URL)."""
    return _store(request).log_access(principal.name, resource)


_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>pitwatch: sign in</title>
<style>
  body {{ margin: 0; min-height: 100vh; display: grid; place-items: center;
         font: 16px/1.4 system-ui, sans-serif; background: #0f1f17; color: #e8efe9; }}
  form {{ background: #183326; padding: 2rem; border-radius: 8px; width: min(22rem, 90vw);
         box-shadow: 0 4px 24px #0006; }}
  h1 {{ margin: 0 0 1rem; font-size: 1.3rem; }}
  label {{ display: block; margin-bottom: .4rem; }}
  input {{ width: 100%; box-sizing: border-box; padding: .55rem; border-radius: 4px; border: 1px solid #4c7a63;
          background: #0f1f17; color: inherit; font: inherit; }}
  button {{ margin-top: 1rem; width: 100%; padding: .6rem; border: 0; border-radius: 4px; background: #d9b44a;
           color: #1b1b1b; font: inherit; font-weight: 600; cursor: pointer; }}
  .error {{ background: #5c1d1d; border-left: 4px solid #e05a5a; padding: .5rem .7rem; margin-bottom: 1rem; }}
  .hint {{ color: #9db5a7; font-size: .85rem; margin-top: 1rem; }}
</style>
</head>
<body>
<form method="post" action="/login">
  <h1>pitwatch</h1>
  {error}
  <label for="token">Access token</label>
  <input id="token" name="token" type="password" autocomplete="off" required autofocus>
  <button type="submit">Sign in</button>
  <p class="hint">An admin creates tokens with <code>pitwatch token create --role viewer</code>.</p>
</form>
</body>
</html>
"""

# the page loads nothing from elsewhere and posts only to itself
_PAGE_HEADERS = {"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "
                                            "frame-ancestors 'none'",
                 "Cache-Control": "no-store"}


def _login_page(error: str | None = None, status_code: int = 200) -> HTMLResponse:
    block = f'<p class="error" role="alert">{html.escape(error)}</p>' if error else ""
    headers = dict(_PAGE_HEADERS)
    if status_code == status.HTTP_401_UNAUTHORIZED:
        headers.update(_CHALLENGE)
    return HTMLResponse(_PAGE.format(error=block), status_code=status_code, headers=headers)


def login_router() -> APIRouter:
    """Routes for the login page: GET /login (the form), POST /login (form field ``token``), POST /logout.

    A good token starts a session: an HttpOnly, SameSite=Strict cookie ``pitwatch_session`` and a 303 to ``/``.
    A bad one shows the form again with 401 and a message. Logout ends the session and redirects to /login.
    """
    router = APIRouter(tags=["login"])

    @router.get("/login", response_class=HTMLResponse, include_in_schema=False)
    def login_form() -> HTMLResponse:
        return _login_page()

    @router.post("/login", response_class=HTMLResponse, include_in_schema=False)
    def login(request: Request, token: str = Form("")) -> Response:
        token = token.strip()
        if not token:
            return _login_page("Enter a token.", status.HTTP_401_UNAUTHORIZED)
        store = _store(request)
        principal = store.principal_for(token)
        if principal is None:
            return _login_page("That token is not valid: it is unknown or was revoked.",
                               status.HTTP_401_UNAUTHORIZED)
        session_id = store.create_session(principal)
        response = RedirectResponse("/", status_code=status.HTTP_303_SEE_OTHER)
        response.set_cookie(SESSION_COOKIE, session_id, max_age=SESSION_TTL_S, path="/", httponly=True,
                            samesite="strict", secure=request.url.scheme == "https")
        return response

    @router.post("/logout", include_in_schema=False)
    def logout(request: Request) -> Response:
        session_id = request.cookies.get(SESSION_COOKIE)
        if session_id:
            _store(request).end_session(session_id)
        response = RedirectResponse("/login", status_code=status.HTTP_303_SEE_OTHER)
        response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict")
        return response

    return router
