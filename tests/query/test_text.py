"""Words: irregular forms meet their base form, in the stemmer and so in BM25."""

from __future__ import annotations

from memory_core.query.lexical import LexicalIndex
from memory_core.query.text import stem, terms


def test_irregular_past_tenses_and_plurals_stem_as_their_base() -> None:
    for form, base in [("brought", "bring"), ("went", "go"), ("bought", "buy"), ("taught", "teach"),
                       ("ran", "run"), ("children", "child"), ("mice", "mouse"), ("written", "writing")]:
        assert stem(form) == stem(base), form
    # forms that are as often other words keep their own stem
    assert stem("left") != stem("leave") and stem("shot") != stem("shoot")


def test_a_question_in_the_base_form_finds_the_turn_in_the_past_tense() -> None:
    index = LexicalIndex(["The cat sat on my laptop again.", "He brought me a dead sparrow at dawn.",
                          "We went to the lake.", "She writes songs."])
    assert [i for i, _s in index.top(terms("What did he bring?"), 4)] == [1]  # "bring" meets "brought"
    assert [i for i, _s in index.top(terms("Where did they go?"), 4)] == [2]
