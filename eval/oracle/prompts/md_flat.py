"""``md_flat``'s LLM call, served from gold (the paradigm's ``oracle: memory`` mode, as a reply).

``md_flat.edit``: replace the entity's value line among the lines shown (append when none is shown),
append rules and dependencies, delete the lines of a forgotten entity, all in the loop's first round.
"""

from __future__ import annotations

import re
from typing import Any

from memsuite.baselines import md_flat as paradigm
from memsuite.baselines.gold_facts import OracleFact
from memsuite.eval.oracle.chunks import fact_index, fact_of, later_round, section, session_facts
from memsuite.eval.oracle.kinds import OracleRequest, OwnPrompt, PromptFamily, PromptKind

_NUMBERED = re.compile(r"^(?P<n>\d+): (?P<text>.*)$")
_DATED = re.compile(r"^\[\d{4}[/-]\d{1,2}[/-]\d{1,2}\]\s*")


def md_flat_reply(request: OracleRequest) -> dict[str, Any]:
    if later_round(request):
        return {"ops": [], "done": True}  # every edit was sent in the first round
    text = request.text("user")
    view = section(text, "memory.md:\n", "\n\nNew session:\n")
    facts = session_facts(request, section(text, "\n\nNew session:\n", None))
    index = fact_index(request.need_unit())
    lines: list[tuple[int, OracleFact | None]] = []
    for line in view.splitlines():
        match = _NUMBERED.match(line)
        if match:
            lines.append((int(match["n"]), fact_of(index, _DATED.sub("", match["text"]))))
    replaced: dict[int, str] = {}
    removed: set[int] = set()
    appended: list[tuple[str, str]] = []  # (entity, text)
    for fact in facts:
        mine = [n for n, f in lines if f is not None and f.entity == fact.entity and n not in removed]
        if fact.kind == "delete":
            removed.update(mine)
            appended = [(e, t) for e, t in appended if e != fact.entity]
            continue
        values = [n for n, f in lines if f is not None and f.entity == fact.entity and f.sets_value]
        values = [n for n in values if n not in removed]
        pending = [i for i, (e, _) in enumerate(appended) if e == fact.entity]
        if fact.sets_value and values:
            replaced[values[-1]] = fact.text
        elif fact.sets_value and pending:
            appended[pending[-1]] = (fact.entity, fact.text)
        else:
            appended.append((fact.entity, fact.text))
    ops: list[dict[str, Any]] = [
        {"op": "replace", "line": n, "text": t} for n, t in sorted(replaced.items()) if n not in removed
    ]
    ops += [{"op": "delete", "line": n} for n in sorted(removed)]
    ops += [{"op": "append", "text": t} for _, t in appended]
    return {"ops": ops, "done": True}


KINDS = (
    PromptKind(
        name="md_flat.edit",
        markers=(
            "You maintain a user's long-term memory: a markdown file with one dated fact per line",
            '{"op": "replace", "line": N, "text": T}',
        ),
        reply=md_flat_reply,
        prompts=(OwnPrompt(paradigm, "MD_FLAT_PROMPT"),),
    ),
)
FAMILY = PromptFamily(systems=(paradigm,), kinds=KINDS)
