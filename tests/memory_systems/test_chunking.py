"""The MEME chunker, against hand-worked budgets."""

from __future__ import annotations

from memsuite.memory_systems.chunking import chunk_session, session_header, turn_line
from memsuite.memory_systems.records import Session, Turn
from memsuite.memory_systems.tokens import count_tokens, split_by_tokens


def _session(*contents: str) -> Session:
    roles = ["user", "assistant"]
    return Session(
        "s", "2023/03/05 (Sun) 11:24", tuple(Turn(roles[i % 2], c) for i, c in enumerate(contents))
    )


def test_lines_and_header():
    session = Session(
        "s", "2023/03/05 (Sun) 11:24", (Turn("user", "hi"), Turn("bot", "hello"), Turn("assistant", "x"))
    )
    assert session_header(session) == "[Session: 2023/03/05 (Sun) 11:24]"
    assert [turn_line(t) for t in session.turns] == ["User: hi", "Assistant: hello", "Assistant: x"]
    assert chunk_session(session) == [
        "[Session: 2023/03/05 (Sun) 11:24]\nUser: hi\nAssistant: hello\nAssistant: x"
    ]


def test_greedy_packing_counts_header_and_lines_not_newlines():
    session = _session("alpha beta gamma", "delta epsilon", "zeta eta theta iota", "kappa")
    header = count_tokens(session_header(session))
    lines = [turn_line(t) for t in session.turns]
    sizes = [count_tokens(line) for line in lines]
    budget = header + sizes[0] + sizes[1]  # exactly two lines fit
    chunks = chunk_session(session, max_tokens=budget)
    assert chunks[0] == "\n".join([session_header(session), lines[0], lines[1]])
    assert all(c.startswith("[Session: 2023/03/05 (Sun) 11:24]\n") for c in chunks)
    assert [c.count("\n") for c in chunks] == [2, 2] if sizes[2] + sizes[3] <= sizes[0] + sizes[1] else True
    assert "\n".join(line for c in chunks for line in c.splitlines()[1:]) == "\n".join(lines)


def test_oversized_line_is_its_own_chunk_and_never_split():
    long_line = "word " * 300
    session = _session("short one", long_line, "short two")
    chunks = chunk_session(session, max_tokens=50)
    assert len(chunks) == 3
    assert chunks[1] == f"[Session: 2023/03/05 (Sun) 11:24]\nAssistant: {long_line}"


def test_empty_session_has_no_chunks():
    assert chunk_session(Session("s", "t", ())) == []


def test_split_by_tokens_windows_overlap_and_cover():
    text = " ".join(f"w{i}" for i in range(500))
    windows = split_by_tokens(text, max_tokens=100, overlap=20)
    assert len(windows) > 1 and all(count_tokens(w) <= 100 for w in windows)
    assert windows[0].startswith("w0") and windows[-1].endswith("w499")
    assert split_by_tokens("short text", max_tokens=100) == ["short text"]
