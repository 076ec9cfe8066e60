"""The login gate (AppTest): no page draws data before a login — deep links included — no
admin account means nothing is served, lock-out after repeated failures, logout, and a
viewer gets no edit forms (the services refuse its edits anyway: tests/test_access.py)."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from components.audit_view import COLUMNS as AUDIT_COLUMNS
from memory_core.models import Source
from tests.app.conftest import ROOT, all_text, button, widget

PASSWORD = "a-long-app-password-9"
CONV = "login-1"
SECRET_WORD = "kayak"  # in the conversation's text: must not show before a login


@pytest.fixture(scope="module")
def login_home(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> Path:
    from memory_core.config import Settings
    from memory_core.services import Services

    home = tmp_path_factory.mktemp("login") / "home"
    svc = Services(Settings(home=home), embedder=embedder)
    try:
        data = [{"sample_id": CONV, "conversation": {
            "speaker_a": "Rosa", "speaker_b": "Ivo", "session_1_date_time": "10:00 am on 3 March, 2024",
            "session_1": [{"speaker": "Rosa", "dia_id": "D1:1",
                           "text": "I bought a blue kayak for the lake."},
                          {"speaker": "Ivo", "dia_id": "D1:2", "text": "I started learning the cello."}]},
            "qa": []}]
        svc.imports.import_file(Source.upload("login.json", json.dumps(data).encode()))
        for _ in svc.builds.build(CONV):
            pass
    finally:
        svc.close()
    return home.resolve()


@pytest.fixture
def gated(login_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., AppTest]]:
    monkeypatch.setenv("MNEMOSCOPE_HOME", str(login_home))
    monkeypatch.setenv("MNEMOSCOPE_REQUIRE_LOGIN", "1")
    monkeypatch.setenv("MNEMOSCOPE_LOCKOUT_FAILURES", "3")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")

    def make(page: str | None = None, **query: str) -> AppTest:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
        at.query_params.update(query)
        if page is not None:
            at.switch_page(page)
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        return at

    yield make


def services(login_home: Path) -> Any:
    from components.services import _open

    return _open(str(login_home))


def accounts(svc: Any) -> None:
    for name, role in (("ada", "admin"), ("vic", "viewer")):
        if svc.raw_store().account(name) is None:
            svc.access.add_user(name, role, PASSWORD, by=svc.principal, frontend="cli")


def audit_rows(at: AppTest) -> list[dict[str, str]]:
    """The History page's audit trail (an HTML table) as rows of its columns."""
    tables = [h.proto.body for h in at.get("html") if ">front end</th>" in h.proto.body]
    assert len(tables) == 1, f"{len(tables)} audit tables"
    rows = re.findall(r"<tr>(.*?)</tr>", tables[0])[1:]  # the first is the header
    return [dict(zip(AUDIT_COLUMNS, (html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)),
                     strict=True)) for row in rows]


def log_in(at: AppTest, name: str, password: str) -> AppTest:
    widget(at.text_input, "Account").set_value(name)
    widget(at.text_input, "Password").set_value(password)
    button(at, "Log in").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_no_admin_no_service_then_login_on_every_deep_link(gated, login_home: Path) -> None:
    at = gated("pages/records.py", conv=CONV)
    text = all_text(at)
    if services(login_home).raw_store().account("ada") is None:
        assert "no admin account yet" in text and SECRET_WORD not in text
    assert not at.text_input  # not even a login form
    accounts(services(login_home))
    for page in ("pages/home.py", "pages/records.py", "pages/episodes.py", "pages/ask.py", "pages/graphs.py",
                 "pages/history.py", "pages/load.py", "pages/evaluate.py", "pages/settings.py"):
        at = gated(page, conv=CONV)
        text = all_text(at)
        assert SECRET_WORD not in text and CONV not in text, page
        assert [w.label for w in at.text_input] == ["Account", "Password"], page
        assert not at.sidebar.selectbox, page  # no conversation picker either
    at = log_in(gated("pages/records.py", conv=CONV, record=""), "ada", PASSWORD)
    assert SECRET_WORD in all_text(at)  # the deep-linked page, after the login
    assert "Signed in as **ada** (admin)" in [c.value for c in at.sidebar.caption]
    button(at, "Log out").click().run()
    assert [w.label for w in at.text_input] == ["Account", "Password"]
    assert SECRET_WORD not in all_text(at)


def test_viewer_sees_no_edit_forms_and_no_load_page(gated, login_home: Path) -> None:
    accounts(services(login_home))
    at = log_in(gated("pages/records.py", conv=CONV), "vic", PASSWORD)
    text = all_text(at)
    assert SECRET_WORD in text
    assert "Read-only: a viewer account" in text
    labels = [b.label for b in [*at.button, *at.form_submit_button]]
    assert not any(x.startswith(("Save changes", "✓ Correct", "Merge entities")) for x in labels)
    at.switch_page("pages/load.py").run()
    assert "it needs an admin account (you are viewer)" in all_text(at)
    assert not at.file_uploader and "Import" not in [b.label for b in at.button]
    at.switch_page("pages/history.py").run()
    assert "Audit trail" not in [h.value for h in at.subheader]  # admins only
    at = log_in(gated("pages/records.py", conv=CONV), "ada", PASSWORD)
    assert any(b.label.startswith("Save changes") for b in at.form_submit_button)  # the admin does get them
    at.switch_page("pages/history.py").run()
    assert "Audit trail" in [h.value for h in at.subheader]
    widget(at.selectbox, "Action").set_value("login").run()
    assert not at.dataframe  # a light HTML table: no data grid for the browser to load
    trail = audit_rows(at)
    assert {r["action"] for r in trail} == {"login"} and {"vic", "ada"} <= {r["account"] for r in trail}
    svc = services(login_home)
    rows = svc.access.audit_log(svc.principal, who="vic", frontend="app")
    assert {"login", "read"} <= {r["action"] for r in rows}
    assert any(r["detail"] == "page Records" and r["conv_id"] == CONV for r in rows)


def test_lockout_after_three_failures_in_the_app(gated, login_home: Path) -> None:
    svc = services(login_home)
    svc.access.add_user("lou", "annotator", PASSWORD, by=svc.principal, frontend="cli")
    at = gated("pages/home.py")
    for _ in range(3):
        at = log_in(at, "lou", "wrong password!")
        assert [e.value for e in at.error] == ["wrong account name or password"]
    at = log_in(at, "lou", PASSWORD)
    assert "is locked for" in at.error[0].value and SECRET_WORD not in all_text(at)
