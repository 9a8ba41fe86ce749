"""The evidence rule on every messy form the release holds, and on the real strings of the seven dev
chats (the counts the reference check and the report rely on)."""

from __future__ import annotations

import re

import pytest

from memsuite.eval.benchmarks.realtalk.evidence import cited_ids, resolve
from memsuite.eval.benchmarks.realtalk.loader import load_chats

HELD = {f"D{s}:{i}" for s in range(1, 25) for i in range(1, 60)} - {"D2:7", "D2:10", "D12:4"}


@pytest.mark.parametrize(
    ("evidence", "cited"),
    [
        ("D5:3", ["D5:3"]),
        ("D5:3.", ["D5:3"]),  # trailing dot
        ("D5:12;D5:16", ["D5:12", "D5:16"]),  # several ids, no space
        ("D1:11; D3:18", ["D1:11", "D3:18"]),  # several ids, spaced
        ("D13:4. D14:4", ["D13:4", "D14:4"]),  # dot then space
        ("D12:3-D12:5", ["D12:3", "D12:5"]),  # a range over an id the chat does not hold (D12:4)
        ("D12:1-6", ["D12:1", "D12:2", "D12:3", "D12:5", "D12:6"]),  # short range
        (
            "D14:8-D14:13;D15:16-D15:20",
            [*(f"D14:{i}" for i in range(8, 14)), *(f"D15:{i}" for i in range(16, 21))],
        ),
        ("D15:5-D15:6;D12:1-D12:2", ["D15:5", "D15:6", "D12:1", "D12:2"]),
        ("D3:58-D4:2", ["D3:58", "D4:2"]),  # across two sessions: its two ends only
        ("D2:6-D2:8", ["D2:6", "D2:8"]),  # a gap inside a range is not cited
        ("D 2:18", ["D2:18"]),  # a space inside the id
        ("D13:45:D20:19", ["D13:45", "D20:19"]),  # run together
        ("D:56", []),  # typos cite nothing
        ("D58", []),
        ("23:29", []),
        ("D17;39", []),
        ("", []),
        ("D2:7", ["D2:7"]),  # an id the chat does not hold is cited (dangling), not dropped
        ("D2:6, D2:6", ["D2:6", "D2:6"]),  # repeats kept here, once in resolve
    ],
)
def test_each_messy_form_of_one_string(evidence, cited):
    assert cited_ids(evidence, HELD) == cited


def test_resolve_splits_relevant_and_dangling_once_each_in_citation_order():
    relevant, dangling = resolve(["D3:2", "D2:7", "D2:6; D3:2", "D2:10.", "D:56"], HELD)
    assert relevant == ("D3:2", "D2:6")
    assert dangling == ("D2:7", "D2:10")


def test_a_string_is_read_alone():
    # A range never spans two strings: "D1:1-" and "3" are two typos, not D1:1-D1:3.
    assert resolve(["D1:1-", "3"], HELD) == (("D1:1",), ())


#: Per dev chat: (questions, dangling ids summed over questions, questions citing no id the chat holds).
DEV = {
    1: (70, 28, 0),
    2: (73, 3, 0),
    4: (70, 1, 0),
    5: (76, 15, 2),
    6: (70, 0, 0),
    8: (71, 44, 7),
    10: (85, 0, 0),
}


@pytest.fixture(scope="module")
def dev_chats(shared_data):
    return {chat.number: chat for chat in load_chats(shared_data / "realtalk")}


@pytest.mark.shared_data("realtalk")
def test_dev_chats_dangling_and_unscored_counts(dev_chats):
    found = {
        n: (
            len(c.questions),
            sum(len(q.dangling) for q in c.questions),
            sum(not q.relevant for q in c.questions),
        )
        for n, c in dev_chats.items()
    }
    assert found == DEV
    chat5 = dev_chats[5]
    assert [q.index for q in chat5.questions if not q.relevant] == [9, 72]


@pytest.mark.shared_data("realtalk")
def test_dev_chats_every_relevant_id_is_held_and_every_dangling_one_is_not(dev_chats):
    for chat in dev_chats.values():
        held = {m.dia_id for m in chat.messages}
        for q in chat.questions:
            assert set(q.relevant) <= held and not set(q.dangling) & held
            assert len(set(q.relevant)) == len(q.relevant)


@pytest.mark.shared_data("realtalk")
def test_dev_chats_the_readme_counts_are_a_whole_string_reading(dev_chats):
    """The shared data README says 1 (chat 1), 2 (chat 5), 9 (chat 8) unscored and 47 dangling in chat 8:
    that is what a string counts as when it is read whole (an id only when it is one ``Da:b``, a trailing
    dot dropped; anything else one dangling citation). The rule here reads ``D 2:18``,
    ``D16:82. D19:2`` and ``D13:4. D14:4`` as the ids they name, which the chats hold."""
    whole = re.compile(r"D\d+:\d+")
    found = {}
    for number in (1, 5, 8):
        chat = dev_chats[number]
        held = {m.dia_id for m in chat.messages}
        counted_unscored = counted_dangling = 0
        for q in chat.questions:
            ids = [e.rstrip(".") for e in q.raw_evidence if e.rstrip(".")]
            counted_dangling += len({i for i in ids if not (whole.fullmatch(i) and i in held)})
            counted_unscored += not any(whole.fullmatch(i) and i in held for i in ids)
        found[number] = (counted_unscored, counted_dangling)
    assert {n: u for n, (u, _) in found.items()} == {1: 1, 5: 2, 8: 9}
    assert found[8][1] == 47
    strings = {e for c in dev_chats.values() for q in c.questions for e in q.raw_evidence}
    assert {"D 2:18", "D16:82. D19:2", "D13:4. D14:4"} <= strings
