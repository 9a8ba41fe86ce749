"""MEME verdicts on episodes in the public release's layout and wording (see eval/benchmarks/meme/release.py).

The episode below follows the released layout (``root_change`` with before/after, ``entities`` with a
task letter per entity, ``entity_values`` mixing strings and lists, gold facts without memsuite's
``kind``/``name`` keys, a Cascade after-question whose values hold only the new value, the Abs and
Del gold strings as the release writes them) and the release's way of wording a rule ("if <source>
changes, switch <target> to <value>"), with invented entities and values. Dialogue lines, answers and
deletion requests are worded the way memsuite's generator never words them (its templates say
"depends on ...; if ... changes, ... will be ..." and "Please forget ... -- delete it").

Every check goes through what the protocol calls: :func:`meme_case` (upstream change, root names,
old value), :func:`evidence_verdict` and :func:`judge_rule` with ``case.rule_args()``.
"""

from __future__ import annotations

import json

import pytest

from memsuite.eval.benchmarks.meme.evidence import holds_state, needed_values
from memsuite.eval.benchmarks.meme.judges.rule import judge_rule
from memsuite.eval.benchmarks.meme.loader import load_episodes
from memsuite.eval.benchmarks.meme.parsing import parse_episode
from memsuite.eval.benchmarks.meme.protocol import evidence_verdict, meme_case
from memsuite.eval.benchmarks.meme.release import UpstreamChange, old_value_of, upstream_change
from memsuite.eval.benchmarks.meme.schema import Episode

OLD_AREA, NEW_AREA = "Pellworth Hills", "Draymoor Quay"
OLD_SHOP, NEW_SHOP = "Osterby Market", "Fennimart Select"
STUDIO = "Lumen Asana Loft"
CLUB = "Thistle Readers Circle"
BIKES = ["Corvane Roadster", "Halsted Tourer", "Miravel Gravel"]


def _turns(*pairs: str) -> list[dict[str, str]]:
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": text} for i, text in enumerate(pairs)]


def _filler(sid: str, ts: str) -> dict:
    return {
        "session_id": sid,
        "type": "filler",
        "timestamp": ts,
        "conversation": _turns("Any tips for keeping basil alive indoors?", "Bright light and little water."),
    }


def _ev_session(sid: str, ts: str, turns: list[str], facts: list[dict]) -> dict:
    return {
        "session_id": sid,
        "type": "evidence",
        "timestamp": ts,
        "conversation": _turns(*turns),
        "gold_facts": facts,
    }


def _fact(entity: str, value: str, text: str, turn: int, notes: str) -> dict:
    # The released gold fact keys: no "kind", "name", "source" or "old" (memsuite's extras).
    return {"entity": entity, "value": value, "fact_text": text, "conveyed_in_turn": turn, "notes": notes}


INTRO = [
    f"I've settled into {OLD_AREA}; that's my living area for now.",
    f"Lovely, {OLD_AREA} it is.",
    f"I buy groceries at {OLD_SHOP} and do yoga at {STUDIO}.",
    "Good to know both.",
    f"Also I joined a book club, the {CLUB}, and I ride a {BIKES[0]}.",
    "Sounds like a nice routine.",
]
RULES = [
    f"If living area changes, switch grocery store to {NEW_SHOP}.",
    "Okay, I'll keep that plan for the grocery store.",
    "My yoga studio choice hinges on the living area too, but I haven't picked a fallback.",
    "Understood, the studio is tied to where you live.",
    f"I traded the bike for a {BIKES[1]}.",
    "Nice upgrade.",
]
CHANGE_DELETE = [
    f"We relocated last weekend, we're in {NEW_AREA} now.",
    f"Congratulations on settling in {NEW_AREA}!",
    "Also, please delete my book club details from your memory.",
    "Done, the book club entry is gone.",
    f"And the bike is a {BIKES[2]} these days.",
    "Great choice.",
]


def released_data() -> dict:
    sessions = [
        _filler("sharegpt_5101", "2023/03/01 (Wed) 09:00"),
        _ev_session(
            "evidence_1",
            "2023/03/02 (Thu) 18:40",
            INTRO,
            [
                _fact("living_area", OLD_AREA, f"The user's living area is {OLD_AREA}.", 0, "initial state"),
                _fact("grocery_store", OLD_SHOP, f"The user shops at {OLD_SHOP}.", 2, "initial state"),
                _fact("yoga_studio", STUDIO, f"The user's yoga studio is {STUDIO}.", 2, "initial state"),
                _fact("book_club", CLUB, f"The user's book club is the {CLUB}.", 4, "to be deleted later"),
                _fact("bike", BIKES[0], f"The user rides a {BIKES[0]}.", 4, "tracking value 1 of 3"),
            ],
        ),
        _filler("sharegpt_5102", "2023/03/04 (Sat) 10:15"),
        _ev_session(
            "evidence_2",
            "2023/03/05 (Sun) 20:05",
            RULES,
            [
                _fact("grocery_store", NEW_SHOP, RULES[0], 0, "conditional rule on living_area (1-hop)"),
                _fact("yoga_studio", STUDIO, RULES[2], 2, "dependency on living_area, outcome unstated"),
                _fact("bike", BIKES[1], f"The user now rides a {BIKES[1]}.", 4, "tracking value 2 of 3"),
            ],
        ),
        _filler("sharegpt_5103", "2023/03/07 (Tue) 08:30"),
        _ev_session(
            "evidence_3",
            "2023/03/09 (Thu) 19:50",
            CHANGE_DELETE,
            [
                _fact(
                    "living_area", NEW_AREA, f"The user's living area is now {NEW_AREA}.", 0, "root change"
                ),
                _fact("book_club", CLUB, "The user asked to delete the book club.", 2, "deletion request"),
                _fact("bike", BIKES[2], f"The user now rides a {BIKES[2]}.", 4, "tracking value 3 of 3"),
            ],
        ),
        _filler("sharegpt_5104", "2023/03/10 (Fri) 12:00"),
    ]
    return {
        "episode_id": "pl_950",
        "domain": "personal_life",
        "root": "living_area",
        "root_change": {"before": OLD_AREA, "after": NEW_AREA},
        "chain_entities": ["living_area", "grocery_store", "yoga_studio"],
        "filler_entities": ["book_club", "bike"],
        "entities": {
            "living_area": {"before": OLD_AREA, "after": NEW_AREA, "task": "C"},
            "grocery_store": {"before": OLD_SHOP, "after": NEW_SHOP, "task": "C"},
            "yoga_studio": {"before": STUDIO, "after": None, "task": "A"},
            "book_club": {"before": CLUB, "after": None, "task": "D"},
        },
        "has_2hop": False,
        "dependency_edges_used": [
            {"source": "living_area", "target": "grocery_store", "hop": 1, "pattern": "location_based"},
            {"source": "living_area", "target": "yoga_studio", "hop": 1, "pattern": "location_based"},
        ],
        "tasks": [
            {
                "type": "Tr",
                "target_entities": ["bike"],
                "entity_values": {"bike": BIKES},
                "question_template": "What bikes have I had, in order?",
                "gold_answer": ", ".join(BIKES),
            },
            {
                "type": "Cas",
                "target_entities": ["grocery_store"],
                "entity_values": {"grocery_store": NEW_SHOP},
                "gold_answer": NEW_SHOP,
                "hop": 1,
                "cascade_source": "living_area",
            },
        ],
        "total_sessions": 7,
        "evidence_sessions": 3,
        "filler_sessions": 4,
        "evidence_session_indices": [1, 3, 5],
        "sessions": sessions,
        "before_questions": {
            "timestamp": "2023/03/08 (Wed) 09:00",
            "position_after_session": 4,
            "questions": [
                {
                    "task_type": "Cas",
                    "entity": ["grocery_store"],
                    "entity_values": {"grocery_store": OLD_SHOP},
                    "question": "Where do I usually buy groceries?",
                    "expected_answer": OLD_SHOP,
                },
                {
                    "task_type": "Abs",
                    "entity": ["yoga_studio"],
                    "entity_values": {"yoga_studio": STUDIO},
                    "question": "Which yoga studio do I go to?",
                    "expected_answer": STUDIO,
                },
                {
                    "task_type": "Del",
                    "entity": ["book_club"],
                    "entity_values": {"book_club": CLUB},
                    "question": "Which book club am I in?",
                    "expected_answer": CLUB,
                },
            ],
        },
        "after_questions": {
            "timestamp": "2023/03/11 (Sat) 09:00",
            "position_after_session": 6,
            "questions": [
                {
                    "task_type": "Cas",
                    "entity": ["grocery_store"],
                    "entity_values": {"grocery_store": NEW_SHOP},
                    "question": "Where do I usually buy groceries?",
                    "gold_answer": NEW_SHOP,
                    "hop": 1,
                },
                {
                    "task_type": "Abs",
                    "entity": ["yoga_studio"],
                    "entity_values": {"yoga_studio": STUDIO},
                    "question": "Which yoga studio do I go to?",
                    "hop": 1,
                    "gold_answer": f"Uncertain — previously '{STUDIO}', but living_area changed",
                },
                {
                    "task_type": "Del",
                    "entity": ["book_club"],
                    "entity_values": {"book_club": CLUB},
                    "question": "Which book club am I in?",
                    "gold_answer": "No — explicitly removed",
                },
                {
                    "task_type": "Tr",
                    "entity": ["bike"],
                    "entity_values": {"bike": BIKES},
                    "question": "What bikes have I had, in order?",
                    "gold_answer": " → ".join(BIKES),
                },
            ],
        },
    }


@pytest.fixture(scope="module")
def episode() -> Episode:
    return parse_episode(released_data())


def _after(episode: Episode, task: str):
    return next(q for q in episode.after_questions.questions if q.task == task)


def _context(episode: Episode, *, drop: tuple[tuple[int, int], ...] = (), sessions=(1, 3, 5)) -> str:
    """The evidence sessions as a retriever hands them over, minus the (session, turn) pairs in ``drop``."""
    lines = []
    for index in sessions:
        session = episode.sessions[index]
        for turn_index, turn in enumerate(session.conversation):
            if (index, turn_index) not in drop:
                lines.append(f"[{session.timestamp}] {turn.role}: {turn.content}")
    return "\n".join(lines)


def _pair(session: int, turn: int) -> tuple[tuple[int, int], ...]:
    return ((session, turn), (session, turn + 1))  # the user's line and the assistant's reply


def _evidence(episode: Episode, task: str, context: str) -> bool:
    case = meme_case(episode, _after(episode, task), "after")
    verdict = evidence_verdict(
        case.question,
        "after",
        context,
        names=case.names,
        change=case.change,
        root_names=case.root_names,
        old_value=case.old,
    )
    return verdict["correct"]


def _judge(episode: Episode, task: str, answer: str) -> bool:
    question = _after(episode, task)
    case = meme_case(episode, question, "after")
    return judge_rule(question.task, answer, question.gold, **case.rule_args()).correct


# -- loading and release facts -----------------------------------------------------------------------


def test_released_layout_loads_and_round_trips(tmp_path):
    data = released_data()
    path = tmp_path / "meme_nofiller.json"
    path.write_text(json.dumps([data], ensure_ascii=False), encoding="utf-8")
    [loaded] = load_episodes(path)
    assert loaded.to_dict() == data
    assert [s.is_evidence for s in loaded.sessions] == [False, True, False, True, False, True, False]
    tracking = _after(loaded, "Tr")
    assert tracking.values == tuple(BIKES)  # a dict of a list, flattened in order


def test_upstream_change_from_root_change_and_from_gold_facts(episode):
    expected = UpstreamChange("living_area", OLD_AREA, NEW_AREA)
    assert upstream_change(episode) == expected
    data = released_data()
    del data["root_change"]
    assert upstream_change(parse_episode(data)) == expected
    # Neither root nor edges: the first fact after the probe that changes an earlier value. The
    # deletion fact repeats the club's value, so it is no change.
    del data["root"], data["dependency_edges_used"]
    assert upstream_change(parse_episode(data)) == expected
    assert meme_case(episode, _after(episode, "Cas"), "after").root_names == ("living area",)


def test_old_values_come_from_the_before_phase(episode):
    cas = _after(episode, "Cas")
    assert cas.values == (NEW_SHOP,)  # released Cascade values: the new value only
    assert old_value_of(episode, cas) == OLD_SHOP
    assert old_value_of(episode, _after(episode, "Abs")) == STUDIO
    assert old_value_of(episode, _after(episode, "Del")) == CLUB
    # Without before-questions: the entity's earlier gold fact (the rule's fact holds the new value).
    data = released_data()
    data["before_questions"]["questions"] = []
    bare = parse_episode(data)
    assert old_value_of(bare, _after(bare, "Cas")) == OLD_SHOP
    # Without gold facts either: the entities metadata.
    for session in data["sessions"]:
        session.pop("gold_facts", None)
    bare = parse_episode(data)
    assert old_value_of(bare, _after(bare, "Cas")) == OLD_SHOP


def test_needed_values_use_the_old_value_for_abs_and_del(episode):
    for task, expected in (("Cas", [NEW_SHOP]), ("Abs", [STUDIO]), ("Del", [CLUB]), ("Tr", BIKES)):
        question = _after(episode, task)
        case = meme_case(episode, question, "after")
        assert needed_values(task, "after", question.gold, question.values, case.old) == expected


# -- evidence verdict ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("task", "drop", "expected"),
    [
        ("Cas", (), True),
        ("Cas", _pair(5, 0), False),  # the change of living area
        ("Cas", _pair(3, 0), False),  # the rule that declares the new store
        ("Abs", (), True),
        ("Abs", _pair(5, 0), False),  # the change
        ("Abs", _pair(3, 2), False),  # the stated dependency
        ("Del", (), True),
        ("Del", _pair(5, 2), False),  # the deletion request: the club is still there, unretracted
        ("Tr", (), True),
        ("Tr", _pair(3, 4), False),  # the middle bike
    ],
)
def test_evidence_on_the_gold_context_and_without_its_key_part(episode, task, drop, expected):
    assert _evidence(episode, task, _context(episode, drop=drop)) is expected


def _swap(turns: list[str], index: int, text: str) -> list[str]:
    return [text if i == index else t for i, t in enumerate(turns)]


def _with_turn(session: int, index: int, text: str) -> Episode:
    data = released_data()
    turns = [t["content"] for t in data["sessions"][session]["conversation"]]
    data["sessions"][session]["conversation"] = _turns(*_swap(turns, index, text))
    return parse_episode(data)


@pytest.mark.parametrize(
    "request_text",
    [
        "Also, please delete my book club details from your memory.",
        "Can you remove the book club from what you keep about me?",
        "The book club thing -- wipe it, please.",
        "I'd like the book club erased from your notes.",
        "Please scrub the book club from your notes.",
        "I'd rather you didn't hold on to anything about my book club.",
        "Let's take the book club out of your records.",
    ],
)
def test_deletion_requests_worded_otherwise_are_evidence(request_text):
    # The assistant's reply is neutral here, so only the user's wording can carry the request.
    episode = _with_turn(5, 2, request_text)
    context = _context(episode, drop=((5, 3),))
    assert _evidence(episode, "Del", context) is True


@pytest.mark.parametrize(
    "dependency_text",
    [
        "My yoga studio choice hinges on the living area too, but I haven't picked a fallback.",
        "If living area changes, I'll have to rethink the yoga studio.",
        "The yoga studio is tied to my living area.",
        "Where I do yoga depends on the living area, so the yoga studio may need revisiting.",
        "I chose the yoga studio for being close to my living area.",
    ],
)
def test_dependencies_worded_otherwise_are_evidence(dependency_text):
    episode = _with_turn(3, 2, dependency_text)
    context = _context(episode, drop=((3, 3),))
    assert _evidence(episode, "Abs", context) is True


@pytest.mark.parametrize(
    "rule_text",
    [
        f"If living area changes, switch grocery store to {NEW_SHOP}.",
        f"Should the living area change, move my grocery store over to {NEW_SHOP}.",
        f"Whenever my living area changes, the grocery store becomes {NEW_SHOP}.",
    ],
)
def test_a_rule_alone_is_no_change_but_with_the_change_is_cascade_evidence(rule_text):
    episode = _with_turn(3, 0, rule_text)
    with_change = _context(episode, drop=((3, 1),))
    assert _evidence(episode, "Cas", with_change) is True
    rule_only = _context(episode, drop=((3, 1), *_pair(5, 0)))
    assert _evidence(episode, "Cas", rule_only) is False


def test_snapshot_state_on_release_wording(episode):
    # The "maintained" stage of the failure attribution reads a memory snapshot with the same rules.
    case = meme_case(episode, _after(episode, "Abs"), "after")
    note = f"Yoga studio: {STUDIO} (tied to living area; living area changed to {NEW_AREA})"
    assert holds_state(note, task="Abs", phase="after", values=[STUDIO], names=case.names)[0]
    assert not holds_state(
        f"Yoga studio: {STUDIO}", task="Abs", phase="after", values=[STUDIO], names=case.names
    )[0]
    assert not holds_state(f"Book club: {CLUB}", task="Del", phase="after", values=[CLUB])[0]


# -- rule judge ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("task", "answer", "expected"),
    [
        # Gold answers as the release writes them.
        ("Cas", NEW_SHOP, True),
        ("Abs", f"Uncertain — previously '{STUDIO}', but living_area changed", True),
        ("Abs", f"Uncertain — previously '{STUDIO}', but living area changed", True),
        ("Del", "No — explicitly removed", True),
        ("Tr", ", ".join(BIKES), True),
        ("Tr", " → ".join(BIKES), True),
        # Paraphrases an answer LLM writes.
        ("Cas", f"You buy your groceries at {NEW_SHOP}.", True),
        ("Cas", f"Since the move, it's {NEW_SHOP}.", True),
        ("Abs", f"I'm not sure anymore; it used to be {STUDIO} but your living area changed.", True),
        ("Abs", f"It was {STUDIO}, but that may no longer hold after your move.", True),
        ("Abs", "I don't know which studio you use now, since your living area changed.", True),
        ("Del", "That was deleted at your request, so I don't have it.", True),
        ("Del", "You asked me to forget your book club, so I have no record of it.", True),
        ("Del", "I don't have that information.", True),
        # Stale or confident old values.
        ("Cas", OLD_SHOP, False),
        ("Cas", f"You shop at {OLD_SHOP}.", False),
        ("Cas", f"It will be {NEW_SHOP}.", False),
        ("Abs", STUDIO, False),
        ("Abs", f"You go to {STUDIO}.", False),
        ("Abs", f"You go to {STUDIO}; that hasn't changed.", False),
        ("Del", CLUB, False),
        ("Del", f"You asked me to forget it, but it was the {CLUB}.", False),
        ("Tr", ", ".join(reversed(BIKES)), False),
        # Paraphrases that once failed the rule judge (past framing, can't say, erase / nothing on file).
        ("Abs", f"You were going to {STUDIO}, but after the move I can't say if that's still true.", True),
        ("Abs", "Since you relocated, I can't say for certain which studio you attend now.", True),
        ("Del", "You had me erase that, so there's nothing on file.", True),
    ],
)
def test_rule_judge_on_release_gold_and_paraphrases(episode, task, answer, expected):
    assert _judge(episode, task, answer) is expected
