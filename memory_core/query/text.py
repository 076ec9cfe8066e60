"""Word handling shared by the planner, the lexical index, highlights and answers.

One tokeniser (lower-cased letters/digits, apostrophes folded), one stop-word list (Lucene's
English list plus question words) and one stemmer (Snowball English via PyStemmer), so a
word highlighted in a buffer turn is the same word BM25 matched.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterator
from functools import lru_cache

# a word is a run of letters or digits of any script ("Søren", "Graça", "café" stay whole)
_WORD_RE = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
# Cyrillic and Greek letters drawn like Latin ones (Cyrillic a c e o p x y i j s d l k; Greek
# alpha omicron rho nu kappa iota upsilon): a word that mixes them with Latin letters ("coffee"
# typed with a Cyrillic "c") is the Latin word
_LOOKALIKES = str.maketrans(
    "\u0430\u0441\u0435\u043e\u0440\u0445\u0443\u0456\u0458\u0455\u0501\u04cf\u043a"
    "\u03b1\u03bf\u03c1\u03bd\u03ba\u03b9\u03c5",
    "aceopxyijsdlk" "aopvkiu",
)
# a sentence ends at a stop followed by a space, at a line break or at the end: "Flask 2.2",
# "v0.6.2" and "$12.99" are not cut in two, and the lines of a list or of pasted code are apart
SENTENCE_RE = re.compile(r"[^\n]+?(?:[.!?]+(?=\s|$)|(?=\n)|$)")

SPELLING = 85  # rapidfuzz ratio at which a word is another spelling of a person's first name

# Lucene's English stop words plus question/auxiliary words that carry no topic.
STOPWORDS = frozenset(
    """
    a an and are as at be but by for if in into is it no not of on or such that the their then
    there these they this to was will with what when where who whom whose which why how did does do
    doing done was were is am been being has have had having i me my mine myself you your yours
    yourself he him his himself she her hers herself we us our ours they them theirs themselves it
    its itself would could should can may might must shall about any some all both each few more
    most other same so than too very s t just also from up down out over under again further once
    here only own off just ever
    """.split()  # noqa: SIM905
)

# Words too generic to anchor a requirement (they still count for BM25 through the text).
WEAK_WORDS = frozenset(
    """
    kind type sort thing things something anything way ways lot lots like get got go going went
    make made say said tell told think thought feel felt know knew see saw want wanted time times
    recently recent ever really much many one two first last new old good great
    now currently current nowadays still anymore
    """.split()  # noqa: SIM905
)

# Irregular English verb forms (past tense, past participle) and plurals, to the base form the
# stemmer then stems, so "What did she bring?" meets "she brought", "Where did he go?" meets
# "we went" and "his children" meets "a child". General morphology, one table; forms that are as
# often another word are left out ("left", "rose", "drew", "lay", "shot", "ground", "wound", "lit",
# "bore").
IRREGULAR: dict[str, str] = {
    form: base
    for base, forms in (
        entry.strip().split(":") for entry in re.split(r"[|\n]", """
        arise:arose arisen|awake:awoke awoken|bear:borne|beat:beaten|become:became|begin:began begun
        bend:bent|bite:bit bitten|bleed:bled|blow:blew blown|break:broke broken|breed:bred|bring:brought
        build:built|burn:burnt|buy:bought|catch:caught|choose:chose chosen|come:came|creep:crept
        deal:dealt|dig:dug|dive:dove|draw:drawn|dream:dreamt|drink:drank drunk|drive:drove driven
        eat:ate eaten|fall:fell fallen|feed:fed|feel:felt|fight:fought|find:found|flee:fled
        fly:flew flown|forbid:forbade forbidden|forget:forgot forgotten|forgive:forgave forgiven
        freeze:froze frozen|get:got gotten|give:gave given|go:went gone|grow:grew grown
        hang:hung|hear:heard|hide:hid hidden|hold:held|keep:kept|kneel:knelt|know:knew known|lead:led
        lend:lent|lose:lost|make:made|mean:meant|meet:met|overcome:overcame
        pay:paid|ride:rode ridden|ring:rang rung|rise:risen|run:ran|say:said|see:saw seen|seek:sought
        sell:sold|send:sent|shake:shook shaken|shine:shone|show:shown|shrink:shrank shrunk
        sing:sang sung|sink:sank sunk|sit:sat|sleep:slept|slide:slid|speak:spoke spoken|speed:sped
        spend:spent|spin:spun|stand:stood|steal:stole stolen|stick:stuck|sting:stung|stink:stank
        strike:struck|swear:swore sworn|sweep:swept|swim:swam swum|swing:swung|take:took taken
        teach:taught|tear:tore torn|tell:told|think:thought|throw:threw thrown|understand:understood
        wake:woke woken|wear:wore worn|weep:wept|win:won|withdraw:withdrew|write:wrote written
        child:children|man:men|woman:women|person:people|foot:feet|tooth:teeth|mouse:mice|goose:geese
        wife:wives|knife:knives|wolf:wolves|shelf:shelves|thief:thieves|calf:calves|half:halves
        """) if entry.strip()
    )
    for form in forms.split()
}

_stemmer_lock = threading.Lock()


@lru_cache(maxsize=1)
def _stemmer() -> object:
    import Stemmer

    return Stemmer.Stemmer("english")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    word = IRREGULAR.get(word, word)
    with _stemmer_lock:
        return str(_stemmer().stemWord(word))  # type: ignore[attr-defined]


def _plain(word: str) -> str:
    """Without accents ("graça" -> "graca", "lübeck" -> "lubeck"), and a word mixing Latin
    letters with look-alikes of another script in Latin letters only."""
    if word.isascii():
        return word
    plain = "".join(ch for ch in unicodedata.normalize("NFKD", word) if not unicodedata.combining(ch))
    if any("a" <= ch <= "z" for ch in plain):
        plain = plain.translate(_LOOKALIKES)
    return plain


def fold(word: str) -> str:
    """Lower-case, drop accents and a possessive/contraction tail ("Melanie's" -> "melanie",
    "Zoë's" -> "zoe")."""
    w = _plain(word.lower()).replace("’", "'")
    if "'" in w:
        head, tail = w.split("'", 1)
        if tail in ("s", "ll", "re", "ve", "d", "m", "t"):
            return head
        return head + tail
    return w


def words(text: str) -> list[str]:
    return [fold(m.group(0)) for m in _WORD_RE.finditer(text)]


def word_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, folded word) for each word of ``text``; spans cover the surface form."""
    for m in _WORD_RE.finditer(text):
        yield m.start(), m.end(), fold(m.group(0))


def terms(text: str) -> list[str]:
    """Stemmed content terms (stop words removed), in order, duplicates kept."""
    return [stem(w) for w in words(text) if w not in STOPWORDS]


def content_words(text: str) -> list[str]:
    """Content words (not stemmed), in order, without duplicates."""
    seen: dict[str, None] = {}
    for w in words(text):
        if w not in STOPWORDS and w not in seen:
            seen[w] = None
    return list(seen)
