"""Hand-made dialogues for the build tests (small, readable, with known facts)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memory_core.contracts import ConversationInfo
from memory_core.models import Conversation, Episode, Session, Turn

SPEAKERS = ("Anna", "Ben")
MONDAY = datetime(2023, 5, 8, 13, 0)  # a Monday: "last Saturday" is 2023-05-06
INFO = ConversationInfo("t", SPEAKERS)

Line = tuple[str, str] | tuple[str, str, str]


def session(index: int, lines: Sequence[Line], when: datetime = MONDAY) -> Session:
    turns = []
    for i, line in enumerate(lines):
        caption = line[2] if len(line) > 2 else None
        turns.append(Turn(id=f"D{index}:{i + 1}", session=index, index=i, speaker=line[0], text=line[1],
                          image_caption=caption, session_time=when))
    return Session(index=index, time=when, time_text=when.strftime("%I:%M %p on %d %B, %Y"),
                   turns=tuple(turns))


def conversation(conv_id: str, sessions: list[Session], speakers: tuple[str, ...] = SPEAKERS) -> Conversation:
    return Conversation(id=conv_id, speakers=speakers, sessions=tuple(sessions), source_format="test")


def one_episode(s: Session, conv_id: str = "t") -> Episode:
    return Episode(id=f"{conv_id}:S{s.index}:E1", conv_id=conv_id, session=s.index,
                   turn_ids=tuple(t.id for t in s.turns), start_time=s.time)


# a session with two clearly different themes, greetings and acknowledgements
TWO_THEMES: list[Line] = [
    ("Anna", "Hey Ben! Good to see you! How have you been?"),
    ("Ben", "Hi Anna! Great to see you too."),
    ("Anna", "I adopted a puppy last week, a little beagle named Rex who chews everything."),
    ("Ben", "A beagle puppy! How is Rex settling in with your cat?"),
    ("Anna", "The puppy and the cat sniff each other, and Rex sleeps in the cat's basket."),
    ("Ben", "Ha, that puppy sounds adorable. Do you walk the dog in the park?"),
    ("Anna", "Yes, I walk Rex in the park twice a day, he loves chasing squirrels and other dogs."),
    ("Ben", "Thanks for sharing!"),
    ("Ben", "On another note, my team at work is migrating our servers to a new cloud provider."),
    ("Anna", "That sounds like a big software project. Which cloud provider did your company pick?"),
    ("Ben", "We picked a provider with cheaper storage; the database migration runs every night."),
    ("Anna", "Do the database backups and the server deployment scripts still work after the move?"),
    ("Ben", "Mostly. The deployment pipeline broke twice, and I rewrote the backup scripts in Python."),
    ("Anna", "Rewriting backup scripts for servers sounds stressful. Good luck with the migration!"),
]

# a weekend hiking story (with an image caption on the last turn)
HIKING: list[Line] = [
    ("Ben", "Hi Anna, how was your weekend?"),
    ("Anna", "Great! I went hiking in the Alps with my brother Tom last Saturday."),
    ("Ben", "Wow, the Alps! Did Tom like it?"),
    ("Anna", "He loved it. He wants to climb Mont Blanc next year."),
    ("Ben", "That sounds amazing.", "a photo of a snowy mountain peak at sunrise"),
]
# a pottery class
POTTERY: list[Line] = [
    ("Anna", "Ben, I started a pottery class at the community center this week."),
    ("Ben", "Nice! Do you like it so far?"),
    ("Anna", "I love it. I made a blue bowl for my mom yesterday."),
    ("Ben", "Send me a picture of that bowl!"),
]
