"""The audit trail on the History page (admins only): who read, asked, exported, imported,
built, forgot, changed records, logged in, or changed accounts and tokens — filterable by
account, action, front end and conversation. A light escaped HTML table (``html_table``): the
data grid of ``st.dataframe`` made the browser load ~1.8 MB of script on every History visit."""

from __future__ import annotations

from datetime import datetime

import streamlit as st

from components import html_table
from components.services import call
from memory_core.services import MemoryServices

ACTIONS = ("", "read", "ask", "export", "import", "build", "forget", "edit", "evaluate", "refused",
           "login", "login-failed", "logout", "account", "token")
FRONTENDS = ("", "app", "cli", "mcp", "http", "library")


def show(svc: MemoryServices, conv: str | None) -> None:
    """Nothing for a non-admin (the services refuse them the trail anyway)."""
    if not svc.principal.can("manage"):
        return
    st.subheader("Audit trail")
    c = st.columns(3)
    who = c[0].text_input("Account", key="audit_who", placeholder="any")
    action = c[1].selectbox("Action", ACTIONS, key="audit_action", format_func=lambda a: a or "any")
    frontend = c[2].selectbox("Front end", FRONTENDS, key="audit_frontend", format_func=lambda f: f or "any")
    only_conv = st.toggle("This conversation only", key="audit_conv", value=False, disabled=conv is None)
    rows = call(svc.access.audit_log, svc.principal, who=who.strip() or None, action=action or None,
                frontend=frontend or None, conv_id=conv if only_conv else None, limit=1000)
    st.caption(f"{len(rows)} entries, newest first (at most 1000 shown; "
               "`python -m memory_core audit` prints more)")
    html_table.render(COLUMNS, [{"time": _when(r["logged_at"]), "account": r["who"],
                                 "front end": r["frontend"], "action": r["action"],
                                 "conversation": r["conv_id"] or "", "detail": r["detail"]} for r in rows],
                      empty="No entry matches.", narrow=("front end", "conversation"))


COLUMNS = ("time", "account", "front end", "action", "conversation", "detail")


def _when(value: object) -> str:
    return f"{value:%Y-%m-%d %H:%M:%S}" if isinstance(value, datetime) else str(value or "")
