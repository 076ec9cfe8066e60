"""How fast the Records page's queries are with many records.

Inserts N synthetic records (default 20,000) spread over sessions and episodes into a fresh
DuckDB home, then times pages of ``search_records`` (default order, sorts, filters, free
text, deep pages) and, with ``--edits K``, K versioned edits through ``Services.edit_record``
(version check + audit row + record vector + entity-graph refresh).

    .venv/bin/python benchmarks/records_page.py [--records 20000] [--repeat 20] [--edits 20]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

from memory_core.config import Settings
from memory_core.models import Conversation, Episode, Modality, Record, Session, Turn
from memory_core.store import Store

WORDS = ("paint", "trip", "Lisbon", "guitar", "school", "dog", "garden", "novel", "concert", "hiking",
         "recipe", "museum", "job", "sister", "camping", "pottery", "marathon", "violin", "beach", "car")
PROPS = ("likes", "paints", "destination", "owns", "works_at", "studies", "plays", "visited", "plans",
         "friend_of", "sibling_of", "reads", "attended", "cooks", "feels")
TYPES = ("person", "place", "organization", "activity", "object", "event")


def make_home(store: Store, conv_id: str, n_records: int, seed: int = 7) -> None:
    rnd = random.Random(seed)
    sessions_n, per_session_turns, episode_len = 40, 60, 6
    start = datetime(2023, 1, 1, 10, 0)
    sessions = []
    for s in range(1, sessions_n + 1):
        when = start + timedelta(days=7 * s)
        turns = tuple(Turn(id=f"D{s}:{i + 1}", session=s, index=i, speaker=("Ana", "Ben")[i % 2],
                           text=f"turn {i} about {rnd.choice(WORDS)}", session_time=when)
                      for i in range(per_session_turns))
        sessions.append(Session(index=s, time=when, time_text=str(when), turns=turns))
    store.save_conversation(Conversation(id=conv_id, speakers=("Ana", "Ben"), sessions=tuple(sessions)))
    entities = [f"{w.title()}{k}" for w in WORDS for k in range(10)] + ["Ana", "Ben"]
    per_session = n_records // sessions_n
    n = 0
    for session in sessions:
        episodes = []
        for e in range(per_session_turns // episode_len):
            ids = tuple(t.id for t in session.turns[e * episode_len:(e + 1) * episode_len])
            episodes.append(Episode(id=f"{conv_id}:S{session.index}:E{e + 1}", conv_id=conv_id,
                                    session=session.index, turn_ids=ids, start_time=session.time))
        records = []
        for i in range(per_session):
            ep = episodes[i % len(episodes)]
            records.append(Record(
                id=f"{ep.id}:R{i}", conv_id=conv_id, episode_id=ep.id, entity=rnd.choice(entities),
                entity_type=rnd.choice(TYPES), property=rnd.choice(PROPS),
                value=" ".join(rnd.sample(WORDS, 2)), modality=rnd.choice(list(Modality)),
                valid_time=rnd.choice([None, "2023-05", "2023-06-01", "2022"]),
                evidence_turn_ids=(rnd.choice(ep.turn_ids),), confidence=round(rnd.random(), 3),
                importance=round(rnd.random(), 3),
            ))
            n += 1
        store.save_session_memory(conv_id, session.index, episodes, records, [], backend="synthetic")


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float, object]:
    samples, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        samples.append((time.perf_counter() - t0) * 1000)
    samples.sort()
    p95 = samples[min(len(samples) - 1, round(0.95 * (len(samples) - 1)))]
    return statistics.median(samples), p95, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--edits", type=int, default=0, help="also time K edits through Services")
    parser.add_argument("--torch-threads", type=int, default=0,
                        help="torch intra-op threads for the embedder (0: torch's default)")
    args = parser.parse_args()
    if args.torch_threads:
        import torch

        torch.set_num_threads(args.torch_threads)

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        store = Store.open_home(home)
        t0 = time.perf_counter()
        make_home(store, "bench", args.records)
        total = store.scalar("SELECT count(*) FROM records")
        print(f"inserted {total} records in {time.perf_counter() - t0:.1f}s (DuckDB file {home})")
        cases: list[tuple[str, dict[str, object]]] = [
            ("default order, page 1", {}),
            ("default order, page 200", {"page": 200}),
            ("sort -confidence", {"sort": "-confidence"}),
            ("sort value, page 100", {"sort": "value", "page": 100}),
            ("sort -valid_time", {"sort": "-valid_time"}),
            ("filter session=17", {"filters": {"session": 17}}),
            ("filter property+type+conf", {"filters": {"property": "likes", "entity_type": "person",
                                                      "min_confidence": 0.5}}),
            ("filter entity (exact)", {"filters": {"entity": "guitar3"}}),
            ("text 'lisbon'", {"query": "lisbon"}),
            ("text 'lisbon paint' -importance", {"query": "lisbon paint", "sort": "-importance"}),
            ("text + filters + sort", {"query": "garden", "filters": {"modality": ["planned", "desired"]},
                                       "sort": "entity"}),
        ]
        print(f"{'query (page_size 50)':<36} {'median ms':>10} {'p95 ms':>8} {'total':>7}")
        for name, kwargs in cases:
            med, p95, result = timed(lambda kw=kwargs: store.search_records("bench", **kw), args.repeat)
            rows, count = result  # type: ignore[misc]
            print(f"{name:<36} {med:>10.1f} {p95:>8.1f} {count:>7}")
        med, p95, _ = timed(lambda: store.record_facets("bench"), args.repeat)
        print(f"{'record_facets':<36} {med:>10.1f} {p95:>8.1f}")

        if args.edits:
            from memory_core.services import Services

            services = Services(Settings(home=home), store=store)
            rows, _ = store.search_records("bench", page_size=args.edits, sort="-importance")
            services.embedder.embed(["warm up"])
            services.curation.edit_record(rows[0].id, {"value": "warm"}, who="bench", expected_version=1)
            samples = []
            for r in rows[1:]:
                t0 = time.perf_counter()
                services.curation.edit_record(r.id, {"value": r.value + " (checked)"}, who="bench",
                                     expected_version=r.version)
                samples.append((time.perf_counter() - t0) * 1000)
            samples.sort()
            print(f"{'edit_record (incl. graph refresh)':<36} {statistics.median(samples):>10.1f} "
                  f"{samples[round(0.95 * (len(samples) - 1))]:>8.1f} {len(samples):>7}")
            services.close()
        else:
            store.close()


if __name__ == "__main__":
    main()
