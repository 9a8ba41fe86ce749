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
