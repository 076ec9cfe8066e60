"""Accounts, login sessions, API tokens and the audit trail (schema V5).

The store keeps hashes only: an account's Argon2 password hash, and SHA-256 hashes of session
secrets and API tokens. Hashing and checking happen in ``memory_core.services.access``; this
mixin reads and writes rows. The audit table is append-only: rows are inserted, never updated
or deleted, except that forgetting a conversation blanks the ``detail`` of its rows of
``CONTENT_ACTIONS`` (``forget.py``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memory_core.store.base import StoreBase, now

ACCOUNT_COLUMNS = "name, role, password_hash, disabled, failed_logins, locked_until, created_at, updated_at"
TOKEN_COLUMNS = "id, label, role, conv_id, created_by, created_at, revoked_at, last_used_at"  # noqa: S105
AUDIT_COLUMNS = "id, logged_at, who, frontend, action, conv_id, detail"
# audit actions whose detail may quote a conversation (blanked when it is forgotten)
CONTENT_ACTIONS = ("ask", "edit", "import", "evaluate")


class AccessStore(StoreBase):
    # ------------------------------------------------------------------ accounts
    def add_account(self, name: str, role: str, password_hash: str) -> None:
        at = now()
        self.execute(f"INSERT INTO accounts ({ACCOUNT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",  # noqa: S608
                     [name, role, password_hash, False, 0, None, at, at])

    def account(self, name: str) -> dict[str, Any] | None:
        rows = self.dicts(f"SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE name = ?", [name])  # noqa: S608
        return rows[0] if rows else None

    def accounts(self) -> list[dict[str, Any]]:
        return self.dicts(f"SELECT {ACCOUNT_COLUMNS} FROM accounts ORDER BY name")  # noqa: S608

    def update_account(self, name: str, **fields: Any) -> None:
        """Set some of role, password_hash, disabled, failed_logins, locked_until."""
        allowed = ("role", "password_hash", "disabled", "failed_logins", "locked_until")
        sets = [k for k in allowed if k in fields]
        if not sets:
            return
        self.execute(f"UPDATE accounts SET {', '.join(f'{k} = ?' for k in sets)}, updated_at = ? "  # noqa: S608
                     "WHERE name = ?", [*(fields[k] for k in sets), now(), name])

    def count_admins(self) -> int:
        return int(self.scalar("SELECT count(*) FROM accounts WHERE role = 'admin' AND NOT disabled") or 0)

    # ------------------------------------------------------------------ login sessions
    def add_login_session(self, id_hash: str, account: str, expires_at: datetime) -> None:
        self.execute("INSERT INTO login_sessions VALUES (?, ?, ?, ?)", [id_hash, account, now(), expires_at])

    def login_session(self, id_hash: str) -> dict[str, Any] | None:
        rows = self.dicts("SELECT account, created_at, expires_at FROM login_sessions WHERE id_hash = ?",
                          [id_hash])
        return rows[0] if rows else None

    def end_login_sessions(self, *, id_hash: str | None = None, account: str | None = None) -> int:
        """Remove one session, or every session of ``account``; expired ones go too."""
        count = self.execute_count("DELETE FROM login_sessions WHERE expires_at < ?", [now()])
        if id_hash is not None:
            count += self.execute_count("DELETE FROM login_sessions WHERE id_hash = ?", [id_hash])
        if account is not None:
            count += self.execute_count("DELETE FROM login_sessions WHERE account = ?", [account])
        return count

    # ------------------------------------------------------------------ API tokens
    def add_token(self, token_id: str, token_hash: str, label: str, role: str, conv_id: str | None,
                  created_by: str) -> None:
        self.execute("INSERT INTO api_tokens (id, token_hash, label, role, conv_id, created_by, created_at, "
                     "revoked_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL)",
                     [token_id, token_hash, label, role, conv_id, created_by, now()])

    def token_by_hash(self, token_hash: str) -> dict[str, Any] | None:
        rows = self.dicts(f"SELECT {TOKEN_COLUMNS} FROM api_tokens WHERE token_hash = ?",  # noqa: S608
                          [token_hash])
        return rows[0] if rows else None

    def tokens(self) -> list[dict[str, Any]]:
        return self.dicts(f"SELECT {TOKEN_COLUMNS} FROM api_tokens ORDER BY created_at, id")  # noqa: S608

    def revoke_token(self, token_id: str) -> int:
        return self.execute_count("UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                                  [now(), token_id])

    def touch_token(self, token_id: str) -> None:
        self.execute("UPDATE api_tokens SET last_used_at = ? WHERE id = ?", [now(), token_id])

    # ------------------------------------------------------------------ audit trail
    def add_audit(self, entry_id: str, who: str, frontend: str, action: str, conv_id: str | None,
                  detail: str, at: datetime | None = None) -> None:
        self.execute(f"INSERT INTO audit ({AUDIT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",  # noqa: S608
                     [entry_id, at or now(), who, frontend, action, conv_id, detail])

    def audit(self, *, who: str | None = None, action: str | None = None, conv_id: str | None = None,
              frontend: str | None = None, since: datetime | None = None,
              limit: int = 500) -> list[dict[str, Any]]:
        """Newest first, filtered by any of the given fields."""
        sql = f"SELECT {AUDIT_COLUMNS} FROM audit WHERE 1 = 1"  # noqa: S608
        params: list[Any] = []
        for column, value in (("who", who), ("action", action), ("conv_id", conv_id), ("frontend", frontend)):
            if value:
                sql += f" AND {column} = ?"
                params.append(value)
        if since is not None:
            sql += " AND logged_at >= ?"
            params.append(since)
        return self.dicts(sql + " ORDER BY logged_at DESC, id DESC LIMIT ?", [*params, limit])
