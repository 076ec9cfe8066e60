"""Browser fixtures: the real app served by ``streamlit run`` on a temp home, driven by
Debian's Chromium through Playwright (never ``playwright install``).

Homes are prepared before the server starts, through the project's own CLI in a subprocess
(DuckDB allows one writing process, and the server is that process while it runs).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Dialog, Page

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_data" / "sample_conversation.json"
HOSTILE = ROOT / "tests" / "fixtures" / "hostile_conversation.json"  # a test fixture, not a sample
SHOTS = ROOT / "test-artifacts" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SAMPLE_ID = "demo-maya-jonas"


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "MNEMOSCOPE_"))}
    env.update(MNEMOSCOPE_HOME=str(home), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               ANONYMIZED_TELEMETRY="False", PYTHONPATH=str(ROOT))
    return env


def cli(home: Path, *args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    """Run ``python -m memory_core --home HOME ARGS`` and fail the test on a non-zero exit."""
    proc = subprocess.run([sys.executable, "-m", "memory_core", "--home", str(home), *args],
                          cwd=ROOT, env=_env(home), capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"memory_core {' '.join(args)} failed: {proc.stderr.strip()}"
    return proc


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serve(home: Path, log: Path, *, theme: str | None = None, address: str = "127.0.0.1") -> Iterator[str]:
    """``streamlit run app.py`` on ``home``; yields the base URL once healthy.

    ``theme`` ("dark" or "light") overrides the app's ``theme.base``; ``address`` is the bind
    address (anything but loopback makes the app ask for a login)."""
    port = _free_port()
    cmd = [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true",
           "--server.address", address, "--server.port", str(port),
           "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    if theme is not None:
        cmd += ["--theme.base", theme]
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=_env(home), stdout=out, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                        if r.status == 200:
                            break
                except OSError:
                    pass
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"streamlit did not start: {log.read_text()[-2000:]}")
                time.sleep(0.3)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()


@pytest.fixture(scope="session")
def built_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample conversation imported and (offline) built once; never served, only copied
    (a home is a folder of files, and a copy of one no server has open is a whole home)."""
    home = tmp_path_factory.mktemp("template") / "home"
    cli(home, "import", str(SAMPLE))
    cli(home, "build", "--conv", SAMPLE_ID)
    return home


@pytest.fixture(scope="session")
def built_home(built_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with the sample conversation imported and (offline) built."""
    home = tmp_path_factory.mktemp("built") / "home"
    shutil.copytree(built_template, home)
    return home


@pytest.fixture(scope="session")
def dark_app(built_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app in Streamlit's dark theme (``--theme.base dark``) on its own copy of the built home
    (one server per home: DuckDB allows one writing process)."""
    home = tmp_path_factory.mktemp("dark") / "home"
    shutil.copytree(built_template, home)
    with serve(home, tmp_path_factory.mktemp("logs") / "dark.log", theme="dark") as url:
        yield url


@pytest.fixture(scope="session")
def fresh_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with the sample imported but not built (for watching a build live)."""
    home = tmp_path_factory.mktemp("fresh") / "home"
    cli(home, "import", str(SAMPLE))
    return home


@pytest.fixture(scope="session")
def built_app(built_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve(built_home, tmp_path_factory.mktemp("logs") / "built.log") as url:
        yield url


@pytest.fixture(scope="session")
def fresh_app(fresh_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve(fresh_home, tmp_path_factory.mktemp("logs") / "fresh.log") as url:
        yield url


@pytest.fixture(scope="session")
def chromium() -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (make chromium)")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(chromium: Browser) -> Iterator[Page]:
    """A fresh browser page; every JavaScript dialog is recorded in ``page.dialogs``."""
    context = chromium.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    dialogs: list[str] = []

    def _on_dialog(dialog: Dialog) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    pg.on("dialog", _on_dialog)
    setattr(pg, "dialogs", dialogs)  # the tests read page.dialogs (Page has no such field)
    pg.set_default_timeout(30_000)
    yield pg
    context.close()


def shot(page: Page, name: str, max_height: int = 7000) -> Path:
    """Save a screenshot of the whole page for a human to look at.

    Streamlit scrolls inside its main container, so the viewport is stretched to the content's
    height for the screenshot and restored afterwards.
    """
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    size = page.viewport_size
    assert size is not None  # the context sets a viewport
    height = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('[data-testid=\"stMain\"], "
        "[data-testid=\"stMainBlockContainer\"]')].map(e => e.scrollHeight), 0)")
    page.set_viewport_size({"width": size["width"], "height": max(size["height"],
                                                                  min(int(height) + 80, max_height))})
    page.wait_for_timeout(300)
    page.screenshot(path=str(path))
    page.set_viewport_size(size)
    return path


def wait_ready(page: Page, timeout: float = 60_000) -> None:
    """Wait until Streamlit has finished the current script run and drawn lazy elements."""
    page.wait_for_selector(
        '[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=timeout)
    page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=\"stSkeleton\"]').length === 0",
        timeout=timeout)


def choose(page: Page, label: str, option: str) -> None:
    """Pick ``option`` (its visible text, or a prefix of it) in the Streamlit selectbox labelled ``label``."""
    page.get_by_role("combobox", name=label, exact=True).click()
    page.get_by_role("option").filter(has_text=option).first.click()
    wait_ready(page)


def goto(page: Page, url: str) -> float:
    """Open ``url`` and wait for the first complete render; returns the seconds it took."""
    start = time.perf_counter()
    page.goto(url)
    wait_ready(page)
    return time.perf_counter() - start
