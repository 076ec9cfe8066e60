"""Words: irregular forms meet their base form, in the stemmer and so in BM25."""

from __future__ import annotations

from memory_core.query.lexical import LexicalIndex
from memory_core.query.text import stem, terms, word_spans, words


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


def test_words_of_any_script_stay_whole_and_accents_or_look_alikes_do_not_split_them() -> None:
    text = "Dagny flew to Tromsø, then ate crêpes in Lübeck."
    assert words(text) == ["dagny", "flew", "to", "tromsø", "then", "ate", "crepes", "in", "lubeck"]
    # a highlight covers the whole written word
    assert [text[a:b] for a, b, w in word_spans(text) if w in ("tromsø", "lubeck")] == ["Tromsø", "Lübeck"]
    # the same name with or without its accent, and a word typed with a Cyrillic "c" or "o"
    index = LexicalIndex(["We met at the creperie near the station.", "My crush finally texted back!",
                          "The rooftop bar was closed."])
    assert [i for i, _s in index.top(terms("Did she like the crêperie?"), 3)] == [0]
    assert [i for i, _s in index.top(terms("When did the \u0441rush text?"), 3)] == [1]
    assert [i for i, _s in index.top(terms("Which r\u043eoftop bar?"), 3)] == [2]
    # a word all in another script is left as it is
    assert words("Привет, Αθήνα!") == ["привет", "αθηνα"]
