"""The login gate: who this browser session is, before any page draws data.

    principal = auth.current(base)   # None: login needed and nobody logged in
    auth.gate(base, principal)       # the login page (and st.stop) when None

The embedded home served on loopback runs as the local user (admin) without a login. A team
home (database URL set), a server bound to anything but loopback, or MNEMOSCOPE_REQUIRE_LOGIN=1
asks who is there: it refuses to serve while no admin account exists, then shows the login
form on every URL (deep links included) until a password — or, when ``[auth]`` is configured
in ``.streamlit/secrets.toml``, the identity provider (``st.login``) — names an account.

The session keeps only the login-session secret (the store holds its SHA-256 hash and its
expiry); the account and role are read back from the store on every run, so a disabled
account or an expired session is logged out at the next click. The password widget lives in
a form cleared on submit and is never logged.
"""

from __future__ import annotations

import streamlit as st

from components.text import md
from memory_core.errors import AccessError
from memory_core.services import MemoryServices, Principal

SECRET_KEY = "auth_secret"  # noqa: S105 -- a session-state key; the login-session secret (never shown)
PRINCIPAL_KEY = "auth_principal"  # this run's principal, for ``can`` (read-only use)
FORM_KEY = "login"


def bind_address() -> str | None:
    value = st.get_option("server.address")
    return str(value) if value else None


def needs_login(base: MemoryServices) -> bool:
    return base.requires_login(bind_address())


def current(base: MemoryServices) -> Principal | None:
    """The principal of this browser session, or None when a login is needed first."""
    if not needs_login(base):
        principal: Principal | None = base.principal
    else:
        principal = None
        secret = st.session_state.get(SECRET_KEY)
        if secret is None and _oidc_configured() and st.user.is_logged_in:
            secret = _oidc_session(base)
        if secret:
            try:
                principal = base.access.session_principal(secret)
            except AccessError as exc:
                st.session_state.pop(SECRET_KEY, None)
                st.session_state["auth_message"] = str(exc)
    st.session_state[PRINCIPAL_KEY] = principal
    return principal


def can(permission: str) -> bool:
    """Whether this session's principal has ``permission`` (the UI hides what it cannot do;
    the services refuse it anyway). Outside the frame (a component test) nothing is hidden."""
    principal = st.session_state.get(PRINCIPAL_KEY)
    return principal is None or bool(principal.can(permission))


def gate(base: MemoryServices, principal: Principal | None) -> None:
    """Draw the login page and stop the run unless ``principal`` is known."""
    if principal is not None:
        return
    st.title("Mnemoscope")
    if not base.access.has_admin():
        st.error("This server holds a team home (or listens beyond this machine) and has no admin "
                 "account yet, so it serves nothing. On the server run: "
                 "`python -m memory_core user add NAME --role admin`")
        st.stop()
    if message := st.session_state.pop("auth_message", None):
        st.warning(md(message))
    with st.form(FORM_KEY, clear_on_submit=True):
        name = st.text_input("Account")
        password = st.text_input("Password", type="password")
        submitted = st.form_submit_button("Log in", type="primary")
    if submitted:
        try:
            st.session_state[SECRET_KEY] = base.access.login(name.strip(), password, frontend="app")
        except AccessError as exc:
            st.error(md(exc))
        else:
            st.rerun()
    if _oidc_configured() and st.button("Log in with the identity provider"):
        st.login()
    st.stop()


def account_box(base: MemoryServices, principal: Principal) -> None:
    """Who is logged in, and the way out (not shown for the local user)."""
    if principal.kind == "local":
        return
    with st.sidebar:
        st.caption(f"Signed in as **{md(principal.name)}** ({principal.role})")
        if st.button("Log out", key="auth_logout"):
            secret = st.session_state.pop(SECRET_KEY, None)
            if secret:
                base.access.logout(secret, frontend="app")
            st.session_state[PRINCIPAL_KEY] = None
            st.session_state.pop("auth_oidc_tried", None)
            if _oidc_configured() and st.user.is_logged_in:
                st.logout()
            st.rerun()


def _oidc_configured() -> bool:
    try:
        return "auth" in st.secrets
    except FileNotFoundError:  # no secrets.toml
        return False


def _oidc_session(base: MemoryServices) -> str | None:
    """A login session for the identity provider's verified e-mail, if an account has it
    (tried once per browser session: a refusal is not repeated at every click)."""
    if st.session_state.get("auth_oidc_tried"):
        return None
    st.session_state["auth_oidc_tried"] = True
    email = str(st.user.get("email") or "")
    if st.user.get("email_verified") is False:
        st.session_state["auth_message"] = f"the identity provider has not verified '{email}'"
        return None
    try:
        secret = base.access.login_oidc(email, frontend="app")
    except AccessError as exc:
        st.session_state["auth_message"] = str(exc)
        return None
    st.session_state[SECRET_KEY] = secret
    return secret
