"""A server bound beyond loopback asks for a login: a real browser following a deep link while
logged out sees only the login form (no conversation, no turn, no page list); after logging in
it lands on the deep-linked page with its data; logging out hides everything again."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ROOT, SAMPLE_ID, _env, serve, shot, wait_ready

pytestmark = pytest.mark.browser
PASSWORD = "browser-test-password-5"
TURN = "Long time no chat"  # a phrase of the sample's first turn


def test_deep_link_while_logged_out_shows_only_the_login(built_template: Path, tmp_path: Path,
                                                        page) -> None:
    home = tmp_path / "home"
    shutil.copytree(built_template, home)
    subprocess.run([sys.executable, "-m", "memory_core", "--home", str(home), "user", "add", "ada", "--role",
                    "annotator", "--password-stdin"], input=PASSWORD + "\n", text=True, cwd=ROOT,
                   env=_env(home), check=True, capture_output=True)
    with serve(home, tmp_path / "server.log", address="0.0.0.0") as url:
        page.goto(f"{url}/episodes?conv={SAMPLE_ID}")
        wait_ready(page)
        expect(page.get_by_text("has no admin account yet")).to_be_visible()  # an annotator is no admin
        assert SAMPLE_ID not in page.content() and TURN not in page.content()
        assert page.get_by_role("textbox", name="Account").count() == 0  # not even a login form
        shot(page, "login-no-admin")
    # an embedded home has one writing process: the admin is made while no server runs
    subprocess.run([sys.executable, "-m", "memory_core", "--home", str(home), "user", "role", "ada", "admin"],
                   cwd=ROOT, env=_env(home), check=True, capture_output=True)
    with serve(home, tmp_path / "server2.log", address="0.0.0.0") as url:
        page.goto(f"{url}/episodes?conv={SAMPLE_ID}")
        wait_ready(page)
        expect(page.get_by_role("textbox", name="Account")).to_be_visible()
        html = page.content()
        assert SAMPLE_ID not in html and TURN not in html and "Episodes" not in page.inner_text("body")
        shot(page, "login-deep-link")
        page.get_by_role("textbox", name="Account").fill("ada")
        page.get_by_role("textbox", name="Password").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()
        expect(page.get_by_text(TURN).first).to_be_visible(timeout=60_000)
        wait_ready(page)
        assert f"/episodes?conv={SAMPLE_ID}" in page.url
        expect(page.get_by_text("Signed in as")).to_be_visible()
        shot(page, "login-after")
        page.get_by_role("button", name="Log out").click()
        expect(page.get_by_role("textbox", name="Account")).to_be_visible()
        wait_ready(page)
        assert TURN not in page.content()
    assert PASSWORD not in (tmp_path / "server.log").read_text() + (tmp_path / "server2.log").read_text()
