"""The run config's schema: :class:`RunConfig` and its parts, pydantic models that are frozen and refuse
unknown keys (loading and checking them: :mod:`memsuite.eval.run.config`,
:mod:`memsuite.eval.run.validate`)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from memsuite.eval.budget import fill_depth

_SCHEMA = ConfigDict(frozen=True, extra="forbid", coerce_numbers_to_str=True)


class SystemSpec(BaseModel):
    """One memory system of a run."""

    model_config = _SCHEMA

    name: str
    """Registry name."""
    label: str = ""
    """Name in rows and tables (default: the registry name); distinguishes variants of one system."""
    args: dict[str, Any] = Field(default_factory=dict)
    """Keyword arguments of the system's factory."""

    def __init__(self, name: str | None = None, label: str = "", args: dict[str, Any] | None = None, **data):
        # Positional use, as the dataclass allowed: SystemSpec("bm25").
        if name is not None:
            data["name"] = name
        super().__init__(label=label, args=args or {}, **data)

    @field_validator("args", mode="before")
    @classmethod
    def _args_default(cls, value: Any) -> Any:
        return {} if value is None else value

    @property
    def key(self) -> str:
        return self.label or self.name


class EmbedderSpec(BaseModel):
    """The run's shared sentence embedder. A plain string in YAML is ``path``."""

    model_config = _SCHEMA

    path: str | None = None
    """Folder of a sentence-transformers model; default the packaged all-MiniLM-L6-v2."""
    device: str = "auto"
    """``auto`` (a GPU when torch sees one, else the CPU), ``cpu``, ``cuda`` or ``cuda:N``."""
    batch_size: Annotated[int, Field(strict=True, ge=1)] | None = None
    """Texts per forward pass; default 16 on the CPU, 64 on a GPU."""

    @field_validator("device")
    @classmethod
    def _device_form(cls, value: str) -> str:
        from memsuite.memory_systems.embedder import check_device

        return check_device(value)


class RunConfig(BaseModel):
    """Everything that determines a run's results."""

    model_config = _SCHEMA

    benchmark: str
    """A registered benchmark's name (``memsuite benchmarks`` lists them)."""
    systems: tuple[SystemSpec, ...]
    """Systems to run, in order."""
    name: str = "run"
    """Run name; the default output folder is runs/<name>."""
    k: Annotated[int, Field(strict=True, ge=1)] | None = None
    """Retrieval depth handed to every system; unset: 5, or with ``context_tokens`` enough hits to fill
    the budget (:func:`memsuite.eval.budget.fill_depth`), so a set ``k`` is an upper bound."""
    context_tokens: Annotated[int, Field(strict=True, ge=1)] | None = None
    """The context budget, cl100k tokens: what every system hands the answer model and the judges is
    cut to it by the driver, in the system's rank order (:mod:`memsuite.eval.budget`); a system that
    takes ``context_tokens`` is also given it. Unset: no budget but the answer model's window."""
    answer_llm: Any = None
    """None (retrieval-only), "local" (embedded SmolLM2 server) or an endpoint mapping
    {model, base_url, api_key_env, ...} for the answer LLM."""
    internal_llm: Any = None
    """LLM for systems that need one (same forms as answer_llm; default: answer_llm)."""
    judge_llm: Any = None
    """LLM for LLM judges (same forms as answer_llm). None: an LLM judge falls back to answer_llm,
    with a warning and ``judge_llm_is_answer_llm: true`` in the run header."""
    judges: tuple[str, ...] = ("rule",)
    """Judges applied to every row."""
    seed: int = 0
    """The run's seed: a generated benchmark's data seed when ``benchmark_options.seed`` is not given
    (the two set to different values are refused), and the seed of a protocol's random choices
    (LoCoMo's adversarial option order); :func:`memsuite.eval.registry.seeded_options`."""
    benchmark_options: dict[str, Any] = Field(default_factory=dict)
    """Passed to the benchmark factory (data path, episodes, filler, categories, ...)."""
    embedder: EmbedderSpec = Field(default_factory=EmbedderSpec)
    """The embedder: a model folder, or ``{path, device, batch_size}``."""

    @field_validator("embedder", mode="before")
    @classmethod
    def _embedder_entry(cls, value: Any) -> Any:
        if value is None:
            return {}
        return {"path": value} if isinstance(value, str) else value

    @field_validator("systems", mode="before")
    @classmethod
    def _system_entries(cls, value: Any) -> Any:
        if isinstance(value, str):  # --set systems=bm25,dense
            value = [s.strip() for s in value.split(",") if s.strip()]
        if isinstance(value, list | tuple):
            if not value:
                raise ValueError("empty: name at least one system")
            return [{"name": s} if isinstance(s, str) else s for s in value]
        return value

    @field_validator("judges", mode="before")
    @classmethod
    def _judge_entries(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("benchmark_options", mode="before")
    @classmethod
    def _options_default(cls, value: Any) -> Any:
        return {} if value is None else value

    @field_validator("systems", mode="after")
    @classmethod
    def _unique_labels(cls, value: tuple[SystemSpec, ...]) -> tuple[SystemSpec, ...]:
        # A field check, so the message names the field (``systems: two systems share ...``).
        labels = [s.key for s in value]
        if len(set(labels)) != len(labels):
            raise ValueError(f"two systems share a label ({labels}); give variants a 'label'")
        return value

    @property
    def depth(self) -> int:
        """The ``k`` every system is asked for (:func:`memsuite.eval.budget.fill_depth`)."""
        return fill_depth(self.k, self.context_tokens)

    def to_dict(self) -> dict[str, Any]:
        """Plain data, as run headers store it. An unset ``judge_llm`` is left out, so run folders
        written before the field existed resume."""
        data = self.model_dump()
        if data["judge_llm"] is None:
            del data["judge_llm"]
        # Without a budget the depth is stored as used (5 when unset) and the budget left out: the form
        # of the runs written before the budget existed, so their headers compare equal on resume.
        if data["context_tokens"] is None:
            del data["context_tokens"]
            data["k"] = self.depth
        # The embedder in its shortest form when only its folder is set (None or the folder), the form
        # a config naming only a folder is stored in, so such a run's header compares equal on resume.
        embedder, default = data["embedder"], EmbedderSpec()
        if (embedder["device"], embedder["batch_size"]) == (default.device, default.batch_size):
            data["embedder"] = embedder["path"]
        return data
