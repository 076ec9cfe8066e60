"""Access control in the services, on both engines: the role x action matrix, the edit log's
account name, lock-out, session expiry, API tokens (scope, revocation), the audit trail (one
entry per action class; forgetting keeps the entry, not the text) and secrets never in clear."""

from __future__ import annotations

import json
import logging
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from memory_core.config import AccessSettings
from memory_core.errors import AccessError
from memory_core.models import Source
from memory_core.services import Principal, Services
from memory_core.store import Store

CONV = "tiny-1"
OTHER = "tiny-2"
PASSWORD = "correct-horse-7!battery"


def locomo(conv_id: str, speaker: str = "Rosa") -> bytes:
    """An invented two-turn conversation with one question."""
    return json.dumps([{"sample_id": conv_id, "conversation": {
        "speaker_a": speaker, "speaker_b": "Ivo", "session_1_date_time": "10:00 am on 3 March, 2024",
        "session_1": [{"speaker": speaker, "dia_id": "D1:1", "text": "I bought a blue kayak for the lake."},
                      {"speaker": "Ivo", "dia_id": "D1:2", "text": "Nice! I started learning the cello."}]},
        "qa": [{"question": f"What did {speaker} buy?", "answer": "a blue kayak", "evidence": ["D1:1"],
                "category": 1}]}]).encode()


def imported(svc: Services, *convs: str, build: bool = False) -> None:
    for conv in convs:
        svc.imports.import_file(Source.upload(f"{conv}.json", locomo(conv)))
        if build:
            for _ in svc.builds.build(conv):
                pass


def account(svc: Services, name: str, role: str) -> Principal:
    svc.access.add_user(name, role, PASSWORD, by=svc.principal, frontend="cli")
    return svc.access.session_principal(svc.access.login(name, PASSWORD, frontend="mcp"))


# ---------------------------------------------------------------------------- the matrix
def _actions(view: Services, n: int) -> dict[str, Any]:
    record = view.raw_store().records(CONV)[0]
    return {
        "read": lambda: view.curation.search_records(CONV),
        "ask": lambda: view.queries.ask(CONV, "What did Rosa buy?"),
        "evaluate": lambda: view.evaluation.evaluate([CONV]),
        "export": lambda: view.imports.export_json(CONV),
        "edit": lambda: view.curation.edit_record(record.id, {"value": f"kayak v{n}"}, who="typed name",
                                                  expected_version=view.raw_store().record(record.id).version),
        "import": lambda: view.imports.import_file(Source.upload(f"x{n}.json", locomo(f"extra-{n}"))),
        "build": lambda: list(view.builds.build(
            f"extra-{n}" if view.raw_store().has_conversation(f"extra-{n}") else CONV)),
        "manage": lambda: view.access.create_token("viewer", "t", by=view.principal, frontend="mcp"),
    }


# as the issue states it: viewer browses/asks/evaluates; annotator + edits; admin + the rest
MATRIX = {
    "viewer": {"read", "ask", "evaluate", "export"},
    "annotator": {"read", "ask", "evaluate", "export", "edit"},
    "admin": {"read", "ask", "evaluate", "export", "edit", "import", "build", "manage"},
}


def test_role_action_matrix_is_enforced_by_the_services(services: Services) -> None:
    imported(services, CONV, build=True)
    seen: dict[str, dict[str, str]] = {}
    for n, role in enumerate(MATRIX):
        view = services.for_principal(account(services, f"{role}-1", role), "mcp")
        seen[role] = {}
        for action, run in _actions(view, n).items():
            try:
                run()
            except AccessError as exc:
                assert isinstance(exc, PermissionError)
                assert "\n" not in str(exc) and f"'{role}-1'" in str(exc), str(exc)
                seen[role][action] = "refused"
            else:
                seen[role][action] = "allowed"
        assert {a for a, v in seen[role].items() if v == "allowed"} == MATRIX[role], (role, seen[role])
    # the edit log names the accounts, never the typed name
    edits = services.raw_store().edits(CONV)
    assert {e.who for e in edits if e.action == "update"} == {"annotator-1", "admin-1"}
    # forgetting: refused to the annotator, allowed to the admin
    annotator = services.for_principal(services.access.session_principal(
        services.access.login("annotator-1", PASSWORD)), "app")
    with pytest.raises(AccessError, match="annotator 'annotator-1' may not forget conversations"):
        annotator.imports.forget(CONV, who="annotator-1")
    assert services.raw_store().has_conversation(CONV)
    admin_secret = services.access.login("admin-1", PASSWORD)
    admin = services.for_principal(services.access.session_principal(admin_secret), "app")
    admin.imports.forget(CONV, who="someone else")
    assert not services.raw_store().has_conversation(CONV)
    assert [e.who for e in services.raw_store().edits(CONV) if e.action == "forget"] == ["admin-1"]


def test_unlisted_service_method_needs_admin(services: Services) -> None:
    imported(services, CONV)
    viewer = services.for_principal(Principal("v", "viewer"), "mcp")
    with pytest.raises(AccessError, match="needs admin"):
        viewer.builds.build_all()
    from memory_core.services.guard import RULES

    for part, rules in RULES.items():  # every public method of every part has a rule
        inner = services._raw.get(part) or type(getattr(services.evaluation, "_inner"))  # the guarded part
        methods = {n for n in dir(inner) if not n.startswith("_") and callable(getattr(inner, n))}
        assert methods - set(rules) == set(), (part, methods - set(rules))


# ---------------------------------------------------------------------------- login
def test_lockout_after_repeated_failures_and_session_expiry(services: Services) -> None:
    svc = Services(replace(services.settings, access=AccessSettings(lockout_failures=3, lockout_minutes=5,
                                                                      session_minutes=0.01)),
                   store=services.raw_store(), index=services.raw_index(), embedder=services.embedder)
    svc.access.add_user("lea", "viewer", PASSWORD, by=svc.principal, frontend="cli")
    for _ in range(3):
        with pytest.raises(AccessError, match="wrong account name or password"):
            svc.access.login("lea", "not the password")
    with pytest.raises(AccessError, match=r"account 'lea' is locked for 5 more minute\(s\) after 3 failed"):
        svc.access.login("lea", PASSWORD)  # the right password does not help while locked
    svc.raw_store().update_account("lea", locked_until=None)  # the lock ran out
    secret = svc.access.login("lea", PASSWORD)
    assert svc.access.session_principal(secret) == Principal("lea", "viewer")
    time.sleep(0.8)  # 0.01 minutes
    with pytest.raises(AccessError, match="session expired"):
        svc.access.session_principal(secret)
    with pytest.raises(AccessError, match="wrong account name or password"):
        svc.access.login("nobody", PASSWORD)
    secret = svc.access.login("lea", PASSWORD)
    svc.access.set_disabled("lea", True, by=svc.principal, frontend="cli")
    with pytest.raises(AccessError, match="not logged in"):
        svc.access.session_principal(secret)  # disabling ended the session
    with pytest.raises(AccessError, match="disabled"):
        svc.access.login("lea", PASSWORD)
    failed = [r["detail"] for r in svc.access.audit_log(svc.principal, action="login-failed")]
    assert "wrong password (3) - locked" in failed and "locked" in failed and "unknown account" in failed


def test_last_admin_stays_and_passwords_are_checked(services: Services) -> None:
    services.access.add_user("root-admin", "admin", PASSWORD, by=services.principal, frontend="cli")
    with pytest.raises(AccessError, match="last admin"):
        services.access.set_disabled("root-admin", True, by=services.principal, frontend="cli")
    with pytest.raises(AccessError, match="at least 10 characters"):
        services.access.add_user("ann", "annotator", "short", by=services.principal, frontend="cli")
    with pytest.raises(AccessError, match="role 'owner'"):
        services.access.add_user("ann", "owner", PASSWORD, by=services.principal, frontend="cli")
    viewer = Principal("vic", "viewer")
    with pytest.raises(AccessError, match="may not manage accounts"):
        services.access.add_user("eve", "admin", PASSWORD, by=viewer, frontend="app")
    with pytest.raises(AccessError, match="may not read the audit trail"):
        services.access.audit_log(viewer)


# ---------------------------------------------------------------------------- tokens
def test_token_scope_and_revocation(services: Services) -> None:
    imported(services, CONV, OTHER)
    token_id, token = services.access.create_token("annotator", "a script", conv_id=CONV,
                                                   by=services.principal, frontend="cli")
    principal = services.access.verify_token(token)
    assert (principal.role, principal.conv_scope, principal.name) == ("annotator", CONV, f"token:{token_id}")
    agent = services.for_principal(principal, "mcp")
    assert agent.imports.conversation_ids() == [CONV]  # the others are not even listed
    assert [c.id for c in agent.imports.list_conversations()] == [CONV]
    assert agent.imports.export_json(CONV)["conversation"]["id"] == CONV
    with pytest.raises(AccessError, match=f"limited to conversation '{CONV}', not conversation '{OTHER}'"):
        agent.imports.export_json(OTHER)
    with pytest.raises(AccessError, match="limited to conversation"):
        agent.evaluation.evaluate([CONV, OTHER])
    listed = services.access.tokens(services.principal)
    assert [t["id"] for t in listed] == [token_id] and token not in json.dumps(listed, default=str)
    services.access.revoke_token(token_id, by=services.principal, frontend="cli")
    with pytest.raises(AccessError) as revoked:
        services.access.verify_token(token)
    assert str(revoked.value) == f"API token refused: token '{token_id}' was revoked"
    with pytest.raises(AccessError) as wrong:
        services.access.verify_token(token[:-2] + "xx")
    assert str(wrong.value) == "API token refused: unknown token"
    with pytest.raises(AccessError, match="no conversation 'nope'"):
        services.access.create_token("viewer", "", conv_id="nope", by=services.principal, frontend="cli")


# ---------------------------------------------------------------------------- audit and secrets
def test_audit_trail_has_each_action_class_and_survives_forgetting(services: Services) -> None:
    imported(services, CONV, build=True)
    admin = services.for_principal(account(services, "ada", "admin"), "mcp")
    viewer = services.for_principal(account(services, "vic", "viewer"), "mcp")
    viewer.curation.search_records(CONV)
    viewer.queries.ask(CONV, "Which boat did Rosa choose?")
    viewer.imports.export_json(CONV)
    with pytest.raises(AccessError):
        viewer.imports.forget(CONV, who="vic")
    record = services.raw_store().records(CONV)[0]
    admin.curation.mark_wrong(record.id, who="x")
    admin.imports.import_file(Source.upload("o.json", locomo(OTHER)))
    list(admin.builds.build(OTHER))
    token_id, _ = admin.access.create_token("viewer", "", by=admin.principal, frontend="mcp")
    admin.imports.forget(CONV, who="ada")
    rows = services.access.audit_log(services.principal, limit=1000)
    seen = {(r["who"], r["action"]) for r in rows}
    for expected in [("vic", "read"), ("vic", "ask"), ("vic", "export"), ("vic", "refused"), ("ada", "edit"),
                     ("ada", "import"), ("ada", "build"), ("ada", "token"), ("ada", "forget"),
                     ("vic", "login"), (services.principal.name, "account")]:
        assert expected in seen, expected
    assert {r["frontend"] for r in rows if r["who"] == "vic"} == {"mcp"}
    # forgetting kept every row of the conversation, but not the question's text
    conv_rows = [r for r in rows if r["conv_id"] == CONV]
    assert {"read", "ask", "export", "refused", "edit", "forget"} <= {r["action"] for r in conv_rows}
    assert all("Which boat" not in r["detail"] for r in rows)
    assert [r["detail"] for r in conv_rows if r["action"] == "ask"] == ["(content forgotten)"]
    assert any(token_id in r["detail"] for r in rows if r["action"] == "token")


def _all_text(svc: Services) -> str:
    store = svc.raw_store()
    assert isinstance(store, Store)  # the SQL store, read whole
    tables = [r[0] for r in store.all(
        "SELECT table_name FROM information_schema.tables WHERE table_schema IN ('main', 'public')")]
    out = []
    for table in tables:
        out.append(json.dumps(store.all(f"SELECT * FROM {table}"), default=str))
    return "\n".join(out)


def test_passwords_and_tokens_never_in_clear(services: Services, caplog: pytest.LogCaptureFixture,
                                            tmp_path: Path) -> None:
    caplog.set_level(logging.DEBUG)
    imported(services, CONV, build=True)
    services.access.add_user("ana", "annotator", PASSWORD, by=services.principal, frontend="cli")
    secret = services.access.login("ana", PASSWORD)
    with pytest.raises(AccessError):
        services.access.login("ana", PASSWORD + "typo")
    _, token = services.access.create_token("annotator", "ci", by=services.principal, frontend="cli")
    agent = services.for_principal(services.access.verify_token(token), "mcp")
    trace = agent.queries.ask(CONV, "What did Rosa buy?")
    services.access.set_password("ana", PASSWORD[::-1], by=services.principal, frontend="cli")
    stored = _all_text(services)
    for clear in (PASSWORD, PASSWORD + "typo", PASSWORD[::-1], token, secret):
        assert clear not in stored
        assert clear not in caplog.text
        assert clear not in trace.model_dump_json()
    assert "$argon2id$" in stored  # the hash is there instead
    if services.settings.database_url is None:
        services.raw_store().close()
        raw = (services.settings.home / "mnemoscope.duckdb").read_bytes()
        for clear in (PASSWORD, token, secret):
            assert clear.encode() not in raw
