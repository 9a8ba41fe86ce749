"""The run's context budget (memsuite.eval.budget) with the real cl100k tokenizer."""

from __future__ import annotations

import pytest

from memsuite.eval.budget import (
    DEFAULT_K,
    FILL_MAX_K,
    check_budget,
    fill_depth,
    hits_within,
    within_budget,
)
from memsuite.eval.cli.main import main
from memsuite.eval.run.config import config_from_dict
from memsuite.eval.run.runner import run
from memsuite.memory_systems.base import CONTEXT_SEPARATOR, NO_MEMORY
from memsuite.memory_systems.errors import ConfigError
from memsuite.memory_systems.records import Hit, RetrievalResult
from memsuite.memory_systems.tokens import count_tokens

TEXTS = [
    "The router in the hallway is now called Brindlewatch.",
    "Mara moved the weekly sync to Thursday at nine.",
    "The staging database runs Postgres 16 on the second rack, next to the backup appliance.",
]
HITS = tuple(Hit(f"m{i}", text, 1.0 - i / 10) for i, text in enumerate(TEXTS))
JOINED = RetrievalResult(CONTEXT_SEPARATOR.join(TEXTS), HITS)


def _fits(n: int) -> int:
    """Tokens of the first ``n`` texts joined as a context."""
    return count_tokens(CONTEXT_SEPARATOR.join(TEXTS[:n]))


def test_no_budget_hands_over_the_systems_context_unchanged():
    handed = within_budget(JOINED, None)
    assert handed.text == JOINED.context and handed.hits == HITS and not handed.cut
    assert handed.tokens == count_tokens(JOINED.context)


def test_whole_hits_are_kept_best_first_while_they_fit():
    budget = _fits(2)  # exactly the first two
    handed = within_budget(JOINED, budget)
    assert handed.text == CONTEXT_SEPARATOR.join(TEXTS[:2]) and handed.hits == HITS[:2]
    assert handed.cut and handed.tokens == count_tokens(handed.text) <= budget
    # One token less: the second hit no longer fits whole and is dropped, not cut.
    handed = within_budget(JOINED, budget - 1)
    assert handed.text == TEXTS[0] and handed.hits == HITS[:1] and handed.cut


def test_a_later_short_hit_does_not_jump_the_rank_order():
    short_last = (HITS[2], Hit("short", "Yes.", 0.1))
    result = RetrievalResult(CONTEXT_SEPARATOR.join(h.text for h in short_last), short_last)
    handed = within_budget(result, count_tokens(TEXTS[2]) + 1)
    assert handed.hits == (HITS[2],)  # "Yes." would fit, but the rank order ends at the first misfit


def test_only_when_no_hit_fits_is_the_first_cut_at_its_head():
    handed = within_budget(JOINED, 4)
    assert handed.cut and handed.tokens <= 4 and TEXTS[0].startswith(handed.text)
    (first,) = handed.hits
    assert first.id == "m0" and first.text == handed.text


def test_a_systems_own_context_is_cut_by_its_blocks():
    own = RetrievalResult("## Facts\n" + CONTEXT_SEPARATOR.join(TEXTS), HITS)  # not the hits joined
    handed = within_budget(own, count_tokens("## Facts\n" + TEXTS[0]) + 2)
    assert handed.text == "## Facts\n" + TEXTS[0] and handed.hits == HITS[:1]
    # One block, no separator: its head.
    rendered_graph = RetrievalResult("alice -[works_at]-> acme; acme -[located_in]-> berlin", ())
    handed = within_budget(rendered_graph, 5)
    assert handed.cut and count_tokens(handed.text) <= 5 and handed.hits == ()


def test_rendered_hits_are_cut_as_rendered():
    handed = within_budget(JOINED, 40, render=lambda hit: f"[{hit.id}] {hit.text}")
    assert handed.text.startswith("[m0] ") and handed.tokens <= 40 and handed.hits[0] is HITS[0]


def test_nothing_retrieved_is_no_memory_and_never_cut():
    handed = within_budget(RetrievalResult("", ()), 1)
    assert handed.text == NO_MEMORY and not handed.cut and handed.hits == ()


@pytest.mark.parametrize("budget", [1, 7, 20, 33, 60])
def test_the_kept_text_recounted_never_exceeds_the_budget(budget):
    texts = ["naïve café — 東京 🚀 " * 3, "emoji 🧪🧪🧪 and ümlauts", "plain words here"]
    result = RetrievalResult(
        CONTEXT_SEPARATOR.join(texts), tuple(Hit(str(i), t, 0.0) for i, t in enumerate(texts))
    )
    handed = within_budget(result, budget)
    assert count_tokens(handed.text) == handed.tokens <= budget


def test_search_hits_are_cut_like_a_context_of_them():
    handed = hits_within(list(HITS), _fits(2))
    assert handed.hits == HITS[:2]


def test_the_depth_fills_the_budget_unless_k_is_set():
    assert fill_depth(None, None) == DEFAULT_K
    assert fill_depth(7, 4096) == 7  # a configured k is an upper bound
    assert fill_depth(None, 200) == 25
    assert fill_depth(None, 3) == 1 and fill_depth(None, 10**6) == FILL_MAX_K


class _Endpoint:
    """An answer client as the runner sees it: only its identity is read."""

    def __init__(self, n_ctx: int | None) -> None:
        self.n_ctx = n_ctx

    def identity(self) -> dict:
        return {"model": "m", "n_ctx": self.n_ctx}


def test_a_budget_larger_than_the_answer_window_leaves_is_refused():
    check_budget(1638, _Endpoint(2048))  # 0.8 of the window
    check_budget(10**6, _Endpoint(None))  # an unknown window is not checked
    check_budget(10**6, None)  # retrieval only
    with pytest.raises(ConfigError, match=r"context_tokens: 1639 .* \(1638 of its 2048 tokens"):
        check_budget(1639, _Endpoint(2048))


@pytest.mark.parametrize("value", ["0", "-5", "1.5", "many"])
def test_a_bad_budget_is_refused_before_any_work_naming_the_field(value, tmp_path, capsys):
    out = tmp_path / "run"
    code = main(["run", "meme_quick", "--set", f"context_tokens={value}", "--out", str(out), "--quiet"])
    assert code == 2 and "context_tokens" in capsys.readouterr().err
    assert not out.exists()


def test_a_run_with_a_budget_and_no_k_fills_it_and_every_row_keeps_to_it(tmp_path):
    config = config_from_dict(
        {
            "benchmark": "meme",
            "systems": ["bm25", "dense"],
            "context_tokens": 64,
            "benchmark_options": {"episodes": 1, "filler": "none", "seed": 3},
        }
    )
    folder = run(config, out_dir=tmp_path / "run", show_progress=False)
    assert folder.header["retrieval"] == {"k": None, "depth": 8, "context_tokens": 64}
    rows = folder.rows()
    assert rows and {r.system for r in rows} == {"bm25", "dense"}
    for row in rows:
        assert count_tokens(row.context) == row.metadata["context_tokens"] <= 64
    assert any(r.metadata["context_cut"] for r in rows)


def test_a_librarys_own_line_per_hit_is_kept_whole():
    entries = [f"talk start time:2024-05-0{i} memory content: {t}\n" for i, t in enumerate(TEXTS, 1)]
    hits = tuple(Hit(h.id, h.text, h.score, {"entry": e}) for h, e in zip(HITS, entries, strict=True))
    result = RetrievalResult("".join(entries), hits)
    handed = within_budget(result, count_tokens(entries[0] + entries[1]))
    assert handed.text == entries[0] + entries[1] and handed.hits == hits[:2] and handed.cut
    handed = within_budget(result, 5)  # not even the first line fits: its head, the hit as it was
    assert handed.tokens <= 5 and entries[0].startswith(handed.text) and handed.hits == hits[:1]
