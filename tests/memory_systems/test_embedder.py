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
