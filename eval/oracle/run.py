"""The oracle endpoint in a run: ``internal_llm: oracle`` / ``answer_llm: oracle``.

:func:`open_oracle` starts an :class:`~memsuite.eval.oracle.server.OracleServer` on a loopback port and
yields an :class:`~memsuite.memory_systems.llm.LLMClient` for it (no response cache: replies depend on
the caller's unit, which the cache key does not hold; every call reaches the server and is counted);
the runner binds the built benchmark's gold to it (:func:`bind_gold`) and stops it after the run, as
``local`` starts and stops the embedded model. :func:`check_oracle` refuses a bad oracle setup from
the config alone: a benchmark without gold per session, or a library installed at a version whose
prompts the oracle does not know.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from memsuite.eval.definition import BenchmarkDefinition
from memsuite.eval.hooks import GoldReader
from memsuite.memory_systems.errors import ConfigError

#: The config value naming the oracle endpoint (as ``local`` names the embedded model).
ORACLE = "oracle"
#: Keys of an ``{model: oracle, ...}`` mapping: client defaults only (the endpoint is the oracle's).
CLIENT_KEYS = ("max_tokens", "temperature", "json_mode", "timeout_s", "deadline_s", "preflight_timeout_s")
NOTE = (
    "gold-backed oracle: every reply is built from the benchmark's gold (extraction from the session's"
    " gold facts, answers = gold answers), not by a model; it measures a system's ceiling"
)

_SERVERS: dict[str, Any] = {}


def is_oracle(spec: Any) -> bool:
    """Whether an LLM config value names the oracle (``oracle`` or a mapping with ``model: oracle``)."""
    if isinstance(spec, str):
        return spec.strip().lower() == ORACLE
    return isinstance(spec, Mapping) and spec.get("model") == ORACLE


def check_oracle_spec(spec: Any, *, source: str, path: str) -> None:
    """Refuse keys of an ``{model: oracle}`` mapping that the oracle sets itself or does not take."""
    if isinstance(spec, str):
        return
    for key in spec:
        if key != "model" and key not in CLIENT_KEYS:
            raise ConfigError(
                f"{source}: {path}.{key}: not a key of the oracle LLM (model: oracle takes"
                f" {', '.join(CLIENT_KEYS)})"
            )


def oracle_roles(config: Any) -> list[str]:
    """The LLM roles of a run config the oracle serves (``internal`` also when it defaults to the
    answer LLM; ``judge`` only when named: an LLM judge's prompt is no kind the oracle answers)."""
    roles = [role for role in ("answer", "internal", "judge") if is_oracle(getattr(config, f"{role}_llm"))]
    if "answer" in roles and config.internal_llm is None and "internal" not in roles:
        roles.append("internal")
    return sorted(roles)


def gold_source(found: BenchmarkDefinition, served: Callable[[], Sequence[str]]) -> GoldReader:
    """The gold reader the benchmark's definition names (``BenchmarkDefinition.oracle_gold``).

    Args:
        found: The benchmark's definition.
        served: The names of the benchmarks that carry gold, for the message.

    Raises:
        ConfigError: The benchmark carries no gold per session, so the oracle cannot serve it.
    """
    if found.oracle_gold is None:
        raise ConfigError(
            f"the oracle LLM needs gold facts per session, which benchmark {found.name!r} does not carry"
            f" (served: {', '.join(served())}); use another answer_llm / internal_llm"
        )
    return found.oracle_gold


def check_oracle(
    config: Any, found: BenchmarkDefinition, *, source: str, served: Callable[[], Sequence[str]]
) -> None:
    """Refuse an oracle setup that cannot work, before anything is built: ``found`` is the config's
    benchmark's definition, ``served`` the benchmarks the oracle can serve (:func:`gold_source`).

    Raises:
        ConfigError: The benchmark has no gold per session (naming those that do), or a system's
            library is installed at a version the oracle does not recognise.
    """
    if not oracle_roles(config):
        return
    from memsuite.eval.oracle.kinds import check_kinds
    from memsuite.eval.oracle.prompts import all_kinds, libraries_of
    from memsuite.memory_systems.registry import get_factory

    try:
        gold_source(found, served)
    except ConfigError as exc:
        raise ConfigError(f"{source}: benchmark: {exc}") from None
    libraries = libraries_of(getattr(get_factory(spec.name), "__module__", "") for spec in config.systems)
    try:
        check_kinds(all_kinds(), libraries)
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}") from None


@contextmanager
def open_oracle(spec: Any) -> Iterator[Any]:
    """Start the oracle endpoint, yield a client for it, stop it when the block ends.

    The gold is bound later (:func:`bind_gold`); until then only the preflight ping is served.
    """
    from memsuite.eval.oracle.server import ORACLE_MODEL, OracleServer
    from memsuite.memory_systems.llm import NO_KEY, LLMClient, LLMConfig

    options = {} if isinstance(spec, str) else {k: v for k, v in spec.items() if k != "model"}
    server = OracleServer()
    values = {
        "model": ORACLE_MODEL,
        "base_url": server.base_url,
        "api_key": NO_KEY,
        "api_key_env": None,
        "cache": False,
        "send_account": True,
        "max_retries": 0,
        "revision": "gold",
        "max_tokens": 2000,
        **options,
    }
    client = None
    try:
        config = LLMConfig.from_dict(values, source="oracle LLM")
        client = LLMClient(
            config, environ={}, identity_extra={"oracle": True, "server": "memsuite oracle", "note": NOTE}
        )
        _SERVERS[server.base_url] = server
        yield client
    finally:
        _SERVERS.pop(server.base_url, None)
        if client is not None:
            client.close()
        server.close()


def server_of(client: Any) -> Any:
    """The oracle server behind a client, or None for any other client."""
    config = getattr(client, "config", None)
    return _SERVERS.get(getattr(config, "base_url", None)) if config is not None else None


def bind_gold(
    clients: Mapping[str, Any],
    found: BenchmarkDefinition,
    benchmark: Any,
    served: Callable[[], Sequence[str]] = list,
) -> None:
    """Serve ``benchmark``'s units' gold (read as its definition ``found`` says) from every oracle
    client among ``clients``; ``served`` names the benchmarks the oracle can serve, for the message."""
    servers = [s for s in {id(s): s for s in map(server_of, clients.values()) if s is not None}.values()]
    if not servers:
        return
    reader = gold_source(found, served)
    units = set(benchmark.units())

    def gold(unit_id: str) -> Any:
        return reader(benchmark, unit_id) if unit_id in units else None

    for server in servers:
        server.bind(gold)


def served(clients: Mapping[str, Any]) -> dict[str, Any]:
    """What the oracle answered so far (for the run header): calls per prompt kind, and per account
    (``<system>@<unit>``) its calls and tokens as the server counted them, in all and per caller phase
    with the server's time on them (``phases``: :meth:`~.server.OracleServer.accounts`)."""
    servers = {id(s): s for s in map(server_of, clients.values()) if s is not None}
    kinds: dict[str, int] = {}
    accounts: dict[str, dict[str, Any]] = {}
    for server in servers.values():
        for kind, count in server.kinds_served().items():
            kinds[kind] = kinds.get(kind, 0) + count
        for account, tally in server.accounts().items():
            _merge(accounts.setdefault(account, {}), tally)
    return {"kinds": kinds, "accounts": dict(sorted(accounts.items()))}


def _merge(into: dict[str, Any], tally: Mapping[str, Any]) -> None:
    """Add one server's account tally (numbers, and nested per-phase tallies) into ``into``."""
    for key, value in tally.items():
        if isinstance(value, Mapping):
            _merge(into.setdefault(key, {}), value)
        else:
            into[key] = into.get(key, 0) + value


def mark_oracle(row: Any, roles: list[str]) -> Any:
    """``row`` with ``metadata.oracle_llm`` naming the roles the oracle served in its run (unchanged
    when none): a row answered or built through the oracle says so wherever it is read."""
    if not roles:
        return row
    from dataclasses import replace

    return replace(row, metadata={**row.metadata, "oracle_llm": list(roles)})
