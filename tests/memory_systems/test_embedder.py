"""The embedding cache: hits make no model calls, persist across instances, survive a torn append."""

from __future__ import annotations

import numpy as np

from memsuite.memory_systems.embedder import Embedder, EmbeddingCache, text_key


def test_cache_hits_skip_the_model_and_persist(tmp_path):
    first = Embedder(cache_dir=tmp_path)
    vectors = first.encode(["alpha beta", "gamma delta"])
    assert first.usage.embedded_texts == 2
    again = first.encode(["gamma delta", "alpha beta"])
    assert first.usage.embedded_texts == 2
    assert np.array_equal(again, vectors[::-1])
    second = Embedder(cache_dir=tmp_path)  # a new process would see the same files
    assert np.array_equal(second.encode(["alpha beta"]), vectors[:1])
    assert second.usage.embedded_texts == 0
    second.encode(["new text"])
    assert second.usage.embedded_texts == 1


def test_torn_append_is_ignored_and_repaired(tmp_path):
    cache = EmbeddingCache(tmp_path, dim=4)
    cache.put_many([text_key("a")], np.ones((1, 4), dtype=np.float32))
    with open(tmp_path / "vectors.f32", "ab") as fh:  # a crash after vectors, before keys
        fh.write(np.full(4, 9, dtype=np.float32).tobytes())
    reopened = EmbeddingCache(tmp_path, dim=4)
    assert len(reopened) == 1
    reopened.put_many([text_key("b")], np.full((1, 4), 2, dtype=np.float32))
    final = EmbeddingCache(tmp_path, dim=4)
    assert np.array_equal(final.get(text_key("b")), np.full(4, 2, dtype=np.float32))
    assert np.array_equal(final.get(text_key("a")), np.ones(4, dtype=np.float32))


def test_dimension_read_from_the_model_files_matches_the_model(embedder, tmp_path):
    import json
    import shutil

    from memsuite.memory_systems.embedder import _dim_from_files, default_model_path

    folder = default_model_path()
    assert _dim_from_files(folder) == embedder.model.get_embedding_dimension() == 384
    # A folder whose modules could change the width (a Dense layer) is not guessed: the model decides.
    copy = tmp_path / "model"
    shutil.copytree(folder, copy, ignore=shutil.ignore_patterns("*.safetensors"))
    modules = json.loads((copy / "modules.json").read_text())
    modules.append({"idx": 3, "name": "3", "path": "3_Dense", "type": "sentence_transformers.models.Dense"})
    (copy / "modules.json").write_text(json.dumps(modules))
    assert _dim_from_files(copy) is None


def test_device_forms_are_checked_before_any_model_loads():
    import pytest

    from memsuite.memory_systems.embedder import check_device
    from memsuite.memory_systems.errors import ConfigError

    for device in ("auto", "cpu", "cuda", "cuda:1"):
        assert check_device(device) == device
    for device in ("gpu", "cuda:", "CUDA", "cuda:x", ""):
        with pytest.raises(ConfigError, match="use auto, cpu, cuda or cuda:N"):
            Embedder(device=device)
    with pytest.raises(ConfigError, match="batch_size"):
        Embedder(batch_size=0)


def test_auto_resolves_to_the_gpu_torch_sees_and_an_absent_gpu_is_an_error(monkeypatch):
    import pytest
    import torch

    from memsuite.memory_systems.embedder import resolve_device
    from memsuite.memory_systems.errors import ConfigError

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert resolve_device("auto") == "cpu"
    with pytest.raises(ConfigError, match="no CUDA device"):
        resolve_device("cuda")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    assert resolve_device("auto") == "cuda"
    assert resolve_device("cuda:1") == "cuda:1"
    with pytest.raises(ConfigError, match="sees 2 CUDA device"):
        resolve_device("cuda:2")


def test_the_model_is_loaded_on_the_resolved_device(monkeypatch, tmp_path):
    """The GPU path on a CPU machine: with torch reporting a GPU, the model is asked for on cuda, and the
    vectors it returns reach the cache and the caller as float32 numpy rows."""
    import torch

    from memsuite.memory_systems import embedder as module

    loads, batch_sizes = [], []

    class FakeModel:
        def encode(self, texts, **kwargs):
            batch_sizes.append(kwargs["batch_size"])
            return np.ones((len(texts), 384), dtype=np.float32) / np.sqrt(384)

    def fake_load(path, device="cpu"):
        loads.append(device)
        return FakeModel()

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setattr(module, "_load_model", fake_load)
    embedder = Embedder(cache_dir=tmp_path)
    assert "device_used" not in embedder.identity()  # auto is resolved at the first encode, not before
    vectors = embedder.encode(["a", "b", "a"])
    assert loads and set(loads) == {"cuda"}
    assert batch_sizes == [module.GPU_BATCH_SIZE]  # the GPU's default batch size
    assert vectors.dtype == np.float32 and vectors.shape == (3, 384)
    assert embedder.identity()["device"] == "auto" and embedder.identity()["device_used"] == "cuda"
    assert embedder.account().identity()["device_used"] == "cuda"  # views share the resolution


def test_identity_records_model_path_batch_size_and_device():
    from memsuite.memory_systems.embedder import default_model_path

    identity = Embedder(default_model_path(), batch_size=128, device="cpu").identity()
    assert identity == {
        "model": "model",
        "model_path": str(default_model_path()),
        "dim": 384,
        "batch_size": 128,
        "revision": Embedder(default_model_path()).revision(),
        "device": "cpu",
        "device_used": "cpu",
        "batch_size_used": 128,
    }
    assert Embedder().identity()["model_path"] is None


def test_the_default_batch_size_follows_the_device_and_an_explicit_one_wins():
    from memsuite.memory_systems.embedder import CPU_BATCH_SIZE, GPU_BATCH_SIZE

    cpu = Embedder(device="cpu")
    assert cpu.batch_size is None and cpu.batch_size_used == CPU_BATCH_SIZE
    assert cpu.identity()["batch_size"] is None and cpu.identity()["batch_size_used"] == CPU_BATCH_SIZE
    assert Embedder(device="cpu", batch_size=64).batch_size_used == 64
    assert Embedder(device="auto").identity().get("batch_size_used") is None  # the device is not known yet
    assert CPU_BATCH_SIZE < GPU_BATCH_SIZE


def test_the_disk_cache_is_keyed_by_the_model_revision_not_only_its_name(tmp_path):
    import shutil

    from memsuite.memory_systems.embedder import default_model_path

    model = tmp_path / "models" / "mini"
    shutil.copytree(default_model_path(), model)
    first = Embedder(model, cache_dir=tmp_path / "cache")
    first.encode(["a sentence about caches"])
    before = first.identity()
    # Another revision under the same folder name (here: its pooling config edited).
    config = next(model.rglob("config.json"))
    config.write_text(config.read_text() + "\n")
    second = Embedder(model, cache_dir=tmp_path / "cache")
    assert second.identity()["model"] == before["model"]
    assert second.identity()["revision"] != before["revision"]
    second.encode(["a sentence about caches"])
    assert second.usage.embedded_texts == 1  # computed by this revision, not served from the other's cache
    again = Embedder(model, cache_dir=tmp_path / "cache")
    again.encode(["a sentence about caches"])
    assert again.usage.embedded_texts == 0  # the same revision reuses its cache
