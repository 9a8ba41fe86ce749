"""From a config value to a ready client: :func:`open_llm` and the embedded server's :func:`local_config`."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from memsuite.memory_systems.errors import ConfigError
from memsuite.memory_systems.llm.client import LLMClient
from memsuite.memory_systems.llm.config import NO_KEY, LLMConfig
from memsuite.memory_systems.llm.pricing import PriceTable

#: Keys of a ``model: local`` mapping that configure the embedded server rather than the client.
SERVER_KEYS = ("n_ctx", "n_threads", "startup_timeout_s")


@contextmanager
def open_llm(
    spec: str | Mapping[str, Any] | LLMConfig,
    *,
    cache_dir: str | Path | None = None,
    prices: PriceTable | None = None,
    environ: Mapping[str, str] | None = None,
) -> Iterator[LLMClient]:
    """A ready :class:`LLMClient` for a config value; starts and stops the embedded server if asked.

    Spec forms:

    - ``"local"``: the embedded SmolLM2-135M server (memory_systems/llm_server.py), started now and
      stopped when the block ends; outputs are labelled ``wiring_only``.
    - a mapping with ``model: local``: the same, with server keys ``n_ctx`` (default 2048, up to
      8192), ``n_threads`` and ``startup_timeout_s``, plus any :class:`LLMConfig` key.
    - a mapping of :class:`LLMConfig` keys (``model``, ``base_url``, ``api_key_env``, ...) for an
      external endpoint, optionally with ``prices``: a YAML/JSON price file laid over the defaults.
    - an :class:`LLMConfig`.

    Args:
        spec: The config value.
        cache_dir: Root of memsuite's caches; responses go to ``<cache_dir>/llm/responses.sqlite``.
            None disables the response cache.
        prices: Price table (a ``prices`` file in the spec is laid over it).
        environ: Where API keys are looked up; default ``os.environ``.

    Yields:
        The client, closed when the block ends.

    Raises:
        ConfigError: A malformed spec (the message names the key).
        ServerStartError: The embedded server did not start.
    """
    cache_path = Path(cache_dir) / "llm" / "responses.sqlite" if cache_dir is not None else None
    if isinstance(spec, LLMConfig):
        client = LLMClient(spec, cache_path=cache_path, prices=prices, environ=environ)
        try:
            yield client
        finally:
            client.close()
        return
    if isinstance(spec, str):
        if spec.strip().lower() != "local":
            raise ConfigError(
                f"LLM spec {spec!r}: use 'local' (embedded server) or a mapping "
                "{model, base_url, api_key_env, ...} for an endpoint"
            )
        spec = {"model": "local"}
    if not isinstance(spec, Mapping):
        raise ConfigError(f"LLM spec must be 'local' or a mapping, got {type(spec).__name__}")
    options = dict(spec)
    price_file = options.pop("prices", None)
    if price_file is not None:
        prices = PriceTable.load(price_file, base=prices)
    if options.get("model") != "local":
        config = LLMConfig.from_dict(options)
        client = LLMClient(config, cache_path=cache_path, prices=prices, environ=environ)
        try:
            yield client
        finally:
            client.close()
        return

    from memsuite.memory_systems.llm_server import serve_local

    server_options = {key: options.pop(key) for key in SERVER_KEYS if key in options}
    del options["model"]
    for fixed in ("base_url", "api_key", "api_key_env"):
        if fixed in options:
            raise ConfigError(
                f"LLM spec with model 'local': {fixed!r} is set by the embedded server; remove it"
            )
    with serve_local(**server_options) as server:
        config = local_config(server.base_url, **options)
        client = LLMClient(
            config,
            cache_path=cache_path,
            prices=prices,
            environ={},
            identity_extra={"server": "llama_cpp.server", "n_ctx": server.n_ctx},
        )
        try:
            yield client
        finally:
            client.close()


def local_config(base_url: str, **overrides: Any) -> LLMConfig:
    """The :class:`LLMConfig` for the embedded SmolLM2 server at ``base_url``.

    Defaults differ from an external endpoint's: no API key, a long timeout (a 2-core CPU serves one
    request at a time, so concurrent workers queue), one retry, and ``wiring_only`` set.

    Args:
        base_url: The server's base URL (``LocalServer.base_url``).
        **overrides: Other :class:`LLMConfig` fields (temperature, max_tokens, json_mode, ...).

    Raises:
        ConfigError: An unknown or invalid key.
    """
    from memsuite.memory_systems.llm_server import LOCAL_MODEL, local_model_revision

    values: dict[str, Any] = {
        "model": LOCAL_MODEL,
        "base_url": base_url,
        "api_key": NO_KEY,
        "api_key_env": None,
        "timeout_s": 300.0,
        "max_retries": 1,
        "deadline_s": 660.0,  # both attempts, and the backoff between them
        "preflight_timeout_s": 60.0,
        "wiring_only": True,
        "revision": local_model_revision(),
    }
    values.update(overrides)
    return LLMConfig.from_dict(values, source="local LLM")
