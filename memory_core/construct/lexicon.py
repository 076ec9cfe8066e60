"""The property lexicon: which record property a verb, pattern or noun maps to.

Properties sit at an *intermediate* granularity (see docs/build.md): broad enough that
paraphrases share one ("travel to", "fly to", "take a trip to" -> ``destination``), specific
enough that different actions stay apart ("paint" -> ``paints``, "run" -> ``runs``,
"volunteer" -> ``volunteers``). There is no catch-all ``activity``: a verb that is not in the
lexicon keeps its own lemma as property (``embrace``, ``repaint`` ...), never a shared bucket.

Each property has a kind:

    aspect    a trait of the entity (``likes: painting``) -> attribute of the entity node
    relation  the value is itself an entity (``pet: Oliver``, ``destination: Paris``) -> an edge
and a flag ``event``: salient happenings (travel, attending, adopting, winning ...) also give
an event frame.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Prop:
    name: str
    relation: bool = False  # the value is an entity: edge in the entity graph
    value_type: str = "concept"  # entity type of the value when it becomes a node
    event: bool = False  # salient event: also an event frame


def _p(name: str, relation: bool = False, value_type: str = "concept", event: bool = False) -> Prop:
    return Prop(name, relation, value_type, event)


# --------------------------------------------------------------------------- properties
DESTINATION = _p("destination", True, "place", True)
TRANSPORT = _p("means_of_transport", False, "object", True)
ATTENDS = _p("attends", True, "event", True)
TAKES_PLACE = _p("takes_place", False, "place", True)  # "the first lesson was last Tuesday at X"
IS_CALLED = _p("is_called")  # "our band is called The Gulls": the name a thing goes by
VISITS = _p("visits", True, "place", True)
RESIDENCE = _p("residence", True, "place", True)
OCCUPATION = _p("occupation", False, "concept")
EMPLOYER = _p("employer", True, "organization")
LIKES = _p("likes")
DISLIKES = _p("dislikes")
PAINTS = _p("paints", False, "object", True)
CREATES = _p("creates", False, "object", True)
PET = _p("pet", True, "animal")
MEMBER_OF = _p("member_of", True, "organization", True)
MEETS = _p("meets", True, "person", True)
INTERESTED_IN = _p("interested_in")
FEELS = _p("feels")
LOOKS_FORWARD_TO = _p("looks_forward_to")
IDENTITY = _p("identity")
HAS = _p("has", False, "object")
SUPPORTS = _p("supports")
STARTS = _p("starts", False, "concept", True)
COMPLETES = _p("completes", False, "concept", True)
ENROLLS = _p("enrolls_in", True, "organization", True)
PHOTOGRAPHS = _p("photographs", False, "object", True)
SHARES_IMAGE = _p("shares_image", False, "object")
GETS = _p("gets", False, "object", True)

# verb lemma -> property (the verb alone decides)
VERBS: dict[str, Prop] = {
    # travel and movement
    "travel": DESTINATION, "fly": DESTINATION, "drive": DESTINATION, "journey": DESTINATION,
    "head": DESTINATION, "return": DESTINATION, "road-trip": DESTINATION,
    "visit": VISITS, "tour": VISITS, "explore": VISITS,
    "move": RESIDENCE, "relocate": RESIDENCE, "live": RESIDENCE,
    # preferences
    "like": LIKES, "love": LIKES, "enjoy": LIKES, "adore": LIKES, "appreciate": LIKES,
    "prefer": LIKES, "fancy": LIKES, "dig": LIKES,
    "hate": DISLIKES, "dislike": DISLIKES, "detest": DISLIKES, "despise": DISLIKES,
    # making things
    "paint": PAINTS, "draw": PAINTS, "sketch": PAINTS,
    "make": CREATES, "build": CREATES, "create": CREATES, "craft": CREATES, "knit": CREATES,
    "sew": CREATES, "design": CREATES, "sculpt": CREATES, "carve": CREATES, "compose": CREATES,
    "bake": _p("cooks", False, "object", True), "cook": _p("cooks", False, "object", True),
    "write": _p("writes", False, "object", True), "blog": _p("writes", False, "object", True),
    "photograph": PHOTOGRAPHS, "film": PHOTOGRAPHS,
    # pastimes, each its own property
    "read": _p("reads", False, "object"), "watch": _p("watches", False, "object"),
    "listen": _p("listens_to", False, "object"), "play": _p("plays", False, "object"),
    "sing": _p("sings"), "dance": _p("dances"), "run": _p("runs", False, "event", True),
    "hike": _p("hikes", False, "place", True), "camp": _p("camps", False, "place", True),
    "plant": _p("gardens", False, "object", True),
    "swim": _p("swims"), "surf": _p("surfs"), "ski": _p("skis"), "climb": _p("climbs"),
    "bike": _p("cycles"), "cycle": _p("cycles"), "garden": _p("gardens"), "fish": _p("fishes"),
    "meditate": _p("meditates"), "practice": _p("practices"), "practise": _p("practices"),
    "train": _p("trains_for"), "exercise": _p("exercises"), "jog": _p("runs", False, "event", True),
    # learning and work
    "study": _p("studies"), "major": _p("studies"), "learn": _p("learns"),
    "teach": _p("teaches"), "research": _p("researches"), "mentor": SUPPORTS,
    "graduate": COMPLETES, "finish": COMPLETES, "complete": COMPLETES,
    "start": STARTS, "begin": STARTS, "launch": STARTS, "open": STARTS, "found": STARTS,
    "quit": _p("quits", False, "concept", True), "retire": _p("quits", False, "concept", True),
    "hire": _p("hires"), "employ": EMPLOYER,
    "volunteer": _p("volunteers", True, "organization", True),
    "donate": _p("donates", False, "object", True), "fundraise": _p("raises_funds", False, "event", True),
    "organize": _p("organizes", False, "event", True), "organise": _p("organizes", False, "event", True),
    "host": _p("organizes", False, "event", True),
    # events and life
    "attend": ATTENDS, "participate": _p("participates_in", True, "event", True),
    "compete": _p("competes_in", True, "event", True), "perform": _p("performs", False, "event", True),
    "join": MEMBER_OF, "celebrate": _p("celebrates", False, "event", True),
    "win": _p("wins", False, "object", True), "lose": _p("loses", False, "object", True),
    "buy": _p("buys", False, "object", True), "purchase": _p("buys", False, "object", True),
    "adopt": _p("adopts", True, "animal", True), "rescue": _p("adopts", True, "animal", True),
    "marry": _p("spouse", True, "person", True), "date": _p("dates", True, "person"),
    "meet": MEETS, "befriend": _p("friend", True, "person", True),
    "receive": _p("receives", False, "object", True), "give": _p("gives", False, "object", True),
    "gift": _p("gives", False, "object", True), "send": _p("sends", False, "object"),
    "help": SUPPORTS, "support": SUPPORTS, "encourage": SUPPORTS, "care": _p("cares_for"),
    "recommend": _p("recommends"), "suggest": _p("recommends"),
    "feel": FEELS, "struggle": _p("struggles_with"), "recover": _p("recovers_from", False, "concept", True),
    "injure": _p("injury", False, "concept", True), "hurt": _p("injury", False, "concept", True),
    "break": _p("injury", False, "concept", True),
    "own": HAS, "have": HAS, "keep": HAS, "raise": _p("raises"),
    "plan": _p("plans"), "want": _p("wants"), "wish": _p("wants"), "hope": _p("hopes_for"),
    "dream": _p("wants"), "need": _p("needs"), "decide": _p("decides"), "believe": _p("believes"),
    "think": _p("thinks_about"), "consider": _p("considers"), "remember": _p("remembers"),
    "miss": _p("misses"), "save": _p("saves"), "grow": _p("grows"), "collect": _p("collects"),
    "adapt": _p("adapts_to"), "show": _p("exhibits", False, "object", True),
    "exhibit": _p("exhibits", False, "object", True), "display": _p("exhibits", False, "object", True),
    "pursue": _p("pursues"), "lead": _p("leads"), "coach": _p("teaches"),
}

# (verb lemma, particle or preposition) -> property; checked before VERBS
PHRASES: dict[tuple[str, str], Prop] = {
    ("go", "to"): DESTINATION, ("come", "to"): DESTINATION, ("get", "to"): DESTINATION,
    ("take", "trip"): DESTINATION, ("go", "on"): _p("goes_on", False, "event", True),
    ("move", "to"): RESIDENCE, ("move", "from"): _p("moved_from", True, "place", True),
    ("live", "in"): RESIDENCE, ("grow", "up"): _p("hometown", True, "place"),
    ("come", "from"): _p("hometown", True, "place"), ("be", "from"): _p("hometown", True, "place"),
    ("be", "to"): VISITS,
    ("work", "as"): OCCUPATION, ("work", "at"): EMPLOYER, ("work", "for"): EMPLOYER,
    ("work", "on"): _p("works_on"), ("work", "in"): _p("works_in"),
    ("work", "with"): _p("works_with", True, "person"),
    ("collaborate", "with"): _p("works_with", True, "person"),
    ("team", "up"): _p("works_with", True, "person"), ("partner", "with"): _p("works_with", True, "person"),
    ("volunteer", "at"): _p("volunteers", True, "organization", True),
    ("sign", "up"): ENROLLS, ("enroll", "in"): ENROLLS, ("enrol", "in"): ENROLLS,
    ("take", "class"): ENROLLS, ("take", "course"): ENROLLS, ("take", "lesson"): ENROLLS,
    ("take", "photo"): PHOTOGRAPHS, ("take", "picture"): PHOTOGRAPHS, ("take", "pic"): PHOTOGRAPHS,
    ("listen", "to"): _p("listens_to", False, "object"), ("look", "after"): _p("cares_for"),
    ("care", "for"): _p("cares_for"), ("take", "care"): _p("cares_for"),
    ("think", "about"): _p("thinks_about"), ("talk", "about"): _p("talks_about"),
    ("look", "forward"): LOOKS_FORWARD_TO, ("check", "out"): _p("checks_out"),
    ("sign", "for"): ENROLLS, ("apply", "for"): _p("applies_for", False, "concept", True),
    ("give", "up"): _p("quits", False, "concept", True), ("pick", "up"): _p("takes_up"),
    ("take", "up"): _p("takes_up"), ("get", "into"): INTERESTED_IN, ("be", "into"): INTERESTED_IN,
    ("hang", "out"): MEETS, ("catch", "up"): MEETS, ("spend", "time"): _p("spends_time_with"),
    ("struggle", "with"): _p("struggles_with"), ("deal", "with"): _p("struggles_with"),
    ("recover", "from"): _p("recovers_from", False, "concept", True),
    ("get", "married"): _p("spouse", True, "person", True),
    ("break", "up"): _p("breaks_up", False, "person", True),
    ("lose", "job"): _p("loses_job", False, "organization", True),
    ("put", "together"): _p("organizes", False, "event", True), ("set", "up"): STARTS,
    ("open", "up"): STARTS, ("sign", "into"): ENROLLS,
    ("get", "job"): _p("gets_job", False, "concept", True),  # the job got is no employer
}

TRAVEL_VERBS = frozenset({"go", "travel", "fly", "drive", "take", "ride", "head", "journey", "come",
                          "return", "get", "sail", "hop"})
TRANSPORT_NOUNS = frozenset({
    "car", "plane", "flight", "airplane", "train", "bus", "bike", "bicycle", "helicopter", "boat",
    "ship", "ferry", "cruise", "subway", "metro", "taxi", "cab", "uber", "motorcycle", "rv",
    "van", "truck", "scooter", "tram", "jet", "yacht", "canoe", "kayak", "horse",
})
GATHERING_NOUNS = frozenset({
    "group", "meeting", "class", "conference", "concert", "party", "festival", "workshop", "event",
    "session", "parade", "game", "night", "show", "wedding", "ceremony", "service", "rally", "march",
    "meetup", "retreat", "camp", "seminar", "lecture", "talk", "match", "tournament", "competition",
    "race", "marathon", "fair", "exhibition", "exhibit", "gala", "fundraiser", "funeral", "reunion",
    "celebration", "course", "club", "practice", "rehearsal", "audition", "interview", "protest",
    "convention", "auction", "screening", "play", "musical", "opera", "performance", "recital",
})
ATTEND_PROP = ATTENDS

# possessive nouns: "my husband", "her dog", "our kids" -> relation of the possessor
KIN: dict[str, Prop] = {
    **{w: _p("spouse", True, "person") for w in ("husband", "wife", "spouse", "hubby")},
    **{w: _p("partner", True, "person") for w in ("partner", "boyfriend", "girlfriend", "fiance",
                                                  "fiancé", "fiancee", "fiancée")},
    **{w: _p("child", True, "person") for w in ("kid", "kids", "child", "children", "son", "sons",
                                                "daughter", "daughters", "baby", "toddler")},
    **{w: _p("parent", True, "person") for w in ("mom", "mother", "dad", "father", "parents",
                                                 "mum", "mommy", "daddy", "parent")},
    **{w: _p("sibling", True, "person") for w in ("brother", "sister", "sibling", "siblings",
                                                  "brothers", "sisters", "sis", "bro")},
    **{w: _p("grandparent", True, "person") for w in ("grandma", "grandpa", "grandmother",
                                                      "grandfather", "grandparents", "granny")},
    **{w: _p("relative", True, "person") for w in ("cousin", "aunt", "uncle", "niece", "nephew",
                                                   "family", "relatives", "in-laws")},
    **{w: _p("friend", True, "person") for w in ("friend", "friends", "buddy", "buddies", "bestie",
                                                 "pal", "bff", "roommate")},
    **{w: _p("colleague", True, "person") for w in ("colleague", "colleagues", "coworker",
                                                    "coworkers", "boss", "manager", "team", "mentor",
                                                    "student", "students", "client", "clients")},
    **{w: PET for w in ("dog", "dogs", "cat", "cats", "puppy", "pup", "kitten", "pet", "pets",
                        "bird", "parrot", "fish", "horse", "hamster", "rabbit", "bunny", "turtle",
                        "guinea", "snake", "lizard")},
}
# verbs whose object is food: an animal noun there is a dish ("cooked my favorite chicken")
FOOD_VERBS = frozenset({"cook", "bake", "eat", "grill", "roast", "fry", "order", "serve", "taste", "try"})
# what a name introduced by one of these nouns is: an animal ("Pixel, my guinea pig", "a snake
# called Noodle"), a person ("the lady, Vera", "a guy named Tomas")
ANIMAL_NOUNS = frozenset(w for w, p in KIN.items() if p is PET) | frozenset({
    "pig", "python", "gecko", "ferret", "chicken", "hen", "goat", "pony", "mouse", "rat", "cow",
    "sheep", "duck", "goose", "tortoise", "frog", "canary", "budgie", "cockatiel", "iguana"})
# words that, said in a turn naming someone (or in the reply to it), point at an animal: a name
# said with them in two turns or more, and in a quarter of its turns, names an animal
ANIMAL_CUES = ANIMAL_NOUNS | frozenset({
    "puppies", "kitty", "paw", "paws", "meow", "meows", "bark", "barks", "barking", "leash", "fur",
    "kibble", "purr", "purrs", "purring", "litter", "walkies", "breed"})


def kin_of(noun: str) -> Prop | None:
    """The relation a kin or animal noun names ("sister" -> sibling); any animal one owns is a
    pet ("my goat", "her iguana")."""
    return KIN.get(noun) or (PET if noun in ANIMAL_NOUNS else None)


PERSON_NOUNS = frozenset({
    "man", "woman", "guy", "girl", "boy", "lady", "gentleman", "dude", "person", "fellow",
    "neighbor", "neighbour", "stranger", "teenager", "teen", "kid", "adult", "individual"})
# nouns that introduce a word, not a thing: "the word Candy", "a name like Bo"
WORD_NOUNS = frozenset({"word", "name", "term", "phrase", "nickname", "letter", "spelling"})

OCCUPATIONS = frozenset({
    "teacher", "nurse", "doctor", "engineer", "artist", "writer", "counselor", "counsellor",
    "banker", "student", "lawyer", "chef", "cook", "musician", "designer", "developer",
    "programmer", "manager", "therapist", "scientist", "researcher", "photographer", "painter",
    "dancer", "singer", "actor", "actress", "author", "accountant", "architect", "mechanic",
    "firefighter", "officer", "soldier", "veteran", "pilot", "farmer", "barista", "waiter",
    "waitress", "entrepreneur", "consultant", "volunteer", "coach", "instructor", "professor",
    "librarian", "pharmacist", "dentist", "vet", "veterinarian", "social worker", "intern",
    "freelancer", "editor", "journalist", "blogger", "youtuber", "streamer", "gamer", "athlete",
    "player", "mom", "dad", "homemaker", "founder", "ceo", "activist",
    "advocate", "caregiver", "sculptor", "potter", "baker", "carpenter", "plumber", "electrician",
    "physio", "physiotherapist", "surgeon", "tutor", "midwife", "dietitian",
})
# pronouns before a noun that make it people ("you guys", "we two", "us girls")
GROUP_PRONOUNS = frozenset({"you", "we", "us"})
# words said before a name as a title, in address or in talk ("Auntie Maya", "Coach Ben"): the
# titled name is the person named, not a relative of theirs
TITLES = frozenset({"aunt", "auntie", "aunty", "uncle", "grandma", "grandpa", "granny", "nana", "cousin",
                    "mr", "mrs", "ms", "miss", "dr", "doc", "sir", "coach", "professor", "prof", "captain"})
NOT_OCCUPATION = frozenset({"fan", "lover", "member", "person", "one", "thing", "number", "kind",
                            "type", "sort", "part", "fighter", "user", "winner", "beginner",
                            "partner", "supporter", "follower", "believer", "listener", "reader",
                            "teenager", "stranger", "foreigner", "outsider", "newcomer", "giver",
                            "owner"})

# adjective + preposition after "be": "keen on", "proud of" ...
ADJ_PREP: dict[tuple[str, str], Prop] = {
    **{(a, p): INTERESTED_IN for a in ("keen", "interested", "passionate", "curious", "crazy", "mad",
                                       "obsessed", "hooked", "into")
       for p in ("on", "in", "about", "into", "with")},
    ("proud", "of"): _p("proud_of"), ("grateful", "for"): _p("grateful_for"),
    ("thankful", "for"): _p("grateful_for"), ("afraid", "of"): _p("fears"),
    ("scared", "of"): _p("fears"), ("terrified", "of"): _p("fears"), ("good", "at"): _p("skilled_at"),
    ("great", "at"): _p("skilled_at"), ("allergic", "to"): _p("allergy"),
    ("married", "to"): _p("spouse", True, "person"), ("engaged", "to"): _p("partner", True, "person"),
    ("busy", "with"): _p("busy_with"), ("ready", "for"): _p("prepares_for", False, "event", True),
    ("prepared", "for"): _p("prepares_for", False, "event", True),
    ("excited", "about"): LOOKS_FORWARD_TO,
    ("excited", "for"): LOOKS_FORWARD_TO, ("worried", "about"): _p("worries_about"),
    ("nervous", "about"): _p("worries_about"), ("fond", "of"): LIKES, ("tired", "of"): DISLIKES,
    ("sick", "of"): DISLIKES, ("swamped", "with"): _p("busy_with"), ("involved", "in"): _p("involved_in"),
    ("part", "of"): MEMBER_OF, ("member", "of"): MEMBER_OF, ("fan", "of"): LIKES,
    ("inspired", "by"): _p("inspired_by"), ("known", "for"): _p("known_for"),
}

# "make" is ``creates`` only for things made, not for "make a difference / friends / sense"
ABSTRACT_MAKE = frozenset({
    "difference", "friend", "sense", "time", "decision", "memory", "progress", "way", "effort",
    "plan", "mistake", "money", "choice", "change", "point", "mess", "impact", "move", "call",
    "sure", "it", "connection", "living", "deal", "peace", "room", "use", "fun", "habit", "list",
    "appointment", "reservation", "comeback", "commitment", "contribution", "noise", "promise",
})
EVALUATIVE = frozenset({
    "awesome", "great", "cool", "amazing", "good", "nice", "fun", "incredible", "wonderful",
    "fantastic", "beautiful", "lovely", "sweet", "tough", "hard", "bad", "crazy", "wild", "special",
    "rewarding", "exciting", "scary", "perfect", "fine", "okay", "ok", "awful", "terrible", "epic",
    "insane", "brilliant", "stunning", "gorgeous", "interesting", "important", "true", "right",
    "cute", "better", "best", "worse", "worst", "funny", "weird", "dumb", "stupid", "silly",
})

RELATIONSHIP_STATUS = frozenset({"single", "married", "divorced", "engaged", "widowed", "separated"})
HEALTH_ADJ = frozenset({"sick", "ill", "pregnant", "injured", "hurt", "allergic", "healthy", "tired",
                        "exhausted", "recovering"})

# words that turn a clause into a plan / desire (the governing verb of an xcomp)
PLAN_VERBS = frozenset({"plan", "intend", "aim", "decide", "prepare", "schedule", "arrange",
                        "promise", "expect", "mean", "go", "be", "set"})
DESIRE_VERBS = frozenset({"want", "wish", "hope", "dream", "long", "yearn", "like", "love",
                          "desire", "need", "would", "consider", "think", "try", "aspire"})

# turns or sentences that carry no fact
# verb + object (or complement) idioms that state nothing about anyone ("makes sense", "take
# care", "keep you posted"; "make sure": what is made sure of is its own clause)
NO_FACT_PHRASES = frozenset({("make", "sense"), ("take", "care"), ("make", "sure"), ("keep", "posted"),
                             ("keep", "updated"), ("keep", "informed")})
ACK_WORDS = frozenset({
    "thanks", "thank", "wow", "cool", "great", "awesome", "nice", "ok", "okay", "yeah", "yes",
    "no", "sure", "totally", "definitely", "absolutely", "haha", "lol", "hey", "hi", "hello",
    "bye", "goodbye", "amazing", "love", "congrats", "congratulations", "aw", "aww", "oh", "ah",
    "right", "true", "exactly", "indeed", "agreed", "same", "welcome", "cheers", "glad", "see",
    "you", "too", "so", "that", "this", "is", "it", "sounds", "good", "really", "much", "take",
    "care", "talk", "soon", "later", "night", "morning", "bye!", "fantastic", "wonderful",
    "incredible", "beautiful", "sweet", "lovely", "gorgeous", "happy", "for", "me", "i", "am",
    "i'm", "'m", "'s", "a", "the", "to", "and", "of", "what", "how", "about", "your", "my",
    "pretty", "super", "very", "such", "agree", "brilliant", "stunning",
})
GREETING_WORDS = frozenset({"hey", "hi", "hello", "morning", "evening", "afternoon", "long",
                            "time", "no", "see", "good", "to", "you", "how", "are", "been", "have",
                            "what's", "up", "it's", "a", "while", "great", "nice", "again",
                            "doing", "going", "things", "new", "anything", "howdy", "yo"})

PROPERTIES: dict[str, Prop] = {}
for _table in (VERBS, PHRASES, KIN, ADJ_PREP):
    for _prop in _table.values():
        PROPERTIES.setdefault(_prop.name, _prop)
for _prop in (OCCUPATION, FEELS, IDENTITY, SHARES_IMAGE, TRANSPORT, HAS,
              _p("relationship_status"), _p("health"), _p("age"), _p("description"),
              _p("favorite"), _p("name")):
    PROPERTIES.setdefault(_prop.name, _prop)


def prop_for(name: str) -> Prop:
    """The lexicon entry of a property name; unknown names (verb lemmas) are aspects."""
    if name.startswith("favorite_"):
        return Prop(name)
    return PROPERTIES.get(name, Prop(name))
