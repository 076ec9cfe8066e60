"""The offline answer: short spans by answer form, speaker awareness, support levels."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime, timedelta

import pytest

from memory_core.backends.offline.answer_model import Option, default_model
from memory_core.backends.offline.answering import (
    candidates,
    extractive_answer,
    options,
    state_record,
    with_verb,
)
from memory_core.backends.offline.compose import Choice, category_head, vague_phrase
from memory_core.backends.offline.nlp import parse_many
from memory_core.backends.offline.planner import plan_question
from memory_core.config import Settings
from memory_core.contracts import Vocabulary
from memory_core.embeddings import shared_embedder
from memory_core.models import Answer, BufferTurn, Record, SupportLevel, Turn
from memory_core.query.buffer import buffer_turn
from memory_core.query.premise import unmentioned
from memory_core.query.question_form import answer_target
from memory_core.services import Services

EMBED = shared_embedder().embed
VOCAB = Vocabulary(
    speakers=("Maya", "Jonas"),
    entities=(("Rex", "animal"), ("Lisbon", "place")),
    properties=(),
)
JULY = datetime(2023, 7, 15, 10, 0)


def _buffer(*turns: tuple[str, str, str]) -> list[BufferTurn]:
    out = []
    for turn_id, speaker, text in turns:
        session, index = turn_id[1:].split(":")
        turn = Turn(
            id=turn_id,
            session=int(session),
            index=int(index) - 1,
            speaker=speaker,
            text=text,
            session_time=JULY,
        )
        out.append(buffer_turn(turn, None, {}))
    return out


def _ask(question: str, buffer: list[BufferTurn]):
    """As the query pipeline asks: the premise checked on the buffer, then the offline answer."""
    return extractive_answer(question, plan_question(question, VOCAB), buffer,
                             unmentioned=unmentioned(question, buffer), parse=parse_many, embed=EMBED)


def test_answer_comes_from_the_asked_persons_words_not_the_other_speakers() -> None:
    buffer = _buffer(
        ("D1:1", "Jonas", "I adopted a kitten named Miso, she is tiny."),
        ("D1:2", "Maya", "Fun! I adopted a puppy called Rex."),
    )
    maya = _ask("What did Maya adopt?", buffer)
    assert maya.text == "puppy called Rex [D1:2]" and maya.cited_turn_ids == ("D1:2",)
    jonas = _ask("What did Jonas adopt?", buffer)
    assert jonas.text == "kitten named Miso [D1:1]"


def test_week_scale_times_are_kept_as_said_against_the_session_date() -> None:
    assert vague_phrase("last Friday", JULY) == "the Friday before 15 July 2023 (14 July 2023)"
    # said on a Friday, "last Friday" is a week back; the day is worked out for the reader
    friday = JULY - timedelta(days=1)
    assert vague_phrase("last Friday", friday) == "the Friday before 14 July 2023 (7 July 2023)"
    assert vague_phrase("past Monday", JULY) == "the Monday before 15 July 2023 (10 July 2023)"
    assert vague_phrase("last week", JULY) == "the week before 15 July 2023"
    assert vague_phrase("two weekends ago", JULY) == "two weekends before 15 July 2023"
    assert vague_phrase("this week", JULY) == "the week of 15 July 2023"
    assert vague_phrase("yesterday", JULY) is None  # a day is resolved exactly instead
    buffer = _buffer(("D2:4", "Maya", "I got the call offering me the museum job last Friday!"))
    answer = _ask("When did Maya get the call offering her the museum job?", buffer)
    assert answer.text == "the Friday before 15 July 2023 (14 July 2023) [D2:4]"
    assert answer.supported  # supported or weak: the calibrated model grades it


def test_exact_days_are_resolved_and_durations_answered_as_said() -> None:
    buffer = _buffer(("D1:3", "Maya", "I ran a charity race yesterday, it was for mental health."))
    assert _ask("When did Maya run a charity race?", buffer).text == "14 July 2023 [D1:3]"
    lasting = _buffer(("D1:5", "Jonas", "I have known these friends for 4 years, since I moved here."))
    assert _ask("How long has Jonas known his friends?", lasting).text == "4 years [D1:5]"
    resting = _buffer(("D2:7", "Maya", "The doctor said my ankle needs rest for a month, so no climbing."))
    assert _ask("How long does Maya's ankle need rest?", resting).text == "a month [D2:7]"


def test_a_time_said_relative_to_the_session_is_answered_as_a_date() -> None:
    ahead = _buffer(("D5:2", "Jonas", "Teun and I are finally painting the hallway tomorrow."))
    assert _ask("When will Jonas paint the hallway?", ahead).text == "16 July 2023 [D5:2]"
    # "in the morning" places nothing on the calendar: the day it was said on answers
    walk = _buffer(("D6:3", "Maya", "I walked along the canal in the morning, so calm."))
    assert _ask("When did Maya walk along the canal?", walk).text == "15 July 2023 [D6:3]"


@pytest.mark.parametrize(("turn", "question", "expected"), [
    # said on 15 July 2023: "March next year" is March 2024, not the March already gone
    (("D7:2", "Jonas", "Big step: I'm moving to Oslo in March next year."), "When is Jonas moving to Oslo?",
     "March 2024 [D7:2]"),
    # a day named by its ordinal is the nearest such day, here one to come
    (("D7:4", "Maya", "Our choir sings at the cathedral on the 2nd of August."),
     "When does Maya's choir sing at the cathedral?", "2 August 2023 [D7:4]"),
    # a season keeps its name
    (("D7:6", "Jonas", "I met Teun at a folk festival in Ghent last summer."), "When did Jonas meet Teun?",
     "summer 2022 [D7:6]"),
    # a bare month is read by its clause's tense: what is still to come lies ahead of 15 July 2023 ...
    (("D7:8", "Maya", "The library is hosting a zine fair in August and I got a table!"),
     "When is the zine fair at the library?", "August 2023 [D7:8]"),
    (("D7:9", "Jonas", "I'm going to repaint the boat in June, once the rain stops."),
     "When will Jonas repaint the boat?", "June 2024 [D7:9]"),
    # ... what is told is behind it
    (("D7:10", "Maya", "We hosted a zine fair in August, it was a mess."),
     "When did Maya host a zine fair?", "August 2022 [D7:10]"),
])
def test_a_month_day_or_season_named_without_its_year_gets_the_year_it_was_meant(
        turn: tuple[str, str, str], question: str, expected: str) -> None:
    assert _ask(question, _buffer(turn)).text == expected


def test_how_often_is_answered_with_the_frequency_said() -> None:
    buffer = _buffer(
        ("D3:2", "Jonas", "I bought a new pair of running shoes, the old ones were done."),
        ("D3:4", "Jonas", "I go to the climbing gym every two weeks with Teun."),
    )
    answer = _ask("How often does Jonas go to the climbing gym?", buffer)
    assert answer.text == "every two weeks [D3:4]"
    weekly = _buffer(("D4:1", "Maya", "Pottery is 2-3 times a week now, I love it."))
    assert _ask("How often does Maya do pottery?", weekly).text == "2-3 times a week [D4:1]"


def test_spans_follow_the_answer_form() -> None:
    assert category_head("What workshop did Maya attend?") == "workshop"
    # the attribute asked of a named owner is the category too; a name asked for is not one
    assert category_head("What are Maya's hobbies?") == "hobbies"
    assert category_head("What is her favourite colour?") == "colour"
    assert category_head("What is the name of Maya's cat?") is None
    book = _buffer(("D3:1", "Maya", 'I\'m reading "The Lean Startup" and it is great for my shop.'))
    title = _ask("What book is Maya reading?", book).text  # whole, never cut ("Lean", "Startup")
    assert "Lean Startup" in title and "shop" not in title
    count = _buffer(("D3:2", "Jonas", "We have three kids, and they love the beach."))
    # the number as said, with the noun it counts
    assert _ask("How many kids does Jonas have?", count).text == "three kids [D3:2]"
    place = _buffer(("D3:3", "Maya", "My brother moved to Lisbon for a new job in software."))
    moved = _ask("Where did Maya's brother move?", place)
    assert moved.text == "Lisbon [D3:3]"


def test_yes_no_and_likely_answers() -> None:
    buffer = _buffer(("D4:1", "Maya", "I never went camping, bugs scare me."))
    assert _ask("Did Maya go camping?", buffer).text == "No [D4:1]"
    likely = _ask("Would Maya enjoy a camping trip?", buffer)
    assert likely.text == "Likely no [D4:1]" and likely.support == SupportLevel.WEAK


def test_a_question_offering_two_choices_is_answered_with_one_of_them() -> None:
    buffer = _buffer(
        ("D4:2", "Maya", "I only do three mornings a week at the bakery, part-time suits me."),
        ("D4:3", "Jonas", "Nice, I work full-time at the studio and barely see daylight."),
    )
    works = _ask("Does Maya work full-time or part-time at the bakery?", buffer)
    assert works.text == "part-time [D4:2]" and works.support == SupportLevel.WEAK
    # a preposition both choices share is no part of the answer
    jobs = _buffer(("D4:1", "Jonas", "I work as a sound engineer at the theatre, mostly evenings."))
    assert _ask("Does Jonas work as a sound engineer or as a baker?", jobs).text == "sound engineer [D4:1]"
    # "ever"/"any" make "A or B" part of a yes/no question
    assert _ask("Has Maya ever worked full-time or part-time at the bakery?", buffer).text == "Yes [D4:2]"
    # no sentence says either: the choice closer in meaning to what was said
    quiet = _buffer(("D4:4", "Maya", "My dream vacation: a tent, a lake and no phone signal for a week."))
    assert _ask("Would Maya prefer a camping trip or a city break for her vacation?", quiet).text \
        == "camping trip [D4:4]"


def test_a_what_question_with_a_modal_asks_for_a_thing_not_for_yes_or_no() -> None:
    assert answer_target("Would Maya likely enjoy a camping trip?") == "likelihood"
    assert answer_target("Could Jonas have met Maya before 2020?") == "likelihood"
    assert answer_target("What instrument would Maya likely pick up next?") == "value"
    assert answer_target("What hobbies might Jonas take up?") == "list"
    buffer = _buffer(("D4:5", "Maya", "Next I want to pick up the cello, such a warm instrument."))
    picked = _ask("What instrument would Maya likely pick up next?", buffer).text
    assert "cello" in picked and not picked.startswith("Likely")


def test_days_between_two_events_are_counted_from_the_days_said() -> None:
    buffer = _buffer(
        ("D4:10", "Maya", "My first sprint ends on July 20, then we demo it to the team."),
        ("D4:11", "Jonas", "Sounds tight, good luck!"),
        ("D4:12", "Maya", "And the analytics deadline is August 10, which scares me more."),
    )
    days = _ask("How many days are there between the end of Maya's first sprint and her analytics deadline?",
                buffer)
    assert days.text == "21 days (20 July 2023 to 10 August 2023) [D4:10, D4:12]"
    weeks = _ask("How many weeks after her first sprint ends is Maya's analytics deadline?", buffer)
    assert weeks.text.startswith("3 weeks (20 July 2023 to 10 August 2023)")


def test_a_request_phrased_as_a_question_asks_for_what_follows_it() -> None:
    assert answer_target("Can you list the cafés Maya likes?") == "list"
    assert answer_target("Could you tell me when Jonas moved to Kiel?") == "time"
    assert answer_target("Can you remind me how many cousins Maya has?") == "count"
    assert answer_target("Can Maya swim?") == "boolean"  # a question about Maya, not a request
    assert answer_target("How many days a week does Jonas run?") == "count"  # a frequency
    assert answer_target("How many days did Jonas stay in Oslo?") == "time"
    buffer = _buffer(("D4:9", "Maya", "My favourite cafés are Koffiebar Noord and the one by the station."))
    listed = _ask("Can you list the cafés Maya likes?", buffer).text
    assert "Koffiebar Noord" in listed and listed.split()[0] not in ("Yes", "No")


def test_a_question_asking_for_a_name_is_answered_with_a_name() -> None:
    buffer = _buffer(("D4:6", "Jonas", "Every Sunday I go to Brotzeit, a tiny bakery by the canal."))
    assert _ask("What is the name of the bakery Jonas goes to?", buffer).text == "Brotzeit [D4:6]"
    pets = _buffer(
        ("D4:7", "Maya", "My cats are the best, Pixel sleeps all day on the heater."),
        ("D4:8", "Maya", "And my other cat Mochi hides in the laundry basket."),
    )
    names = _ask("What are the names of Maya's cats?", pets).text
    assert "Pixel" in names and "Mochi" in names and "heater" not in names and "basket" not in names
    # a record's value keeps the pronoun its clause had ("named him Bruno"): the answer does not
    called = _buffer(("D4:9", "Jonas", "Our new puppy is so tiny, and the names of puppies are hard."))
    named = Record(id="r9", conv_id="c", episode_id="c:S4:E1", entity="Jonas", entity_type="person",
                   property="names", value="him Bruno", evidence_turn_ids=("D4:9",), source_speaker="Jonas")
    q = "What are the names of Jonas's puppies?"
    got = extractive_answer(q, plan_question(q, VOCAB), called, unmentioned=(), parse=parse_many,
                            records=[named], embed=EMBED).text
    assert "Bruno" in got and "him" not in got
    # in the order they were said when the question asks for an order
    ordered = _ask("Can you list in which order Maya mentioned her cats?", list(reversed(pets))).text
    assert ordered.index("Pixel") < ordered.index("Mochi")


def test_a_reply_takes_over_the_question_it_answers() -> None:
    buffer = _buffer(
        ("D5:1", "Jonas", "What made you pick the blue tiles for the studio?"),
        ("D5:2", "Maya", "They remind me of the sea at home."),
    )
    answer = _ask("Why did Maya pick the blue tiles for the studio?", buffer)
    assert answer.cited_turn_ids == ("D5:2",)


def test_lists_join_spans_of_several_turns() -> None:
    buffer = _buffer(
        ("D1:1", "Maya", "I play the clarinet in a band."),
        ("D2:1", "Maya", "Lately I play the violin too."),
        ("D2:2", "Jonas", "Cool, I play the drums."),
    )
    answer = _ask("What instruments does Maya play?", buffer)
    assert answer.text.startswith("clarinet") and "violin" in answer.text and "drums" not in answer.text
    assert set(answer.cited_turn_ids) == {"D1:1", "D2:1"}


def test_nothing_supported_is_unknown() -> None:
    buffer = _buffer(("D1:1", "Maya", "Hi Jonas, how are you?"))
    answer = _ask("What is the capital of Mars?", buffer)
    assert answer.text == "Unknown" and answer.support == SupportLevel.UNKNOWN and not answer.supported
    empty = extractive_answer("Anything?", plan_question("Anything?", VOCAB), [], unmentioned=(),
                              parse=parse_many, embed=EMBED)
    assert empty.support == SupportLevel.UNKNOWN


def test_a_place_category_answers_with_the_place_and_fillers_are_not_answers() -> None:
    grandma = _buffer(
        ("D6:1", "Maya", "This necklace is a gift from my grandma in my home country, Portugal.")
    )
    assert _ask("What country is Maya's grandma from?", grandma).text == "Portugal [D6:1]"
    buffer = _buffer(
        ("D6:2", "Jonas", "Thanks, Maya!"),
        ("D6:3", "Maya", "The studio floor is made of oak planks from a barn."),
    )
    answer = _ask("What is Maya's studio floor made of?", buffer)
    assert answer.cited_turn_ids == ("D6:3",) and "oak planks" in answer.text


def test_a_current_state_question_takes_the_latest_statement_and_names_the_one_it_updates() -> None:
    buffer = _buffer(
        ("D2:4", "Maya", "I live in Lisbon, in a small flat near the river."),
        ("D7:3", "Maya", "Big news: I live in Porto now, I moved last month."),
    )
    now = _ask("Where does Maya live now?", buffer)
    assert now.cited_turn_ids == ("D7:3",) and "Porto" in now.text
    assert now.updates == "D2:4 (15 July 2023)"
    plain = _ask("Where does Maya live?", buffer)  # no current-state word: no update named
    assert plain.updates is None


def test_a_question_naming_what_no_turn_says_is_unknown() -> None:
    buffer = _buffer(
        ("D3:2", "Maya", "I train a group of 4 nurses in my new post as Head Ward Nurse."),
        ("D5:1", "Maya", "I set up my new Lumix G9 mirrorless camera on Saturday."),
    )
    wrong = _ask("How many nurses does Maya train in her new post as Ward Nursing Director?", buffer)
    assert wrong.text == "Unknown" and wrong.support == SupportLevel.UNKNOWN
    assert wrong.unmentioned == ("ward nursing director",)
    right = _ask("How many nurses does Maya train in her new post as Head Ward Nurse?", buffer)
    assert "4" in right.text and right.unmentioned == ()
    apart = _ask("What kind is Maya's new Lumix camera?", buffer)  # the name's words a few words apart
    assert apart.text != "Unknown" and apart.unmentioned == ()
    hyphen = _buffer(("D6:1", "Maya", "Jean-Luc gave me a Coca-Cola T-shirt."))
    # names are split into words as turns are: "Jean-Luc" is jean, luc
    assert _ask("Who gave Maya the Coca-Cola T-shirt, Jean-Luc?", hyphen).unmentioned == ()
    # months, weekdays and titles are no names; a question that reasons past the text is not checked
    assert _ask("What did Maya set up on Saturday in July?", buffer).unmentioned == ()
    assert _ask("Would Maya likely enjoy a Puccini opera?", buffer).unmentioned == ()
    # a speaker's name spelled another way is that speaker's; another name is not
    assert _ask("What did Mya set up on Saturday?", buffer).unmentioned == ()
    assert _ask("What did Mira set up on Saturday?", buffer).unmentioned == ("mira",)
    # the first word of each of the question's sentences is no name ("... Answer briefly.")
    assert _ask("What did Maya set up on Saturday? Answer in three words.", buffer).unmentioned == ()


def test_a_piece_the_question_already_says_is_not_an_answer() -> None:
    buffer = _buffer(
        ("D3:1", "Maya", "I recommended a book to Jonas: it is called Tall Shadows."),
        ("D3:2", "Jonas", "A book? I love a good book, thanks!"),
    )
    answer = _ask("What book did Maya recommend?", buffer)
    assert answer.cited_turn_ids == ("D3:1",)
    assert answer.text.split(" [")[0].lower() not in ("book", "a book", "recommend")


def test_a_name_question_takes_the_name_the_evidence_gives_the_asked_noun() -> None:
    # a relative "where" does not turn a what-question into a where-question
    assert answer_target("What is the name of the café where Jonas works?") == "value"
    bar = _buffer(("D2:3", "Jonas", "Our band Lotus played with Maya's friend Pim at the Kiosk bar."))
    named = _ask("What is the name of the bar where Maya and Jonas saw Pim?", bar).text  # one name: the bar's
    assert "Kiosk" in named and "Lotus" not in named
    # "who is her coach?": the person the turns tie to the noun, even past the best few sentences
    club = _buffer(
        *[(f"D3:{k}", "Maya", text) for k, text in enumerate((
            "The climbing club in Haarlem had a party on Friday, Anneliese organised it.",
            "The climbing club in Haarlem is open late now, Dirk says.",
            "Our climbing club in Haarlem won the regional cup, Wim was so happy.",
            "I pay the climbing club in Haarlem every month, Greet collects it.",
            "There is a new wall at the climbing club in Haarlem, Joost built it.",
            "The climbing club in Haarlem is near the station, Femke told me.",
        ), start=1)],
        ("D3:8", "Maya", "My coach Tobias is strict but fair."),
    )
    assert _ask("Who is Maya's coach at the climbing club in Haarlem?", club).text == "Tobias [D3:8]"
    # the name is given in the sentence after the one that says the noun, past the best few sentences
    show = _buffer(
        *[(f"D4:{k}", "Jonas", text) for k, text in enumerate((
            "The radio show with Teun at the community station was fun, Pim came too.",
            "Teun wants the radio show at the community station on Fridays.",
            "Our radio show with Teun at the community station got a new mic.",
            "The community station likes the radio show Teun and I do.",
            "Teun drew a poster for the radio show at the community station.",
            "The community station asked Teun about the radio show again.",
        ), start=1)],
        ("D5:2", "Jonas", "The show is live now! We called it \"Night Owls\"."),
    )
    assert _ask("What is the name of Jonas's radio show with Teun?", show).text == "Night Owls [D5:2]"


def test_a_where_question_reads_on_in_the_turn_that_says_the_asked_words() -> None:
    buffer = _buffer(
        ("D1:3", "Maya", "I finally signed up for that climbing course I kept mentioning. "
                         "The first session was on Monday at a small gym in Haarlem."),
        ("D1:9", "Maya", "This weekend I'm taking the bus to Delft to see my aunt."),
    )
    assert _ask("Where did Maya take her climbing course?", buffer).text == "Haarlem [D1:3]"


def test_a_when_answer_keeps_the_hour_with_its_day_and_counts_ahead_from_the_session() -> None:
    airport = _buffer(
        ("D2:1", "Jonas", "So tired, I drove my sister to the airport at 6am for her flight."),
        ("D2:2", "Jonas", "Luckily the airport is only 15 minutes away."),
    )
    # an hour places nothing on the calendar, a distance in minutes is no time at all
    drove = _ask("When did Jonas drive his sister to the airport?", airport).text
    assert drove == "6am on 15 July 2023 [D2:1]"
    visit = _buffer(("D2:3", "Jonas", "My cousin Pim is coming over from Ghent in 3 days, time to tidy up."))
    assert _ask("When will Jonas's cousin Pim visit?", visit).text == "3 days after 15 July 2023 [D2:3]"
    # a time taken in the past is no time counted ahead
    race = _buffer(("D2:4", "Maya", "I swam the lake crossing in 48 minutes, a personal best!"))
    assert _ask("When did Maya swim the lake crossing?", race).text == "15 July 2023 [D2:4]"


def test_a_question_that_says_only_names_is_answered_from_the_turn_that_says_them() -> None:
    buffer = _buffer(
        ("D3:1", "Jonas", "Still busy. Took a short trip last week to Lisbon to clear my head."),
        ("D3:2", "Maya", "Nice, I have never been to Lisbon."),
    )
    assert _ask("When was Jonas in Lisbon?", buffer).text == "the week before 15 July 2023 [D3:1]"
    # a name nobody said still gets "Unknown"
    assert _ask("When was Jonas in Lyon?", buffer).text.startswith("Unknown")


def test_a_sentence_naming_the_asked_non_speaker_has_something_to_say() -> None:
    # the asked name is in one sentence and the time in the one before; the question's verb in neither
    buffer = _buffer(
        ("D4:6", "Jonas", "My sister had a baby girl last Friday. Her name is Ilse and she is tiny!"),
        ("D4:7", "Maya", "Congratulations! Say hi to your sister from me."),
    )
    vocab = dataclasses.replace(VOCAB, entities=(*VOCAB.entities, ("Ilse", "person"), ("Wim", "person")))

    def ask(question: str) -> Answer:
        return extractive_answer(question, plan_question(question, vocab), buffer,
                                 unmentioned=unmentioned(question, buffer), parse=parse_many, embed=EMBED)

    assert ask("When was Ilse born?").text == "the Friday before 15 July 2023 (14 July 2023) [D4:6]"
    # a name no turn says is still "Unknown"; so is a question only a speaker's name ties to
    assert ask("When was Wim born?").text.startswith("Unknown")
    assert ask("When was Maya born?").text == "Unknown"


def test_the_order_things_were_brought_up_is_the_askers_turns_as_said() -> None:
    buffer = _buffer(
        ("D3:4", "user", "Next I want to plan the watering schedule for my garden plan."),
        ("D1:2", "user", "I'm starting a garden plan and first need to choose the vegetables."),
        ("D1:3", "assistant", "Great! For a garden plan, tomatoes and beans are easy vegetables."),
        ("D2:5", "user", "For the garden plan I also need raised beds, what size should they be?"),
    )
    got = _ask("Can you list the order in which I brought up different aspects of my garden plan? "
               "Mention only three items.", buffer)
    assert got.cited_turn_ids == ("D1:2", "D2:5", "D3:4"), got  # the user's turns, as said
    assert got.text.startswith("1) I'm starting a garden plan") and "3) Next I want to plan" in got.text


def test_a_user_who_said_it_both_ways_is_told_so_with_both_turns() -> None:
    buffer = _buffer(
        ("D1:4", "user", "I have never used a pressure cooker before, so I'm nervous about it."),
        ("D1:5", "assistant", "A pressure cooker is safe if you follow the manual."),
        ("D3:2", "user", "I used my pressure cooker for beans again last night, it was quick."),
    )
    got = _ask("Have I ever used a pressure cooker?", buffer)
    assert got.text.startswith("Contradictory") and got.cited_turn_ids == ("D1:4", "D3:2"), got
    # between named people a "not" near the asked words is no contradiction: a plain yes/no
    named = _buffer(
        ("D1:4", "Maya", "I have never used a pressure cooker before, so I'm nervous about it."),
        ("D3:2", "Maya", "I used my pressure cooker for beans again last night, it was quick."),
    )
    assert _ask("Has Maya ever used a pressure cooker?", named).text.split(" [")[0] in ("Yes", "No")


def test_a_long_request_is_quoted_by_the_clause_that_says_it() -> None:
    long_yes = ("I measured the kitchen wall twice and I used my pressure cooker for beans again last night, "
                "and now I want a shelf layout that keeps the pans near the stove and the sink.")
    buffer = _buffer(
        ("D1:4", "user", "I have never used a pressure cooker before, so I'm nervous about it."),
        ("D3:2", "user", long_yes),
    )
    got = _ask("Have I ever used a pressure cooker?", buffer)
    assert got.text.startswith("Contradictory") and got.cited_turn_ids == ("D1:4", "D3:2"), got
    assert "I used my pressure cooker for beans again last night" in got.text, got
    assert "wall" not in got.text and "layout" not in got.text, got  # the passage, not the request


def test_a_denial_is_a_negated_asked_verb_and_its_other_side_may_rank_lower() -> None:
    # the denial is the best sentence; the turn that says it happened shares fewer of the
    # question's words (ranked well below half of the best), and is still found
    buffer = _buffer(
        ("D1:7", "user", "I've never repotted any orchids in my flat, so the roots are a mystery to me."),
        ("D1:8", "assistant", "Repotting orchids every two years keeps their roots healthy in a flat."),
        ("D1:9", "assistant", "Use bark, not soil, when you repot orchids."),
        ("D4:3", "user", "Yesterday I repotted two orchids with fresh bark."),
    )
    got = _ask("Have I ever repotted any orchids in my flat?", buffer)
    assert got.text.startswith("Contradictory") and got.cited_turn_ids == ("D1:7", "D4:3"), got
    # "I'm not sure ..." negates no asked verb: no contradiction
    hedged = _buffer(
        ("D1:7", "user", "I repotted two orchids in my flat, but I'm not sure the bark was right."),
        ("D2:3", "user", "The orchids I repotted in my flat look healthy now."),
    )
    assert not _ask("Have I repotted orchids in my flat?", hedged).text.startswith("Contradictory")
    # a denial with nothing on the other side is a plain no
    denied = _buffer(("D1:7", "user", "I've never repotted any orchids in my flat, they scare me."),
                     ("D1:8", "assistant", "Orchids are easier to repot than they look."))
    assert _ask("Have I ever repotted orchids in my flat?", denied).text.split(" [")[0] == "No"


def test_a_name_called_out_is_no_answer_sentence() -> None:
    buffer = _buffer(
        ("D1:1", "Maya", "Hey Jonas!"),
        ("D1:2", "Jonas", "MAYA!!!"),
        ("D1:3", "Jonas", "My brother Felix sent me a ticket for the derby."),
    )
    ranked = candidates(plan_question("Which relatives of Jonas and Maya came up?", VOCAB), buffer)
    assert "Hey Jonas!" not in {c.sentence for c in ranked} and "MAYA!!!" not in {c.sentence for c in ranked}


def test_a_list_of_places_holds_only_places_and_the_records_that_name_them() -> None:
    buffer = _buffer(
        ("D1:1", "Jonas", "I took the night train and walked in the forests around the city all weekend."),
        ("D2:4", "Maya", "Where did you go this time?"),
        ("D2:5", "Jonas", "A long weekend in Trondheim with my cousin."),
        ("D3:2", "Jonas", "Back from Bergen, the fish market was wild."),
    )
    vocab = Vocabulary(speakers=("Maya", "Jonas"), entities=(), properties=("destination",))
    records = [
        Record(id=f"r{i}", conv_id="c", episode_id=f"c:S{i}:E1", entity="Jonas", entity_type="person",
               property="destination", value=value, evidence_turn_ids=(turn,), source_speaker="Jonas")
        for i, (value, turn) in enumerate(
            [("in the forests around the city", "D1:1"), ("Trondheim", "D2:5"), ("Bergen", "D3:2")], 1)
    ]
    q = "Which cities has Jonas travelled to?"
    got = extractive_answer(q, plan_question(q, vocab), buffer, unmentioned=(), parse=parse_many,
                            records=records, embed=EMBED)
    assert "Trondheim" in got.text and "Bergen" in got.text and "forest" not in got.text


def test_what_someone_is_is_answered_by_the_record_of_it() -> None:
    vocab = Vocabulary(speakers=("Maya", "Jonas"), entities=(),
                       properties=("gets_job", "occupation", "likes"))
    plan = plan_question("What is Jonas's job?", vocab, embedder=shared_embedder())
    assert plan.requirements[0].property == "occupation"  # a job is work, not getting something
    buffer = _buffer(
        ("D1:9", "Maya", "Who is Ingrid again?"),
        ("D1:10", "Jonas", "She runs the lights at the Nordlicht opera, where I work as a stagehand."),
        ("D4:2", "Jonas", "Don't get too excited about my job, it is one show."),
    )
    records = [
        Record(id=rid, conv_id="c", episode_id="c:S1:E1", entity="Jonas", entity_type="person",
               property="occupation", value=value, evidence_turn_ids=(turn,), source_speaker="Jonas")
        for rid, value, turn in [("r1", "stagehand", "D1:10"), ("r2", "Jonas's job", "D4:2")]
    ]
    got = extractive_answer("What is Jonas's job?", plan, buffer, unmentioned=(), parse=parse_many,
                            records=records[::-1], embed=EMBED)
    assert got.text == "stagehand [D1:10]" and got.record_ids == ("r1",)
    # a question about what was done is not answered by the state record before the evidence
    done = "What did Jonas do at his job?"
    assert state_record(done, plan_question(done, vocab, embedder=shared_embedder()), records) is None


def test_a_question_led_by_a_preposition_keeps_its_answer_form() -> None:
    assert answer_target("For how long did Maya live in Porto?") == "time"
    assert answer_target("In what year did Jonas start the band?") == "time"
    assert answer_target("Until when is the studio closed?") == "time"
    assert answer_target("In what ways does Maya help out?") == "list"  # ways are no time
    resting = _buffer(("D2:7", "Maya", "The doctor said my ankle needs rest for a month, so no climbing."))
    assert _ask("For how long does Maya's ankle need rest?", resting).text == "a month [D2:7]"


def test_a_lone_letter_is_no_answer_option() -> None:
    buffer = _buffer(("D1:1", "Maya", "If the beans were cheaper than the meat id be vegan"))
    q = "For what reason would Maya be vegan?"
    plan = plan_question(q, VOCAB)
    pieces = [c.text for c in options(q, plan, candidates(plan, buffer), [], buffer, parse_many)]
    assert "beans" in pieces and not any(len(p.strip()) == 1 for p in pieces)  # "id be" gave "d"


def test_how_long_is_answered_by_a_length_of_time_never_by_a_day() -> None:
    sure_of_times = dataclasses.replace(default_model(), supported_at_by_target={"time": 0.0})
    for q in ("How long did Maya date Tomas?", "For how long did Maya date Tomas?"):
        said = "I dated Tomas for three years, it was a mess."
        got = extractive_answer(q, plan_question(q, VOCAB), _buffer(("D1:1", "Maya", said)), unmentioned=(),
                                parse=parse_many, embed=EMBED, model=sure_of_times)
        assert got.text == "three years [D1:1]" and got.support == SupportLevel.SUPPORTED
        # only a day is said: no date stands in for the length, the sentence is quoted
        said = "I dated Tomas until 3 March 2021, it was a mess."
        got = extractive_answer(q, plan_question(q, VOCAB), _buffer(("D1:1", "Maya", said)), unmentioned=(),
                                parse=parse_many, embed=EMBED, model=sure_of_times)
        assert got.text == f"Maya, 15 July 2023: “{said}” [D1:1]", got.text
        assert got.support == SupportLevel.WEAK and "2021" in (got.quote or "")
    # "how many days between A and B?" with one of the two days never said asks for a span too:
    # the day that is said does not stand in for it
    buffer = _buffer(("D4:10", "Maya", "My first sprint ends on July 20, then we demo it to the team."),
                     ("D4:12", "Maya", "The analytics deadline worries me more than the sprint."))
    q = "How many days are there between the end of Maya's first sprint and her analytics deadline?"
    got = extractive_answer(q, plan_question(q, VOCAB), buffer, unmentioned=(), parse=parse_many, embed=EMBED,
                            model=sure_of_times)
    assert got.text.startswith("Maya, 15 July 2023: “") and got.support == SupportLevel.WEAK, got.text


def test_a_cry_is_no_answer_option() -> None:
    buffer = _buffer(
        ("D4:1", "Jonas", "Ahh, the trip! On the trip we saw Porto and then Lisbon."),
        ("D4:2", "Maya", "Hahaha ohh, the trip was so sunny. Ugh, I miss the trip."),
    )
    question = "What cities did Jonas see on the trip?"
    plan = plan_question(question, VOCAB)
    ranked = candidates(plan, buffer)
    texts = [c.text.lower() for c in options(question, plan, ranked, (), buffer, parse_many, EMBED)
             if c.option.kind != "sentence"]
    assert texts and not {"ahh", "hahaha", "ohh", "ugh", "hahaha ohh"} & set(texts), texts
    said = _ask(question, buffer).text.lower()
    assert "ahh" not in said and ("porto" in said or "lisbon" in said), said


def test_who_someone_is_is_answered_by_their_relations_and_role_never_by_the_name_again() -> None:
    vocab = Vocabulary(speakers=("Maya", "Jonas"), entities=(("Oksana", "person"), ("Tegelhuis", "place")),
                       properties=("colleague", "occupation", "is_a", "likes"))
    buffer = _buffer(
        ("D2:4", "Maya", "My coworker Oksana dragged me to a climbing gym, Tegelhuis, last week."),
        ("D2:6", "Maya", "Oksana is a carpenter on weekends, she built the bouldering wall there."),
        ("D3:1", "Jonas", "Say hi to Oksana from me!"),
    )

    def rec(rid: str, entity: str, prop: str, value: str, turn: str) -> Record:
        return Record(id=rid, conv_id="c", episode_id="c:S2:E1", entity=entity, entity_type="person",
                      property=prop, value=value, evidence_turn_ids=(turn,), source_speaker="Maya")

    records = [
        rec("r1", "Oksana", "likes", "climbing", "D2:4"),
        rec("r2", "Maya", "colleague", "Oksana", "D2:4"),
        rec("r3", "Oksana", "colleague", "Maya", "D2:4"),
        rec("r4", "Oksana", "occupation", "carpenter", "D2:6"),
        rec("r5", "Tegelhuis", "is_a", "climbing gym", "D2:4"),
        rec("r6", "Maya", "sibling", "Maya's sister", "D2:4"),
    ]

    def ask(question: str) -> str:
        return extractive_answer(question, plan_question(question, vocab), buffer, unmentioned=(),
                                 parse=parse_many, records=records, embed=EMBED).text

    assert ask("Who is Oksana?") == "Maya's colleague (carpenter) [D2:4, D2:6]"
    assert ask("What is Tegelhuis?") == "climbing gym [D2:4]"
    # a name asked about with more words is some other question
    assert not ask("Who is Oksana climbing with?").startswith("Maya's colleague")
    # no record says what the name is: the sentence that says it, with the one its pronoun needs
    baby = _buffer(("D6:3", "Maya", "Griet had a baby boy last Thursday. His name is Bram and he's perfect."))
    q = "Who is Bram?"
    got = extractive_answer(q, plan_question(q, vocab), baby, unmentioned=(), parse=parse_many, records=[],
                            embed=EMBED).text
    said = "Griet had a baby boy last Thursday. His name is Bram and he's perfect."
    assert got == f"Maya, 15 July 2023: “{said}” [D6:3]", got


def test_a_kin_record_names_only_the_kin_it_is_of() -> None:
    vocab = Vocabulary(speakers=("Maya", "Jonas"), entities=(("Griet", "person"), ("Bram", "person")),
                       properties=("sibling", "relative"))
    buffer = _buffer(
        ("D1:19", "Maya", "I'm taking the train to Leiden to see my sister Griet."),
        ("D6:3", "Maya", "Griet had a baby boy last Thursday. His name is Bram and he's perfect."),
        ("D6:9", "Jonas", "Okay, go cuddle your nephew, Auntie Maya!"),
    )
    sister = Record(id="r1", conv_id="c", episode_id="c:S1:E1", entity="Maya", entity_type="person",
                    property="sibling", value="Griet", evidence_turn_ids=("D1:19",), source_speaker="Maya")
    q = "What is the name of Maya's nephew?"
    got = extractive_answer(q, plan_question(q, vocab), buffer, unmentioned=(), parse=parse_many,
                            records=[sister], embed=EMBED)
    assert got.text == "Bram [D6:3]", got.text
    # "X's sister's name" asks what "the name of X's sister" does: the name, not the place beside it
    q = "What is Maya's sister's name?"
    got = extractive_answer(q, plan_question(q, vocab), buffer, unmentioned=(), parse=parse_many,
                            records=[sister], embed=EMBED)
    assert got.text == "Griet [D1:19]", got.text


def test_what_someone_has_is_answered_by_the_names_their_records_give() -> None:
    vocab = Vocabulary(speakers=("Maya", "Jonas"), entities=(("Noodle", "animal"),), properties=("pet",))
    buffer = _buffer(("D1:15", "Maya", "Aww. Noodle sends a meow. She sleeps on my keyboard all week."))

    def pet(rid: str, value: str) -> Record:
        return Record(id=rid, conv_id="c", episode_id="c:S1:E1", entity="Maya", entity_type="person",
                      property="pet", value=value, evidence_turn_ids=("D1:15",), source_speaker="Maya")

    q = "What pet does Maya have?"  # no turn says "pet": the record does
    plan = plan_question(q, vocab)
    got = extractive_answer(q, plan, buffer, unmentioned=(), parse=parse_many, records=[pet("r1", "Noodle")],
                            embed=EMBED)
    assert got.text == "Noodle [D1:15]" and got.record_ids == ("r1",)
    # a record of what the pet is says it beside the name, and is cited
    kind = Record(id="r3", conv_id="c", episode_id="c:S1:E1", entity="Noodle", entity_type="animal",
                  property="species", value="iguana", evidence_turn_ids=("D1:15",), source_speaker="Maya")
    got = extractive_answer(q, plan, buffer, unmentioned=(), parse=parse_many,
                            records=[pet("r1", "Noodle"), kind], embed=EMBED)
    assert got.text == "Noodle, an iguana [D1:15]" and got.record_ids == ("r1", "r3")
    # a pet the records know of but cannot name: they do not answer alone
    got = extractive_answer(q, plan, buffer, unmentioned=(), parse=parse_many,
                            records=[pet("r1", "Noodle"), pet("r2", "Maya's dog")], embed=EMBED)
    assert got.record_ids != ("r1",)


def test_the_name_of_someones_pet_is_the_name_their_record_gives_when_the_kind_fits() -> None:
    vocab = Vocabulary(speakers=("Maya", "Jonas"), entities=(("Noodle", "animal"),), properties=("pet",))
    said = "Noodle is great. Hard to believe I adopted her from the iguana rescue in Gouda last year."
    buffer = _buffer(("D1:14", "Maya", said))

    def rec(rid: str, entity: str, prop: str, value: str) -> Record:
        return Record(id=rid, conv_id="c", episode_id="c:S1:E1", entity=entity, entity_type="person",
                      property=prop, value=value, evidence_turn_ids=("D1:14",), source_speaker="Maya")

    q = "What is the name of Maya's iguana?"
    plan = plan_question(q, vocab)
    pet = rec("r1", "Maya", "pet", "Noodle")
    got = extractive_answer(q, plan, buffer, unmentioned=(), parse=parse_many,
                            records=[pet, rec("r2", "Noodle", "species", "iguana")], embed=EMBED)
    assert got.text == "Noodle [D1:14]", got.text  # not the place said beside the adoption
    other = extractive_answer(q, plan, buffer, unmentioned=(), parse=parse_many,
                              records=[pet, rec("r2", "Noodle", "species", "gecko")], embed=EMBED)
    assert other.record_ids != ("r1",)  # a gecko's name is not the iguana's


def test_a_record_said_in_denial_is_no_answer_option() -> None:
    from memory_core.backends.offline.compose import Question, record_options
    from memory_core.models import Modality

    q = "Where does Maya live?"
    plan = plan_question(q, VOCAB)

    def home(rid: str, modality: Modality) -> Record:
        return Record(id=rid, conv_id="c", episode_id="c:S1:E1", entity="Maya", entity_type="person",
                      property="residence", value="Lisbon", evidence_turn_ids=("D1:2",),
                      source_speaker="Maya", modality=modality)

    kept = record_options(Question.of(plan), [home("r1", Modality.NEGATED), home("r2", Modality.OBSERVED)],
                          [], {}, {})
    assert [c.record.id for c in kept if c.record is not None] == ["r2"]  # "I'm not moving to Lisbon"


def test_a_kin_record_does_not_name_another_kin_of_its_relation() -> None:
    vocab = Vocabulary(speakers=("Maya", "Jonas"), entities=(("Felix", "person"),), properties=("sibling",))
    said = "I'm taking the night ferry with my brother Felix, my sister stays home with the cat."
    buffer = _buffer(("D5:16", "Jonas", said))
    brother = Record(id="r1", conv_id="c", episode_id="c:S1:E1", entity="Jonas", entity_type="person",
                     property="sibling", value="Felix", evidence_turn_ids=("D5:16",), source_speaker="Jonas")
    q = "What is the name of Jonas's sister?"  # "sister" and "brother" are both `sibling`
    got = extractive_answer(q, plan_question(q, vocab), buffer, unmentioned=(), parse=parse_many,
                            records=[brother], embed=EMBED)
    assert got.record_ids != ("r1",), got.text


def test_a_price_is_answered_whole_with_its_currency() -> None:
    buffer = _buffer(("D1:2", "Maya", "My gym plan costs €39.90 per month. It includes the sauna."))
    assert "€39.90" in _ask("How much does Maya's gym plan cost per month?", buffer).text


def test_a_question_that_asks_for_no_time_is_not_answered_with_one() -> None:
    buffer = _buffer(("D1:1", "Maya", "In March I made a teapot at the pottery studio."),
                     ("D1:2", "Maya", "I also made two bowls in April, my pottery is getting better."),
                     ("D1:3", "Jonas", "Nice, what pieces will you make next?"))
    assert _ask("What pottery pieces has Maya made?", buffer).text.startswith("teapot, two bowls")
    made = _ask("What did Maya make at the pottery studio?", buffer).text
    assert "teapot" in made and "March" not in made
    assert "March" in _ask("When did Maya make a teapot?", buffer).text


def test_what_a_thing_is_called_is_answered_by_its_record_for_the_person_asked_about() -> None:
    """"It was called Biscuit" gives `puppy · is_called · Biscuit` (said by Maya): a name
    question about Maya's puppy is answered by that record, even though no sentence says
    "name"; one about Jonas's puppy is not (the evidence may still say what it can)."""
    buffer = _buffer(("D1:1", "Maya", "We adopted a puppy last week. It was called Biscuit."),
                     ("D1:2", "Jonas", "I found a new bakery near the station."))
    called = [
        Record(id="r1", conv_id="c", episode_id="c:S1:E1", entity="puppy", entity_type="concept",
               property="is_called", value="Biscuit", evidence_turn_ids=("D1:1",), source_speaker="Maya"),
        Record(id="r2", conv_id="c", episode_id="c:S1:E1", entity="new bakery near the station",
               entity_type="concept", property="is_called", value="Crumb Corner",
               evidence_turn_ids=("D1:2",), source_speaker="Jonas"),
    ]

    def ask(q: str) -> Answer:
        return extractive_answer(q, plan_question(q, VOCAB), buffer, unmentioned=unmentioned(q, buffer),
                                 parse=parse_many, records=called, embed=EMBED)

    maya = ask("What is the name of Maya's puppy?")
    assert (maya.text, maya.record_ids) == ("Biscuit [D1:1]", ("r1",))
    bakery = ask("What is Jonas's new bakery called?")
    assert (bakery.text, bakery.record_ids) == ("Crumb Corner [D1:2]", ("r2",))
    assert "r1" not in ask("What is the name of Jonas's puppy?").record_ids  # Maya's puppy, not his


def test_a_name_given_in_the_next_sentence_answers_through_its_record(tmp_path, embedder) -> None:
    """Built and asked through the services: "It was called Biscuit" after "we adopted a
    puppy" becomes `puppy · is_called · Biscuit`, and "What is the name of Maya's puppy?" —
    whose words the sentence with the name does not hold — is answered by that record."""
    conversation = {
        "speaker_a": "Maya", "speaker_b": "Jonas",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Maya", "dia_id": "D1:1",
             "text": "We adopted a puppy last week. It was called Biscuit."},
            {"speaker": "Jonas", "dia_id": "D1:2", "text": "Aww! I found a new bakery near the station."},
            {"speaker": "Maya", "dia_id": "D1:3",
             "text": "Nice, I love fresh bread. Biscuit loves the park too."},
        ],
    }
    data = tmp_path / "pets.json"
    data.write_text(json.dumps([{"sample_id": "pets", "conversation": conversation, "qa": []}]))
    services = Services(Settings(home=tmp_path / "home"), embedder=embedder)
    try:
        services.imports.import_file(data)
        for _ in services.builds.build("pets"):
            pass
        called = [r for r in services.curation.records("pets") if r.property == "is_called"]
        assert [(r.entity, r.value) for r in called] == [("puppy", "Biscuit")]
        answer = services.queries.ask("pets", "What is the name of Maya's puppy?").answer
        assert answer is not None
        assert (answer.text, answer.record_ids) == ("Biscuit [D1:1]", (called[0].id,))
    finally:
        services.close()


def test_a_record_answer_keeps_the_verb_that_carries_it() -> None:
    # "How did Rex hurt her leg?" is answered "cut her leg on a nail ...", not "her leg on a nail";
    # a question about the record's own property ("What did Rex cut?") takes its value alone
    buffer = _buffer(("D2:4", "Jonas", "Mostly fine, but Rex cut her leg on a nail at the harbour."))
    record = Record(id="r1", conv_id="c", episode_id="c:S2:E1", entity="Rex", entity_type="animal",
                    property="cuts", value="her leg on a nail at the harbour", evidence_turn_ids=("D2:4",))
    option = Option(text=record.value, kind="record", target="explanation", sentence_score=1.0,
                    sentence_rank=0, novelty=1.0, overlap=0.0, distance=0.0, attached=True, proper=0.0,
                    words=8, head_match=False, asked_name=False, speaker_is_asked=False, record=True)
    choice = Choice(option, record.value, buffer[0], record)
    hurt = plan_question("How did Rex hurt her leg?", VOCAB)
    assert with_verb(hurt, choice, parse_many) == "cut her leg on a nail at the harbour"
    asked_cut = hurt.requirements[0].model_copy(update={"property": "cuts"})
    cut = hurt.model_copy(update={"requirements": [asked_cut]})
    assert with_verb(cut, choice, parse_many) == record.value
    # a value the turn does not say right after the verb keeps the value alone
    nail = record.model_copy(update={"value": "a nail"})
    elsewhere = dataclasses.replace(choice, text="a nail", record=nail)
    assert with_verb(hurt, elsewhere, parse_many) == "a nail"


def test_how_many_is_the_latest_count_said_of_the_noun_with_the_noun() -> None:
    buffer = _buffer(
        ("D1:3", "user", "I'm building a photo gallery for my site and planned 8 cards for it."),
        ("D1:4", "assistant", "A grid of 4 columns suits 8 cards well."),
        ("D3:7", "user", "I added two more shots, so now the gallery has a total of 10 cards."),
        ("D4:2", "user", "I also replaced 2 blurry cards in the gallery yesterday."),
    )
    got = _ask("How many cards does my photo gallery have?", buffer)
    # the count said last of the cards, not the 2 blurry ones (a word the question does not use)
    assert got.text == "10 cards [D3:7]" and got.cited_turn_ids == ("D3:7",), got
    # the noun keeps the modifiers the turn gives it, and units of time are not counted this way
    said = _buffer(("D2:5", "user", "So far I have solved 12 probability problems this month."))
    assert _ask("How many probability problems have I solved?", said).text == "12 probability problems [D2:5]"
    assert "days" not in _ask("How many days did I spend solving problems?", said).text


def test_a_when_answer_falls_in_the_month_the_question_names() -> None:
    def said(turn_id: str, when: datetime, text: str) -> BufferTurn:
        session, index = turn_id[1:].split(":")
        return buffer_turn(Turn(id=turn_id, session=int(session), index=int(index) - 1, speaker="Maya",
                                text=text, session_time=when), None, {})

    buffer = [
        said("D4:2", JULY, "We went kayaking on the lake last weekend, so peaceful."),
        said("D2:5", datetime(2023, 6, 3, 9, 0), "Went kayaking with my cousin yesterday, what a blast."),
    ]
    assert _ask("When did Maya go kayaking?", buffer).text.startswith("the weekend before 15 July 2023")
    # the same turns, asked for June: the time that falls in June answers, not the better-ranked one
    assert _ask("When did Maya go kayaking in June?", buffer).text == "2 June 2023 [D2:5]"
    # asked for July, the July weekend answers again
    july = _ask("When did Maya go kayaking in July?", buffer)
    assert july.text.startswith("the weekend before 15 July 2023")


def test_how_many_is_answered_with_a_number_or_the_sentence_quoted() -> None:
    # no number said: the sentence is quoted, never a piece that counts nothing
    none_said = _buffer(("D3:4", "Jonas", "I bumped into my old landlord again on my bakery run today."))
    answer = _ask("How many times did Jonas bump into his old landlord?", none_said)
    assert answer.text.startswith("“I bumped into my old landlord again on my bakery run today.”")
    assert answer.support is SupportLevel.WEAK
    # a number said answers
    said = _buffer(("D3:6", "Jonas", "I have bumped into my old landlord 3 times this month at the bakery."))
    assert _ask("How many times did Jonas bump into his old landlord?", said).text.startswith("3 ")


def test_the_family_asked_about_is_named_by_the_kin_records() -> None:
    vocab = Vocabulary(speakers=("Maya", "Jonas"), entities=(), properties=())
    buffer = _buffer(
        ("D2:5", "Jonas", "My mom called, she wants me to visit her in Kiel next month."),
        ("D4:2", "Jonas", "My brother Felix is moving to Bremen for his new job."),
        ("D4:3", "Maya", "Tell Felix congrats from me!"),
    )

    def rec(rid: str, prop: str, value: str, turn: str) -> Record:
        return Record(id=rid, conv_id="c", episode_id="c:S2:E1", entity="Jonas", entity_type="person",
                      property=prop, value=value, evidence_turn_ids=(turn,), source_speaker="Jonas")

    records = [rec("r1", "parent", "Jonas's mom", "D2:5"), rec("r2", "sibling", "Felix", "D4:2"),
               rec("r3", "residence", "Bremen", "D4:2")]

    def ask(question: str) -> Answer:
        return extractive_answer(question, plan_question(question, vocab), buffer, unmentioned=(),
                                 parse=parse_many, records=records, embed=EMBED)

    # no sentence says "family": the kin records do, each relative once, cited by its turn
    got = ask("Which members of Jonas's family are mentioned?")
    assert got.text == "mom, Felix (sibling) [D2:5, D4:2]" and set(got.record_ids) == {"r1", "r2"}
    assert ask("Who are Jonas's relatives?").text == "mom, Felix (sibling) [D2:5, D4:2]"
    assert ask("What family members does Jonas have?").text == "mom, Felix (sibling) [D2:5, D4:2]"
    assert "Felix (sibling)" not in ask("What did Jonas's family members bring to Bremen?").text
    assert "Felix (sibling)" not in ask("What public relations work does Jonas do?").text
    # a question about what the family does is no question about who is in it
    assert "Felix (sibling)" not in ask("What did Jonas's family give him?").text
