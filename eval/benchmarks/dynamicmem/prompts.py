"""Answer prompts of the DynamicMem protocol and the parsing of their replies.

One prompt per state key (State Completion) and per service item (Personalized Service), identical
for every memory system. The layout follows the release's answer prompts (``tce_core/prompts.py``):
the pack-authored question or task body, the retrieved memories as ``[Memory]`` blocks separated by
``<->``, and a JSON skeleton whose ``evidence`` entries cite ``app_log_id`` plus a short snippet. The
wording is memsuite's own.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memsuite.eval.benchmarks.dynamicmem.loader import task_body
from memsuite.eval.benchmarks.dynamicmem.schema import CompletionTask, ServiceItem

#: Separator between retrieved memories inside [Memory] (the release's).
MEMORY_SEPARATOR = "\n<->\n"

SYSTEM_PROMPT = (
    "You are a personal assistant that remembers the user's activity across their apps. "
    "Use only the memory you are given. Reply with one JSON object and nothing else."
)

_SCHEDULE_NOTE = (
    "- Routine schedules: `frequency_type` is one of daily, weekly, biweekly, monthly_by_date, "
    "monthly_nth_weekday; `days_of_week` / `day_of_week` use 0=Monday ... 6=Sunday; `days_of_month` are "
    "calendar days 1-31; `week_of_month` counts 1=first ... 5=fifth; times are 24-hour HH:MM.\n"
)

_EVIDENCE_RULES = """- `evidence`: a list of objects, each with
  - `app_log_id`: the exact id of the memory that supports the answer, or "" when you cannot tell;
  - `evidence_content`: a short quote or close paraphrase from that memory.
  Use [] when nothing supports the answer."""


def memory_section(blocks: Sequence[str]) -> str:
    """The retrieved memories as the prompt shows them."""
    return "[Memory]\n" + MEMORY_SEPARATOR.join(b for b in blocks if b.strip()) + "\n[/Memory]"


def completion_prompt(task: CompletionTask, blocks: Sequence[str]) -> str:
    """The State Completion prompt for one key."""
    key = task.state_key
    skeleton = {
        "user_state": {key: task.answer_template},
        "evidence": {key: [{"app_log_id": "<app_log_id>", "evidence_content": "<short supporting snippet>"}]},
    }
    schedule = _SCHEDULE_NOTE if key.startswith("habits_state:") else ""
    return f"""[Question]
{task.question_text}
[/Question]

{memory_section(blocks)}

[Instructions]
- Answer the question about the user's current state from the memory above only.
- Be as specific as the memory allows: keep exact names, times, days, places and qualifiers.
- Follow the template: fill every field with the most precise value the memory supports.
{schedule}{_EVIDENCE_RULES}
- Reply with JSON only, with no keys beyond the template.

Fill this JSON:
{json.dumps(skeleton, ensure_ascii=False, indent=2)}
"""


def service_prompt(item: ServiceItem, blocks: Sequence[str]) -> str:
    """The Personalized Service prompt for one item."""
    body = task_body(item.scenario, item.task_instruction, item.output_template if item.structured else None)
    answer = item.output_template if item.structured else "<the complete message to send to the user>"
    skeleton = {
        "answer": answer,
        "evidence": [{"app_log_id": "<app_log_id>", "evidence_content": "<short supporting snippet>"}],
    }
    what = (
        "Fill the required output object; write no message or recommendation."
        if item.structured
        else "Write the single message the assistant should send; make it specific, not generic."
    )
    return f"""[Assistant Task]
{body}
[/Assistant Task]

{memory_section(blocks)}

[Instructions]
- Complete the assistant task for this user using what the memory above says about them.
- {what}
- Put the result in `answer` and the memories it relies on in `evidence`.
{_EVIDENCE_RULES}
- Reply with JSON only.

Fill this JSON:
{json.dumps(skeleton, ensure_ascii=False, indent=2)}
"""


def messages_for(prompt: str) -> list[dict[str, str]]:
    """The chat messages of one answer call."""
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": prompt}]


@dataclass(frozen=True)
class Answer:
    """What an answer reply contained."""

    value: Any
    """The predicted state value, message or output object (None when the reply had none)."""
    evidence: tuple[dict[str, str], ...]
    """``[{"app_log_id", "evidence_content"}]`` as cited, deduplicated, empty entries dropped."""

    @property
    def evidence_ids(self) -> list[str]:
        """The cited ids, in order, without blanks and repeats."""
        seen: list[str] = []
        for item in self.evidence:
            if item["app_log_id"] and item["app_log_id"] not in seen:
                seen.append(item["app_log_id"])
        return seen


def _evidence(raw: Any) -> tuple[dict[str, str], ...]:
    out: list[dict[str, str]] = []
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, Mapping):
            log_id = str(item.get("app_log_id") or "").strip()
            content = str(item.get("evidence_content") or "").strip()
        elif isinstance(item, str | int):
            log_id, content = str(item).strip(), ""
        else:
            continue
        record = {"app_log_id": log_id, "evidence_content": content}
        if (log_id or content) and record not in out:
            out.append(record)
    return tuple(out)


def parse_completion(data: Any, key: str) -> Answer:
    """The value and evidence of a State Completion reply (``user_state`` or ``snapshot_state``)."""
    if not isinstance(data, Mapping):
        return Answer(None, ())
    state = data.get("user_state", data.get("snapshot_state"))
    value = state.get(key) if isinstance(state, Mapping) else None
    if value is None and isinstance(state, Mapping) and len(state) == 1:
        value = next(iter(state.values()))  # a model that renamed the key still answered it
    evidence = data.get("evidence")
    if isinstance(evidence, Mapping):
        evidence = evidence.get(key, next(iter(evidence.values()), []) if len(evidence) == 1 else [])
    return Answer(value, _evidence(evidence))


def parse_service(data: Any, item: ServiceItem) -> Answer:
    """The answer (message or output object) and evidence of a Personalized Service reply."""
    if not isinstance(data, Mapping):
        return Answer(None, ())
    value = data.get("answer", data.get("output"))
    if not item.structured and value is not None and not isinstance(value, str):
        value = json.dumps(value, ensure_ascii=False)
    return Answer(value, _evidence(data.get("evidence")))
