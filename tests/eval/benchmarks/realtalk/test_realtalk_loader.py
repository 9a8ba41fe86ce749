"""The REALTALK loader: sessions by number, messages as released, dates parsed, the release's folder or
files one by one, and bad input refused naming the file, the message or question, and the field."""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from realtalk_data import message, qa, write_chat

from memsuite.eval.benchmarks.realtalk.loader import chat_files, load_chat, load_chats
from memsuite.memory_systems.errors import DatasetError


def _chat(tmp_path, **changes):
    sessions = {
        10: [message("D10:1", "ten", when="08.01.2024, 09:00:00")],
        2: [message("D2:2", "two b", when="30.12.2023, 10:00:05"), message("D2:1", "two a")],
        1: [message("D1:1", "  one ")],
    }
    questions = [qa("what?", ["D2:1", "D9:9"], category=2), qa("and?", ["D1:1-D1:3"], answer=7, category=3)]
    return write_chat(
        tmp_path, changes.pop("sessions", sessions), changes.pop("questions", questions), **changes
    )


def test_sessions_by_number_messages_as_released_dates_parsed(tmp_path):
    chat = load_chat(_chat(tmp_path))
    assert chat.chat_id == "Chat_1_Ann_Bob" and chat.number == 1 and chat.speakers == ("Ann", "Bob")
    assert [s.number for s in chat.sessions] == [1, 2, 10]
    assert [m.dia_id for m in chat.messages] == ["D1:1", "D2:2", "D2:1", "D10:1"]
    assert chat.messages[0].text == "  one "  # clean_text exactly
    assert chat.messages[1].sent == datetime(2023, 12, 30, 10, 0, 5)  # noqa: DTZ001 - released without a zone
    assert chat.sessions[2].date_time == "08.01.2024, 09:00:00"
    first, second = chat.questions
    assert (first.relevant, first.dangling, first.category_name) == (("D2:1",), ("D9:9",), "temporal")
    assert (second.relevant, second.answer, second.question_id) == (("D1:1",), "7", "q001")


def test_a_caption_is_kept(tmp_path):
    sessions = {1: [message("D1:1", "look", blip_caption="a photo of a cat")]}
    chat = load_chat(write_chat(tmp_path, sessions, []))
    assert chat.messages[0].blip_caption == "a photo of a cat"


def test_a_folder_is_read_by_chat_number_and_files_one_by_one(tmp_path):
    for n in (10, 2, 1):
        write_chat(tmp_path, {1: [message("D1:1", "hi")]}, [], name=f"Chat_{n}_Ann_Bob")
    (tmp_path / "manifest.json").write_text("{}")
    assert [c.number for c in load_chats(tmp_path)] == [1, 2, 10]
    files = [tmp_path / "Chat_10_Ann_Bob.json", tmp_path / "Chat_1_Ann_Bob.json"]
    assert [c.number for c in load_chats(files)] == [10, 1]
    (tmp_path / "empty").mkdir()
    with pytest.raises(DatasetError, match="no REALTALK chat file"):
        chat_files(tmp_path / "empty")
    with pytest.raises(DatasetError, match="not found"):
        load_chats(tmp_path / "Chat_3_X_Y.json")
    with pytest.raises(DatasetError, match="chat 1 is also"):
        load_chats([tmp_path / "Chat_1_Ann_Bob.json", tmp_path / "Chat_1_Ann_Bob.json"])


def _refused(tmp_path, sessions=None, questions=None, **extra) -> str:
    path = write_chat(
        tmp_path,
        sessions or {1: [message("D1:1", "hi")]},
        questions if questions is not None else [],
        **extra,
    )
    with pytest.raises(DatasetError) as caught:
        load_chat(path)
    message_text = str(caught.value)
    assert str(path) in message_text
    return message_text


@pytest.mark.parametrize(
    ("bad", "where", "field"),
    [
        ({"clean_text": None}, "session_1[1]", "clean_text"),
        ({"speaker": 3}, "session_1[1]", "speaker"),
        ({"dia_id": "D1-2"}, "session_1[1]", "dia_id"),
        ({"dia_id": "D1:1"}, "session_1[1]", "dia_id"),  # repeats D1:1
        ({"date_time": "2023-12-29 22:42"}, "session_1[1]", "date_time"),
        ({"blip_caption": ["x"]}, "session_1[1]", "blip_caption"),
    ],
)
def test_a_bad_message_is_refused_naming_it_and_its_field(tmp_path, bad, where, field):
    sessions = {1: [message("D1:1", "hi"), {**message("D1:2", "there"), **bad}]}
    text = _refused(tmp_path, sessions)
    assert f"{where}: field '{field}'" in text


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({"question": ""}, "question"),
        ({"answer": None}, "answer"),
        ({"answer": True}, "answer"),
        ({"category": "1"}, "category"),
        ({"category": 0}, "category"),
        ({"evidence": "D1:1"}, "evidence"),
        ({"evidence": ["D1:1", 2]}, "evidence"),
    ],
)
def test_a_bad_question_is_refused_naming_it_and_its_field(tmp_path, bad, field):
    questions = [qa("fine?", ["D1:1"]), {**qa("bad?", ["D1:1"]), **bad}]
    assert f"qa[1]: field '{field}'" in _refused(tmp_path, questions=questions)


def test_a_bad_file_is_refused_naming_it(tmp_path):
    path = tmp_path / "Chat_4_A_B.json"
    path.write_text("{not json")
    with pytest.raises(DatasetError, match="not valid JSON"):
        load_chat(path)
    path.write_text(json.dumps([1, 2]))
    with pytest.raises(DatasetError, match="expected a JSON object"):
        load_chat(path)
    path.write_text(json.dumps({"name": {"speaker_1": "A"}, "session_1": [], "qa": []}))
    with pytest.raises(DatasetError, match="field 'name'"):
        load_chat(path)
    path.write_text(json.dumps({"name": {"speaker_1": "A", "speaker_2": "B"}, "session_1": [], "qa": []}))
    with pytest.raises(DatasetError, match="no non-empty session"):
        load_chat(path)
    path.write_text(json.dumps({"name": {"speaker_1": "A", "speaker_2": "B"}, "session_1": {}, "qa": []}))
    with pytest.raises(DatasetError, match="field 'session_1'"):
        load_chat(path)
    other = tmp_path / "chat.json"
    other.write_text("{}")
    with pytest.raises(DatasetError, match="not a REALTALK chat file name"):
        load_chat(other)


@pytest.mark.shared_data("realtalk")
def test_the_dev_chats_load_whole(shared_data):
    folder = shared_data / "realtalk"
    chats = load_chats(folder)
    assert [c.number for c in chats] == [1, 2, 4, 5, 6, 8, 10]
    assert sum(len(c.messages) for c in chats) == 6104
    assert sum(len(c.questions) for c in chats) == 515
    assert sum(m.blip_caption is not None for c in chats for m in c.messages) == 221
    first = chats[0]
    assert first.sessions[3].messages[0].dia_id == "D3:30"  # session 4 of chat 1 opens with a D3 id
