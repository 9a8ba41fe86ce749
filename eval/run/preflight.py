"""Before any unit: one tiny request to every configured LLM endpoint, so a dead or hanging endpoint
stops a run in seconds, naming the endpoint, instead of stalling it for minutes per question."""

from __future__ import annotations

from typing import Any

from memsuite.memory_systems.errors import EndpointError


def check_endpoints(clients: dict[str, Any]) -> None:
    """Send one one-token request to each distinct client of ``clients`` (role -> client or None).

    Each waits at most its config's ``preflight_timeout_s`` (0 skips the check for that endpoint).

    Raises:
        EndpointError: The first endpoint that failed: its role, base URL, model and the error.
    """
    checked = set()
    for role, client in clients.items():
        if client is None or id(client) in checked:
            continue  # a role sharing a client checked under an earlier role (the one configured)
        checked.add(id(client))
        timeout = float(client.config.preflight_timeout_s)
        if not timeout:
            continue
        failure = client.ping(timeout)
        if failure is not None:
            raise EndpointError(
                f"{role}_llm at {client.config.base_url} (model {client.config.model}) failed a"
                f" one-token request before any unit started: {failure.kind}: {failure.message[:300]}"
                f" (timeout {timeout:g} s; check the endpoint, or raise {role}_llm.preflight_timeout_s)"
            )
