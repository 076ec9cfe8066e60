"""Who may do what: principals, roles, accounts, login sessions, API tokens, the audit trail.

    role        may                                                     permissions
    viewer      browse, ask, evaluate, export what it can read          read ask evaluate export
    annotator   viewer + edit, add, mark, merge, revert records         + annotate
    admin       annotator + import, build, forget, accounts and tokens  + import build forget manage

Every service call runs as a ``Principal`` (``services.guard`` checks the permission and the
conversation scope and writes the audit trail). The embedded single-user home runs as
``local_principal()`` (the OS user, admin); the app in team mode runs as the logged-in account,
a program as its API token (``verify_token``).

Secrets are never stored or logged in clear: passwords as Argon2id hashes (argon2-cffi),
login-session secrets and API tokens (random, 256 bits, shown once) as SHA-256 hashes. A wrong
password counts toward a lock-out (``AccessSettings``: N failures lock the account for M
minutes); a successful login resets the count.
"""

from __future__ import annotations

import getpass
import hashlib
import re
import secrets
import threading
import time
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from memory_core.config import AccessSettings
from memory_core.contracts import RelationalStore
from memory_core.errors import AccessError
from memory_core.store.base import now

ROLES = ("viewer", "annotator", "admin")
_VIEWER = frozenset({"read", "ask", "evaluate", "export"})
_ANNOTATOR = _VIEWER | {"annotate"}
PERMISSIONS: dict[str, frozenset[str]] = {
    "viewer": _VIEWER,
    "annotator": _ANNOTATOR,
    "admin": _ANNOTATOR | {"import", "build", "forget", "manage"},
}
# what a refusal says the caller may not do, per permission
PERMISSION_WORDS = {
    "read": "read conversations", "ask": "ask questions", "evaluate": "run evaluations",
    "export": "export", "annotate": "change records", "import": "import conversations",
    "build": "build memory", "forget": "forget conversations", "manage": "manage accounts and tokens",
}
FRONTENDS = ("app", "cli", "mcp", "http", "library")
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}")
MIN_PASSWORD = 10
TOKEN_PREFIX = "mnemo_"  # noqa: S105 -- a prefix, not a secret
READ_AUDIT_WINDOW_S = 60.0  # one 'read' audit row per principal, front end, conversation, detail


def lowest_role(permission: str) -> str:
    return next(r for r in ROLES if permission in PERMISSIONS[r])


@dataclass(frozen=True)
class Principal:
    """Who a call runs as: an account, an API token (``token:<id>``) or the local operator."""

    name: str
    role: str
    kind: str = "account"  # account | token | local
    conv_scope: str | None = None  # a token limited to one conversation

    def can(self, permission: str) -> bool:
        return permission in PERMISSIONS.get(self.role, frozenset())

    def require(self, permission: str, conv_id: str | None = None, *, what: str = "") -> None:
        """Raise ``AccessError`` unless this principal may use ``permission`` on ``conv_id``."""
        doing = what or PERMISSION_WORDS.get(permission, permission)
        if not self.can(permission):
            raise AccessError(f"{self.role} '{self.name}' may not {doing} (needs {lowest_role(permission)})")
        if self.conv_scope is not None and conv_id != self.conv_scope:
            target = f"conversation '{conv_id}'" if conv_id else "every conversation"
            raise AccessError(f"'{self.name}' is limited to conversation '{self.conv_scope}', "
                              f"not {target}")


def local_principal() -> Principal:
    """The embedded single-user home's operator: the OS user, admin."""
    try:
        name = getpass.getuser()
    except (KeyError, OSError):
        name = "local"
    return Principal(name=name or "local", role="admin", kind="local")


def sha256(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def check_role(role: str) -> str:
    if role not in ROLES:
        raise AccessError(f"role '{role}': one of {', '.join(ROLES)}")
    return role


def check_name(name: str) -> str:
    if not NAME_RE.fullmatch(name or ""):
        raise AccessError(f"account name '{name[:40]}': 1-64 letters, digits or . _ @ + - "
                          "(starting with a letter or digit)")
    return name


def check_password(password: str) -> str:
    if len(password) < MIN_PASSWORD:
        raise AccessError(f"password: at least {MIN_PASSWORD} characters")
    return password


class AccessService:
    """Accounts, sessions, tokens and the audit trail over one store."""

    def __init__(self, store: RelationalStore, settings: AccessSettings) -> None:
        self.store = store
        self.settings = settings
        self._hasher = PasswordHasher()
        self._reads: dict[tuple[str, str, str, str], float] = {}
        self._reads_lock = threading.Lock()

    # ------------------------------------------------------------------ accounts
    def has_admin(self) -> bool:
        return self.store.count_admins() > 0

    def users(self, by: Principal) -> list[dict[str, Any]]:
        """Accounts without their password hashes."""
        by.require("manage")
        return [{k: v for k, v in row.items() if k != "password_hash"} for row in self.store.accounts()]

    def add_user(self, name: str, role: str, password: str, *, by: Principal, frontend: str) -> None:
        by.require("manage")
        check_name(name)
        check_role(role)
        check_password(password)
        if self.store.account(name) is not None:
            raise AccessError(f"account '{name}' already exists")
        self.store.add_account(name, role, self._hasher.hash(password))
        self.record(by, frontend, "account", None, f"add {name} ({role})")

    def add_oidc_user(self, email: str, role: str, *, by: Principal, frontend: str) -> None:
        """An account without a local password, logging in through the identity provider
        (``login_oidc``: the provider's e-mail must equal the account name)."""
        by.require("manage")
        check_name(email)
        check_role(role)
        if self.store.account(email) is not None:
            raise AccessError(f"account '{email}' already exists")
        self.store.add_account(email, role, "")
        self.record(by, frontend, "account", None, f"add {email} ({role}, identity provider)")

    def set_password(self, name: str, password: str, *, by: Principal, frontend: str) -> None:
        """An admin sets anyone's password; an account its own. Ends the account's sessions."""
        if by.name != name or by.kind != "account":
            by.require("manage")
        self._account(name)
        check_password(password)
        self.store.update_account(name, password_hash=self._hasher.hash(password), failed_logins=0,
                                  locked_until=None)
        self.store.end_login_sessions(account=name)
        self.record(by, frontend, "account", None, f"password {name}")

    def set_disabled(self, name: str, disabled: bool, *, by: Principal, frontend: str) -> None:
        by.require("manage")
        account = self._account(name)
        last_admin = account["role"] == "admin" and not account["disabled"] and self.store.count_admins() <= 1
        if disabled and last_admin:
            raise AccessError(f"account '{name}' is the last admin; add another admin first")
        self.store.update_account(name, disabled=disabled, failed_logins=0, locked_until=None)
        if disabled:
            self.store.end_login_sessions(account=name)
        self.record(by, frontend, "account", None, f"{'disable' if disabled else 'enable'} {name}")

    def set_role(self, name: str, role: str, *, by: Principal, frontend: str) -> None:
        by.require("manage")
        account = self._account(name)
        check_role(role)
        if account["role"] == "admin" and role != "admin" and self.store.count_admins() <= 1:
            raise AccessError(f"account '{name}' is the last admin; add another admin first")
        self.store.update_account(name, role=role)
        self.record(by, frontend, "account", None, f"role {name} {account['role']} -> {role}")

    def _account(self, name: str) -> dict[str, Any]:
        account = self.store.account(name)
        if account is None:
            raise AccessError(f"no account '{name[:64]}'")
        return account

    # ------------------------------------------------------------------ login sessions
    def login(self, name: str, password: str, *, frontend: str = "app") -> str:
        """Check the password; return a new session secret (keep it, show it nowhere)."""
        account = self.store.account(name)
        refused = AccessError("wrong account name or password")
        if account is None:
            self.record(_nobody(name), frontend, "login-failed", None, "unknown account")
            raise refused
        locked = account["locked_until"]
        if locked is not None and locked > now():
            minutes = max(1, round((locked - now()).total_seconds() / 60))
            self.record(_nobody(name), frontend, "login-failed", None, "locked")
            raise AccessError(f"account '{name}' is locked for {minutes} more minute(s) after "
                              f"{self.settings.lockout_failures} failed logins")
        if not self._verify(account["password_hash"], password):
            failures = int(account["failed_logins"]) + 1
            lock = failures >= self.settings.lockout_failures
            until = now() + timedelta(minutes=self.settings.lockout_minutes) if lock else None
            self.store.update_account(name, failed_logins=0 if lock else failures, locked_until=until)
            self.record(_nobody(name), frontend, "login-failed", None,
                        f"wrong password ({failures})" + (" - locked" if lock else ""))
            raise refused
        if account["disabled"]:
            self.record(_nobody(name), frontend, "login-failed", None, "disabled")
            raise AccessError(f"account '{name}' is disabled")
        if account["failed_logins"] or locked is not None:
            self.store.update_account(name, failed_logins=0, locked_until=None)
        if self._hasher.check_needs_rehash(account["password_hash"]):
            self.store.update_account(name, password_hash=self._hasher.hash(password))
        return self._start_session(name, frontend, "password")

    def login_oidc(self, email: str, *, frontend: str = "app") -> str:
        """A session for the account named by the identity provider's e-mail (Streamlit
        ``st.login``): the account must exist locally and be enabled; its role applies."""
        account = self.store.account(email) if email else None
        if account is None or account["disabled"]:
            self.record(_nobody(email or "?"), frontend, "login-failed", None, "oidc: no enabled account")
            raise AccessError(f"'{email}' has no enabled account here; ask an admin to add it "
                              "(python -m memory_core user add EMAIL --role viewer --oidc)")
        return self._start_session(email, frontend, "oidc")

    def _start_session(self, name: str, frontend: str, how: str) -> str:
        secret = secrets.token_urlsafe(32)
        expires = now() + timedelta(minutes=self.settings.session_minutes)
        self.store.add_login_session(sha256(secret), name, expires)
        account = self._account(name)
        self.record(Principal(name, account["role"]), frontend, "login", None, how)
        return secret

    def session_principal(self, secret: str) -> Principal:
        """The account of a live session; ``AccessError`` when it is unknown or expired."""
        row = self.store.login_session(sha256(secret)) if secret else None
        if row is None:
            raise AccessError("not logged in")
        if row["expires_at"] <= now():
            self.store.end_login_sessions(id_hash=sha256(secret))
            raise AccessError("your session expired; log in again")
        account = self.store.account(row["account"])
        if account is None or account["disabled"]:
            self.store.end_login_sessions(id_hash=sha256(secret))
            raise AccessError("this account was disabled")
        return Principal(name=account["name"], role=account["role"])

    def logout(self, secret: str, *, frontend: str = "app") -> None:
        try:
            principal = self.session_principal(secret)
        except AccessError:
            return
        self.store.end_login_sessions(id_hash=sha256(secret))
        self.record(principal, frontend, "logout", None, "")

    def _verify(self, stored: str, password: str) -> bool:
        if not stored:
            return False  # an OIDC-only account has no local password
        try:
            return bool(self._hasher.verify(stored, password))
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False

    # ------------------------------------------------------------------ API tokens
    def create_token(self, role: str, label: str, *, conv_id: str | None = None, by: Principal,
                     frontend: str) -> tuple[str, str]:
        """A new token (id, secret): the secret is returned once and stored only hashed."""
        by.require("manage")
        check_role(role)
        if conv_id is not None and not self.store.has_conversation(conv_id):
            raise AccessError(f"token scope: no conversation '{conv_id[:80]}'")
        token_id = uuid.uuid4().hex[:12]
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        self.store.add_token(token_id, sha256(token), label.strip()[:200] or token_id, role, conv_id, by.name)
        self.record(by, frontend, "token", conv_id, f"create {token_id} ({role}"
                    + (f", conversation {conv_id})" if conv_id else ")"))
        return token_id, token

    def tokens(self, by: Principal) -> list[dict[str, Any]]:
        by.require("manage")
        return self.store.tokens()

    def revoke_token(self, token_id: str, *, by: Principal, frontend: str) -> None:
        by.require("manage")
        if not self.store.revoke_token(token_id):
            raise AccessError(f"no live token '{token_id[:40]}'")
        self.record(by, frontend, "token", None, f"revoke {token_id}")

    def verify_token(self, token: str) -> Principal:
        """The principal of an API token (role, optional conversation scope). A wrong or
        revoked token raises ``AccessError`` in one line that never repeats the token."""
        row = self.store.token_by_hash(sha256(token)) if token else None
        if row is None:
            raise AccessError("API token refused: unknown token")
        if row["revoked_at"] is not None:
            raise AccessError(f"API token refused: token '{row['id']}' was revoked")
        self.store.touch_token(str(row["id"]))
        return Principal(name=f"token:{row['id']}", role=str(row["role"]), kind="token",
                         conv_scope=row["conv_id"])

    # ------------------------------------------------------------------ audit trail
    def record(self, principal: Principal, frontend: str, action: str, conv_id: str | None,
               detail: str) -> None:
        """Append one audit row (detail is cut to one line of 500 characters)."""
        line = " ".join(detail.split())[:500]
        self.store.add_audit(uuid.uuid4().hex[:16], principal.name, frontend, action, conv_id, line)

    def record_read(self, principal: Principal, frontend: str, conv_id: str, detail: str) -> None:
        """A 'read' row, at most one per principal, front end, conversation and detail (a page,
        a service part) per minute."""
        key = (principal.name, frontend, conv_id, detail)
        moment = time.monotonic()
        with self._reads_lock:
            last = self._reads.get(key)
            if last is not None and moment - last < READ_AUDIT_WINDOW_S:
                return
            self._reads[key] = moment
        self.record(principal, frontend, "read", conv_id, detail)

    def audit_log(self, by: Principal, *, who: str | None = None, action: str | None = None,
                  conv_id: str | None = None, frontend: str | None = None,
                  limit: int = 500) -> list[dict[str, Any]]:
        """The audit trail, newest first (admins only)."""
        by.require("manage", what="read the audit trail")
        return self.store.audit(who=who, action=action, conv_id=conv_id, frontend=frontend, limit=limit)


def _nobody(name: str) -> Principal:
    """The would-be principal of a failed login (audited under the name typed, cut short)."""
    return Principal(name=name[:64] or "?", role="none")
