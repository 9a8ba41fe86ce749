"""Ablations: one base config, one swept key, one run per value, one combined report.

An ablation file (``configs/ablations/*.yaml``)::

    name: meme_topk                       # runs/<name>/<variant>/ and the report in runs/<name>/report/
    base: ../meme_quick.yaml              # a run config; a relative path is taken from this file's folder
    set: {benchmark_options.episodes: 3}  # optional fixed overrides of the base (dotted keys)
    sweep:
      key: k                              # the dotted config key that varies
      values: [1, 3, 5, 10]
      labels: [k1, k3, k5, k10]           # optional variant names (default "<last key part>-<value>")

Each variant is the base config plus the fixed overrides, then ``--set`` overrides from the command
line, then the swept value (which always wins). Every variant is an ordinary run of
:func:`memsuite.eval.run.runner.run` in its own folder, so an interrupted ablation resumes variant by
variant and unit by unit; this module adds no loop over systems or units of its own. Paths inside the base
config (data folders) keep their meaning: relative to the directory memsuite is started in.
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memsuite.eval.analysis.compare import base_variant, sweep_comparisons
from memsuite.eval.report.document import build_report, write_report
from memsuite.eval.report.model import Sweep
from memsuite.eval.run.config import RunConfig, config_from_dict, parse_override, read_yaml
from memsuite.eval.run.config_errors import schema_error
from memsuite.eval.run.folder import load_runs
from memsuite.eval.run.stopping import raise_if_interrupted
from memsuite.memory_systems.errors import ConfigError
from memsuite.memory_systems.llm import PriceTable

logger = logging.getLogger(__name__)

_SCHEMA = ConfigDict(frozen=True, extra="forbid", coerce_numbers_to_str=True)


class _SweepFile(BaseModel):
    model_config = _SCHEMA

    key: str = Field(min_length=1)
    values: list[Any] = Field(min_length=1)
    labels: list[str] | None = None


class _AblationFile(BaseModel):
    """The schema of an ablation file (see the module docstring)."""

    model_config = _SCHEMA

    name: str | None = None
    description: str | None = None
    base: str
    set: dict[str, Any] | None = None
    sweep: _SweepFile


@dataclass(frozen=True)
class Ablation:
    """A validated ablation file."""

    name: str
    """Ablation name: the folder under the runs root."""
    base: Path
    """The base run config (resolved against the ablation file's folder)."""
    key: str
    """The swept config key, dotted (``k``, ``benchmark_options.filler``, ``answer_llm``)."""
    values: tuple[Any, ...]
    """The swept values, in report order."""
    labels: tuple[str, ...]
    """One variant name per value: its run folder and its name in tables."""
    overrides: Mapping[str, Any]
    """Fixed overrides of the base, dotted key -> value (the file's ``set``)."""
    source: Path
    """The ablation file."""


@dataclass(frozen=True)
class AblationResult:
    """What :func:`run_ablation` produced."""

    runs: tuple[Path, ...]
    """One run folder per variant, in sweep order."""
    report_dir: Path
    """Folder of the combined report."""
    files: tuple[Path, ...]
    """Report files written (``report.md`` first)."""
    incomplete: tuple[str, ...]
    """Labels of variants whose run had failed units."""


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-._" else "_" for c in text).strip("_.") or "variant"


def default_label(key: str, value: Any, index: int) -> str:
    """A variant's default name: ``<last key part>-<value>`` (an LLM mapping by its model), file-safe."""
    if isinstance(value, Mapping):
        value = value.get("model") or f"variant{index}"
    return _slug(f"{key.split('.')[-1]}-{'none' if value is None else value}")


def load_ablation(path: Path | str) -> Ablation:
    """Read and validate an ablation file.

    Args:
        path: The YAML file.

    Returns:
        The ablation.

    Raises:
        ConfigError: Unreadable file, unknown or missing keys, no values, a value named twice, labels
            that are not unique or not one per value; the message names the file and the field.
    """
    path = Path(path)
    data = read_yaml(path, "ablation file")
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: an ablation file is a mapping, got {type(data).__name__}")
    try:
        parsed = _AblationFile.model_validate(data)
    except ValidationError as exc:
        raise schema_error(exc.errors(), _AblationFile, source=str(path)) from None
    swept, values = parsed.sweep.key, parsed.sweep.values
    repeated = _repeated(values)
    if repeated is not None:
        # Two variants of one value are one measurement twice, and their curves would double back.
        raise ConfigError(f"{path}: sweep.values: {values[repeated]!r} is named twice; name each value once")
    labels = parsed.sweep.labels or [default_label(swept, v, i) for i, v in enumerate(values)]
    if len(labels) != len(values):
        raise ConfigError(f"{path}: sweep.labels needs one label per value ({len(values)})")
    labels = [str(label) for label in labels]
    if len(set(labels)) != len(labels) or any(_slug(label) != label for label in labels):
        raise ConfigError(
            f"{path}: sweep.labels must be unique folder names (letters, digits, - . _), got {labels}"
        )
    overrides = parsed.set or {}
    base = Path(parsed.base)
    return Ablation(
        name=parsed.name or path.stem,
        base=base if base.is_absolute() else path.parent / base,
        key=swept,
        values=tuple(values),
        labels=tuple(labels),
        overrides=dict(overrides),
        source=path,
    )


def _repeated(values: Sequence[Any]) -> int | None:
    """The index of the first value named a second time (mappings, such as LLM endpoints, compared by
    content), None when each is named once."""
    seen: set[str] = set()
    for index, value in enumerate(values):
        key = json.dumps(value, sort_keys=True, default=str)
        if key in seen:
            return index
        seen.add(key)
    return None


def _get(data: Any, keys: Sequence[str]) -> Any:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def _put(data: dict[str, Any], keys: Sequence[str], value: Any) -> None:
    target = data
    for key in keys[:-1]:
        if not isinstance(target.get(key), dict):
            target[key] = {}
        target = target[key]
    target[keys[-1]] = value


def variant_configs(ablation: Ablation, overrides: Sequence[str] = ()) -> list[tuple[str, RunConfig]]:
    """The run config of every variant: base < the file's ``set`` < ``overrides`` < the swept value.

    Args:
        ablation: The ablation.
        overrides: ``key=value`` strings, as ``memsuite run --set`` takes them.

    Returns:
        (label, config) per variant, in sweep order; each config is named ``<ablation>-<label>``.

    Raises:
        ConfigError: The base config is missing or invalid, or a variant is (the message names the
            ablation file and the variant).
    """
    base = read_yaml(ablation.base, f"{ablation.source}: base config")
    if not isinstance(base, dict):
        raise ConfigError(f"{ablation.base}: a config is a mapping")
    fixed = [(key.split("."), value) for key, value in ablation.overrides.items()]
    fixed += [parse_override(text) for text in overrides]
    variants = []
    for label, value in zip(ablation.labels, ablation.values, strict=True):
        data = copy.deepcopy(base)
        for keys, fixed_value in fixed:
            _put(data, keys, copy.deepcopy(fixed_value))
        _put(data, ablation.key.split("."), copy.deepcopy(value))
        data["name"] = f"{ablation.name}-{label}"
        source = f"{ablation.source} (variant {label}, base {ablation.base})"
        variants.append((label, config_from_dict(data, source=source)))
    return variants


def run_ablation(
    ablation: Ablation,
    *,
    out_dir: Path | None = None,
    report_dir: Path | None = None,
    overrides: Sequence[str] = (),
    cache_dir: Path | None = None,
    restart: bool = False,
    allow_config_change: bool = False,
    allow_code_change: bool = False,
    show_progress: bool = True,
    workers: int = 1,
    executor: str = "threads",
    ray_address: str | None = None,
    prices: PriceTable | None = None,
    plots: bool = True,
    report_only: bool = False,
) -> AblationResult:
    """Run every variant (resuming finished units) and write the combined report.

    Args:
        ablation: The ablation.
        out_dir: Root of the variants' run folders; default ``runs/<name>``.
        report_dir: Folder of the combined report; default ``<out_dir>/report``.
        overrides: ``key=value`` overrides for every variant (the swept key still takes its values).
        cache_dir: Embedding and LLM cache root, or None.
        restart: Start every variant over.
        allow_config_change: Resume variants whose folders were made with a different resolved config
            (each folder's header records the changed keys).
        allow_code_change: Resume variants whose folders hold rows made by other code (memsuite's
            own, or a system's version or source); each folder's header records the changes.
        show_progress: Progress bars.
        workers: Units run concurrently within a variant.
        executor: "threads" (this process) or "ray" (Ray tasks; needs the ``ray`` extra).
        ray_address: Address of an existing Ray cluster; default: start a local one.
        prices: Price table for the report's costs.
        plots: Draw the report's PNG plots.
        report_only: Do not run anything; report on the variants' existing folders.

    Returns:
        The run folders, the report folder and its files, and the variants with failed units.

    Raises:
        ConfigError: An unknown executor, an invalid variant, a folder holding a run of another config (unless
            ``allow_config_change``) or rows of other code (unless ``allow_code_change``), or (with
            ``report_only``) a variant that has not run.
    """
    from memsuite.eval.run.runner import run  # the runner loads models and systems; a report needs neither

    out_dir = Path(out_dir) if out_dir is not None else Path("runs") / ablation.name
    report_dir = Path(report_dir) if report_dir is not None else out_dir / "report"
    folders, incomplete = [], []
    for label, config in variant_configs(ablation, overrides):
        folder = out_dir / label
        folders.append(folder)
        if report_only:
            continue
        logger.info("ablation %s: variant %s -> %s", ablation.name, label, folder)
        header = run(
            config,
            out_dir=folder,
            cache_dir=cache_dir,
            restart=restart,
            allow_config_change=allow_config_change,
            allow_code_change=allow_code_change,
            show_progress=show_progress,
            workers=workers,
            executor=executor,
            ray_address=ray_address,
        ).header
        raise_if_interrupted(header)  # a signal stops the whole ablation, not only this variant
        if header.get("status") != "complete":
            incomplete.append(label)
    runs = load_runs(folders, list(ablation.labels))
    report = build_report(
        runs,
        prices=prices,
        sweep=Sweep(ablation.key, ablation.values, ablation.labels),
        title=f"ablation {ablation.name}: {ablation.key} over {', '.join(ablation.labels)}",
        command=" ".join(["memsuite ablate", str(ablation.source), *(f"--set {o}" for o in overrides)]),
    )
    base_value = _get(read_yaml(ablation.base, f"{ablation.source}: base config"), ablation.key.split("."))
    reference = base_variant(ablation.values, base_value)
    found = report.definitions.get(report.runs[reference or 0].benchmark)
    spec = found.outcomes if found is not None else None
    report.sections.append(
        sweep_comparisons(report.runs, reference or 0, ablation.key, is_base=reference is not None, spec=spec)
    )
    files = write_report(report, report_dir, plots=plots)
    return AblationResult(tuple(folders), report_dir, tuple(files), tuple(incomplete))
