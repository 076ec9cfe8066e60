"""First-render time of every page in a real browser, and of a 300-node graph.

    .venv/bin/python benchmarks/ui_render.py [--data ../shared/bench/locomo_dev.json] [--home DIR]
                                             [--repeat 3] [--keep] [--pages records,episodes]

Imports the LoCoMo development split into a temporary home (or reuses ``--home``), builds it
with the offline backend through the CLI, serves the app with ``streamlit run`` and opens every
page in headless Debian Chromium (a new browser context, i.e. a new Streamlit session, per
visit). A visit's time runs from navigation until Streamlit reports the script run finished and
no lazy element is still loading; for the Graphs page also until vis-network has its nodes and
their layout is final.
The first visit after the server starts is reported apart (it pays for module imports).
``--pages`` times only the named pages (``home`` is the front page), in every table; with
``--graph-nodes`` and no sizes the synthetic graphs are skipped.
Synthetic 300- and 1000-node graphs on the Graphs page's canvas component
(benchmarks/graph_canvas_app.py) are timed until drawn and until the layout is final.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PAGES = ["", "load", "episodes", "records", "graphs", "ask", "evaluate", "history", "settings"]
READY = ('[data-testid="stApp"][data-test-script-state="notRunning"]')
NO_SKELETON = "() => document.querySelectorAll('[data-testid=\"stSkeleton\"]').length === 0"
GRAPH_DRAWN = ("() => { const all = globalThis.mnGraphs || {}; const g = all.entity || all.event;"
               " return !!g && g.stats.layoutMs !== null; }")


def env(home: Path) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "MNEMOSCOPE_"))}
    out.update(MNEMOSCOPE_HOME=str(home), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               ANONYMIZED_TELEMETRY="False", PYTHONPATH=str(ROOT))
    return out


def cli(home: Path, *args: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "memory_core", "--home", str(home), *args], cwd=ROOT,
                          env=env(home), capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"memory_core {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout


def prepare(home: Path, data: Path) -> list[str]:
    listed = json.loads(cli(home, "stats", "--json")) if (home / "mnemoscope.duckdb").exists() else {}
    if not listed.get("conversations"):
        print(cli(home, "import", str(data)).strip())
    rows = [line.split("\t") for line in cli(home, "list").splitlines() if "\t" in line]
    ids = [row[0] for row in rows]
    for row in rows:
        conv, episodes = row[0], int(row[3].split()[0])
        if episodes:
            print(f"{conv}: already built ({row[3]}, {row[4]})")
            continue
        start = time.perf_counter()
        cli(home, "build", "--conv", conv)
        print(f"built {conv} in {time.perf_counter() - start:.1f} s")
    print(cli(home, "stats", "--json").strip())
    return ids


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(script: Path, home: Path, out: Path | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """``streamlit run script`` on a free port (output to ``out``, else discarded), once healthy."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(script), "--server.headless", "true",
         "--server.address", "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, env=env(home), stderr=subprocess.STDOUT,
        stdout=out.open("w") if out else subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                return proc, url
        except OSError:
            time.sleep(0.3)
    proc.terminate()
    raise SystemExit(f"streamlit did not start ({script.name})")


def visit(browser, url: str, graph: bool = False, context=None) -> float:  # type: ignore[no-untyped-def]
    """One page load in a new Streamlit session: a new browser context (empty HTTP cache), or a
    new tab of ``context`` (the browser has the app's scripts cached, as a returning user)."""
    own = context is None
    if own:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    start = time.perf_counter()
    page.goto(url)
    page.wait_for_selector(READY, timeout=120_000)
    page.wait_for_function(NO_SKELETON, timeout=120_000)
    if graph:
        page.wait_for_function(GRAPH_DRAWN, timeout=120_000)
    took = time.perf_counter() - start
    if own:
        context.close()
    else:
        page.close()
    return took


TITLES = {"": "Home", "load": "Load & build", "episodes": "Episodes", "records": "Records",
          "graphs": "Graphs", "ask": "Ask", "evaluate": "Evaluate", "history": "History",
          "settings": "Settings"}


def in_session(browser, url: str, conv: str,  # type: ignore[no-untyped-def]
               pages: list[str] = PAGES) -> dict[str, float]:
    """One browser session moving page to page through the sidebar, as a user does (through
    ``pages``, then back home)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(f"{url}/?conv={conv}")
    page.wait_for_selector(READY, timeout=120_000)
    page.wait_for_function(NO_SKELETON, timeout=120_000)
    out: dict[str, float] = {}
    for name in [*(p for p in pages if p), ""]:
        start = time.perf_counter()
        page.locator('[data-testid="stSidebar"]').get_by_role("link", name=TITLES[name], exact=True).click()
        page.wait_for_url(f"**/{name}?conv={conv}*")  # a page may add its own parameters
        page.wait_for_selector(READY, timeout=120_000)
        page.wait_for_function(NO_SKELETON, timeout=120_000)
        if name == "graphs":
            page.wait_for_function(GRAPH_DRAWN, timeout=120_000)
        out[name] = time.perf_counter() - start
    context.close()
    return out


def first_question(browser, url: str, conv: str, question: str, pause: float) -> float:  # type: ignore[no-untyped-def]
    """A new session opens Ask (which starts warming the index), waits ``pause`` seconds (the
    user typing), asks; seconds from the click until the answer is drawn."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(f"{url}/ask?conv={conv}")
    page.wait_for_selector(READY, timeout=120_000)
    page.get_by_label("Question", exact=True).fill(question)
    time.sleep(pause)
    start = time.perf_counter()
    page.get_by_role("button", name="Ask", exact=True).click()
    page.wait_for_selector(".mn-answer", timeout=300_000)
    page.wait_for_selector(READY, timeout=300_000)
    took = time.perf_counter() - start
    context.close()
    return took


def standalone_graph(browser, url: str, nodes: int, layout: str) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """A synthetic ``nodes``-node graph on the app's canvas component, in a new session.

    wall: navigation until vis-network has drawn / until the layout is final (includes the
    page load, the Python run and the data transfer); drawn_ms / layout_ms: measured in the
    browser from the moment the component received its data.
    """
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    start = time.perf_counter()
    page.goto(f"{url}/?nodes={nodes}&layout={layout}")
    page.wait_for_function("() => globalThis.mnGraphs && globalThis.mnGraphs.bench"
                           " && globalThis.mnGraphs.bench.stats.drawnMs !== null", timeout=120_000)
    drawn = time.perf_counter() - start
    page.wait_for_function("() => globalThis.mnGraphs.bench.stats.layoutMs !== null", timeout=120_000)
    stable = time.perf_counter() - start
    stats = page.evaluate("() => globalThis.mnGraphs.bench.stats")
    page.close()
    return {"nodes": stats["nodes"], "edges": stats["edges"], "wall_drawn": drawn, "wall_stable": stable,
            "drawn_ms": stats["drawnMs"], "layout_ms": stats["layoutMs"]}


def graph_figures(browser, sizes: list[int]) -> None:  # type: ignore[no-untyped-def]
    if not sizes:
        return
    proc, url = serve(ROOT / "benchmarks" / "graph_canvas_app.py", Path(tempfile.gettempdir()))
    try:
        standalone_graph(browser, url, 50, "force")  # warm-up: imports, component registration
        print("\ngraph canvas (custom component, vis-network inline), synthetic graphs, new session each:")
        print(f"{'nodes':>6} {'edges':>6} {'layout':<6} {'in-browser draw':>16} {'layout final':>13} "
              f"{'wall drawn':>11} {'wall final':>11}")
        for n in sizes:
            for layout in ("force", "time"):
                r = standalone_graph(browser, url, n, layout)
                print(f"{r['nodes']:>6} {r['edges']:>6} {layout:<6} {r['drawn_ms'] / 1000:>14.2f} s "
                      f"{r['layout_ms'] / 1000:>11.2f} s {r['wall_drawn']:>9.2f} s "
                      f"{r['wall_stable']:>9.2f} s")
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "bench" / "locomo_dev.json"))
    parser.add_argument("--home", default=None, help="reuse (or create) this home instead of a temp one")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", action="store_true", help="keep the temporary home")
    parser.add_argument("--graph-nodes", type=int, nargs="*", default=[300, 1000],
                        help="sizes of the synthetic graphs to time (default 300 1000)")
    parser.add_argument("--pages", default=None,
                        help="comma-separated pages to time, e.g. records,ask (home = the front page; "
                             "default all)")
    parser.add_argument("--graph-only", action="store_true", help="time only the synthetic graphs")
    parser.add_argument("--question", default="",
                        help="also time this question on a newly opened Ask page (index warming)")
    args = parser.parse_args()
    pages = PAGES
    if args.pages:
        wanted = ["" if p.strip() in ("home", "") else p.strip() for p in args.pages.split(",")]
        unknown = [p for p in wanted if p not in PAGES]
        if unknown:
            parser.error(f"--pages: unknown page(s) {', '.join(unknown)}; known: home, "
                         + ", ".join(PAGES[1:]))
        pages = [p for p in PAGES if p in wanted]
    if args.graph_only:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            graph_figures(browser, args.graph_nodes)
            browser.close()
        return 0
    home = Path(args.home) if args.home else Path(tempfile.mkdtemp(prefix="mnemoscope-ui-")) / "home"
    ids = prepare(home, Path(args.data))
    from playwright.sync_api import sync_playwright

    log = home.parent / "ui_render_streamlit.log"
    proc, url = serve(ROOT / "app.py", home, log)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            conv = max(ids, key=lambda c: json.loads(cli_stats(home, c))["records"]) if ids else ""
            first = visit(browser, f"{url}/?conv={conv}")
            print(f"\nfirst visit after server start (home): {first:.2f} s")
            print(f"pages, conversation {conv} (seconds; 'cold' = the page's first visit since the "
                  f"server started, then {args.repeat} warm visits, each a new session):")
            print(f"{'page':<10} {'cold':>7} {'first':>7} {'median':>7} {'max':>7}")
            for name in pages:
                cold = visit(browser, f"{url}/{name}?conv={conv}", graph=name == "graphs")
                times = [visit(browser, f"{url}/{name}?conv={conv}", graph=name == "graphs")
                         for _ in range(args.repeat)]
                median = statistics.median(times)
                print(f"{'/' + name:<10} {cold:>7.2f} {times[0]:>7.2f} {median:>7.2f} {max(times):>7.2f}")
            cached = browser.new_context(viewport={"width": 1400, "height": 1000})
            visit(browser, f"{url}/?conv={conv}", context=cached)  # fills the browser's HTTP cache
            print(f"\nthe same, browser cache warm (a returning user: a new tab, i.e. a new session, of one "
                  f"browser; median of {args.repeat}):")
            print("  " + "  ".join(
                f"/{name} {statistics.median(visit(browser, f'{url}/{name}?conv={conv}', name == 'graphs', cached) for _ in range(args.repeat)):.2f}"  # noqa: E501
                for name in pages))
            cached.close()
            if args.question:
                for pause in (0.0, 5.0):
                    took = first_question(browser, url, conv, args.question, pause)
                    print(f"question on a newly opened Ask page after {pause:.0f} s of typing: "
                          f"{took:.2f} s from the click to the answer")
            moves = in_session(browser, url, conv, pages)
            print("\nmoving through the sidebar in one session (seconds):")
            print("  " + "  ".join(f"/{k} {v:.2f}" for k, v in moves.items()))
            graph_figures(browser, args.graph_nodes)
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=15)
        if not args.home and not args.keep:
            shutil.rmtree(home.parent, ignore_errors=True)
    return 0


def cli_stats(home: Path, conv: str) -> str:
    return cli(home, "stats", "--conv", conv, "--json")


if __name__ == "__main__":
    raise SystemExit(main())
