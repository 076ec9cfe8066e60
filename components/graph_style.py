"""How graph nodes look: one stable colour per type and the action family of an event.

Colours depend only on the type's name (a fixed table for the types the builder produces, a
hash of the name for any other), never on which types happen to be on screen, so "person" has
the same colour in the entity graph, the event graph, the legend and every filtered view.

Event nodes carry an action such as ``"finish: Alster 10k"``; their type is the *family* of
the action's verb (movement, sport, creation, …) from a small verb lexicon, so the event graph
is coloured by what kind of thing happened instead of one colour for everything.
"""

from __future__ import annotations

import hashlib

TYPE_COLORS: dict[str, str] = {
    # entity types
    "person": "#3b5bdb", "animal": "#e8590c", "place": "#2b8a3e", "organization": "#862e9c",
    "concept": "#868e96", "event": "#c2255c", "object": "#0b7285", "time": "#5c940d",
    # event (action) families
    "travel": "#1098ad", "sport": "#f08c00", "creative": "#ae3ec9", "work": "#364fc7",
    "social": "#d6336c", "life": "#c92a2a", "home": "#66a80f", "acquire": "#0ca678",
    "communication": "#4263eb", "mind": "#7950f2", "other": "#adb5bd",
}
FALLBACK = ("#1c7ed6", "#37b24d", "#f76707", "#9c36b5", "#15aabf", "#e64980", "#74b816", "#495057",
            "#fab005", "#4c6ef5", "#12b886", "#fa5252")

# verb (first word of the action, lower case) -> family
_FAMILIES: dict[str, tuple[str, ...]] = {
    "travel": ("go", "fly", "travel", "visit", "move", "arrive", "leave", "drive", "ride", "sail",
               "return", "come", "trip", "cycle", "commute", "walk", "escape", "tour", "book"),
    "sport": ("run", "hike", "climb", "boulder", "swim", "finish", "race", "train", "bike", "ski",
              "play", "camp", "win", "practice", "practise", "complete", "lift"),
    "creative": ("paint", "sketch", "draw", "bake", "cook", "make", "record", "write", "build", "create",
                 "design", "knit", "sing", "compose", "craft", "throw", "glaze", "photograph", "nail"),
    "work": ("work", "apply", "interview", "present", "hire", "quit", "announce", "study", "learn",
             "teach", "graduate", "sign", "launch", "open", "start", "begin", "accept", "promote"),
    "social": ("meet", "babysit", "party", "celebrate", "marry", "date", "host", "invite", "join",
               "show", "give", "share", "help", "adopt", "spend"),
    "life": ("bear", "born", "die", "lose", "recover", "become", "break", "injure", "heal",
             "pregnant", "stop", "live", "turn"),
    "home": ("rent", "clean", "garden", "decorate", "renovate", "sit", "sleep", "stay"),
    "acquire": ("buy", "get", "got", "receive", "sell", "order", "take", "have", "own"),
    "communication": ("call", "text", "tell", "say", "send", "post", "write", "email", "talk", "chat"),
    "mind": ("think", "plan", "decide", "want", "hope", "wish", "feel", "worry", "consider", "realize"),
}
_VERB_FAMILY = {verb: family for family, verbs in _FAMILIES.items() for verb in verbs}


def type_color(kind: str) -> str:
    """The colour of a node type (the same for that name everywhere)."""
    name = (kind or "other").strip().lower()
    if name in TYPE_COLORS:
        return TYPE_COLORS[name]
    digest = hashlib.sha1(name.encode("utf-8")).digest()  # noqa: S324 - a colour pick, not security
    return FALLBACK[digest[0] % len(FALLBACK)]


def action_verb(action: str) -> str:
    head = (action or "").split(":", 1)[0].strip().lower()
    return head.split()[0] if head else ""


def action_family(action: str) -> str:
    """``"finish: Alster 10k"`` -> ``"sport"``; unknown verbs -> ``"other"``."""
    verb = action_verb(action)
    if verb in _VERB_FAMILY:
        return _VERB_FAMILY[verb]
    for suffix in ("ing", "ed", "s", "es"):  # "running", "moved", "buys"
        stem = verb[: -len(suffix)] if verb.endswith(suffix) else ""
        for candidate in (stem, stem + "e", stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else ""):
            if candidate in _VERB_FAMILY:
                return _VERB_FAMILY[candidate]
    return "other"
