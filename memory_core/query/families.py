"""Property families: a small lexicon that lets a question reach records by kind of fact.

A question asks about a *kind* of fact ("Which pastimes does Oskar take up?",
"Where has he hiked?", "What are his dogs called?") in words the records rarely repeat:
the build writes ``Oskar · climbs = bouldering on weekends``, ``Oskar · rows = with his sister``.
Both sides are mapped to families through one table: a record's property name (split on
``_``: ``goes_on`` -> ``go``) gives its family strongly, the words of its value weakly; a
question's content words and its answer form (``where`` -> places, ``who`` -> relations)
give the families it asks about. The table is data: a family and the words (property
names, verbs, nouns) that signal it; words are stemmed when the table is loaded, so
``camped``/``camps``/``camping`` meet at ``camp``.

Catch-all properties (``description``, ``shares_image``, ``talks_about``, ...) belong to no
family: they match only by entity and words, never by kind.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from types import MappingProxyType

from memory_core.query.text import STOPWORDS, stem, words

# family -> words that signal it (property names, question words, value nouns)
FAMILY_WORDS: Mapping[str, str] = MappingProxyType(
    {
        "activities": """
            activity activities hobby hobbies pastime pastimes partake practice practices play plays
            sport sports camp camps camping hike hikes hiking swim swims swimming run runs running jog
            dance dances dancing paint paints painting draw drawing cook cooking bake baking garden
            gardening volunteer volunteering ski skiing surf surfing cycle cycles cycling bike biking
            ride riding climb climbing fish fishing yoga meditate meditation exercise workout train
            training pottery craft crafts knit knitting sew sing singing travel traveling trip trips
            explore exploring roast photograph photographs photography compete competes perform
            performs rehearse destress de-stress relax unwind spend spends_time_with enrolls_in
            walk walks boogie
        """,
        "creations": """
            make makes made create creates created build builds built paint paints painted painting
            paintings draw drew drawing drawings write writes wrote compose composed craft art artwork
            artworks sculpture pottery bowl bowls cup project projects design designs
        """,
        "events": """
            event events attend attends attended participate participated participates join joined
            joins celebrate celebrates celebrated party parade festival conference concert show shows
            meeting meetup ceremony wedding competition competitions contest race fair workshop
            session class classes reading gathering rally march exhibits exhibition
            organize organizes organized host hosts hosted speak speaks spoke talk talks speech
            presentation lecture panel seminar webinar fundraiser drive protest vigil pride gig
            tournament win wins won
        """,
        "places": """
            where place places location locations city cities country countries town home hometown
            residence live lives lived move moved moving destination visit visits visited travel
            traveled trip park beach museum mountain mountains forest lake abroad region state
        """,
        "relations": """
            family families kid kids child children son sons daughter daughters husband wife spouse
            partner mom mother dad father parent parents brother brothers sister sisters sibling
            siblings grandma grandmother grandpa grandfather grandparent grandparents friend friends
            friendship colleague colleagues coworker coworkers boss mentor mentors relative relatives
            relationship married single dating boyfriend girlfriend pet pets dog dogs cat cats puppy
            supports support
        """,
        "possessions": """
            has have own owns owned buy buys bought get gets got acquire acquires acquired purchase
            purchased item items gift gifts collection collect collects car house belongings
        """,
        "plans": """
            plan plans planning planned going wants want hope hopes hopes_for goal goals dream dreams
            future next intend intends aim looks_forward_to prepare prepares_for pursue pursues
            apply applies upcoming soon intention
        """,
        "preferences": """
            like likes liked love loves loved enjoy enjoys enjoyed favorite favourite fan fans prefer
            prefers interested interested_in interest interests passion passionate into
        """,
        "media": """
            book books read reads reading novel novels author authors movie movies film films song
            songs music musical band bands artist artists album albums watch watches watched listen
            listens podcast game games instrument instruments guitar piano violin clarinet show series
        """,
        "work": """
            job jobs career careers work works working works_on works_with occupation profession
            employer company business businesses studio store shop startup quit quits loses_job lost
            hire hired fired promotion client clients customers
        """,
        "identity": """
            identity identify identifies status personality trait traits character religion religious
            political belief beliefs believes value values member member_of community background
            heritage nationality known_for age
        """,
        "feelings": """
            feel feels felt feeling feelings emotion emotions grateful grateful_for proud proud_of happy
            sad worried worry stress stressed scared excited
        """,
        "health": """
            health injury injured sick ill illness doctor hospital surgery medication therapy
        """,
        "education": """
            school study studies studied learn learns learned class course courses degree education
            university college teach teaches taught lesson lessons student
        """,
    }
)

# answer forms that name a family on their own ("where ...?" asks for a place)
TARGET_FAMILIES: Mapping[str, frozenset[str]] = MappingProxyType(
    {"location": frozenset({"places"}), "entity": frozenset({"relations"})}
)


@lru_cache(maxsize=1)
def _stem_table() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for family, text in FAMILY_WORDS.items():
        for word in text.split():
            for part in word.split("_")[:1]:  # a property's head verb carries its family
                table.setdefault(stem(part), set()).add(family)
    return {k: frozenset(v) for k, v in table.items()}


def word_families(word: str) -> frozenset[str]:
    """Families of one (unstemmed or stemmed) word; empty when the lexicon does not know it."""
    table = _stem_table()
    return table.get(stem(word.lower()), table.get(word.lower(), frozenset()))


def families_of_words(tokens: Iterable[str]) -> frozenset[str]:
    out: set[str] = set()
    for w in tokens:
        if w not in STOPWORDS:
            out |= word_families(w)
    return frozenset(out)


@lru_cache(maxsize=4096)
def property_families(prop: str) -> frozenset[str]:
    """Families of a record property name: its head word (``goes_on`` -> ``go``)."""
    head = prop.replace("-", "_").split("_")[0].strip().lower()
    return word_families(head) if head else frozenset()


@lru_cache(maxsize=65536)
def value_families(value: str) -> frozenset[str]:
    return families_of_words(words(value))


def question_families(keywords: Iterable[str], answer_target: str) -> frozenset[str]:
    """Families a question asks about: its content words and its answer form."""
    return families_of_words(keywords) | TARGET_FAMILIES.get(answer_target, frozenset())
