"""Which data a run reads: a catalogue name or a path, the development copy under MEMSUITE_SHARED_DATA,
else the fetched catalogue entry; an unfetched entry refused before any run folder; run headers name
the data by catalogue name, revision and sha256."""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest
import yaml
from file_server import FileServer

from memsuite.eval.cli.main import main
from memsuite.eval.data.catalogue import DataFile, Dataset, catalogue
from memsuite.eval.data.shared import data_path, shared_data_file
from memsuite.eval.registry import definition
from memsuite.eval.run.provenance import data_provenance
from memsuite.memory_systems.errors import ConfigError

LOCOMO_DEV = "locomo/locomo.dev.json"


def _config(tmp_path, data=None) -> str:
    options = {"conversations": ["conv-30"], "max_questions": 3}
    if data is not None:
        options["data"] = data
    config = {"benchmark": "locomo", "name": "t", "systems": ["bm25"], "k": 5, "judges": [],
              "benchmark_options": options}  # fmt: skip
    path = tmp_path / "locomo.yaml"
    path.write_text(yaml.safe_dump(config))
    return str(path)


def test_a_config_naming_an_unfetched_entry_exits_2_before_any_run_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MEMSUITE_DATA", str(tmp_path / "cache"))
    out = tmp_path / "runs" / "t"
    assert main(["run", _config(tmp_path, "locomo"), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "benchmark_options.data: data 'locomo' is not fetched" in err
    assert "memsuite data fetch locomo" in err
    assert not out.exists() and not (tmp_path / "runs").exists()


def test_without_the_shared_folder_the_default_is_the_catalogue_entry(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("MEMSUITE_SHARED_DATA", raising=False)
    monkeypatch.setenv("MEMSUITE_DATA", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)  # nothing beside it either
    out = tmp_path / "runs" / "t"
    assert main(["run", _config(tmp_path), "--out", str(out), "--quiet"]) == 2
    assert "memsuite data fetch locomo" in capsys.readouterr().err and not out.exists()


@pytest.mark.shared_data("locomo")
def test_a_fetched_entry_runs_and_the_header_names_it(shared_data, tmp_path, monkeypatch):
    """`data: locomo` once fetched (here the catalogue entry is pointed at a local server serving the
    dev file): the run reads the cached file, and its header records name, revision and sha256 instead
    of a machine's path."""
    digest = hashlib.sha256((shared_data / LOCOMO_DEV).read_bytes()).hexdigest()
    root = tmp_path / "served"
    root.mkdir()
    shutil.copy(shared_data / LOCOMO_DEV, root / "locomo10.json")
    server = FileServer(root)
    try:
        real = catalogue()["locomo"]
        served = (DataFile("locomo10.json", f"{server.url}/locomo10.json", digest),)
        entry = Dataset(
            real.name, real.description, real.licence, real.source, real.revision, served, real.hashes
        )
        monkeypatch.setitem(catalogue(), "locomo", entry)
        cache = tmp_path / "cache"
        monkeypatch.setenv("MEMSUITE_DATA", str(cache))
        assert main(["data", "fetch", "locomo", "--quiet"]) == 0
    finally:
        server.close()
    out = tmp_path / "runs" / "t"
    assert main(["run", _config(tmp_path, "locomo"), "--out", str(out), "--quiet"]) == 0
    header = json.loads((out / "run.json").read_text())
    assert header["config"]["benchmark_options"]["data"] == "locomo"
    assert header["data"] == {
        "catalogue": "locomo",
        "revision": real.revision,
        "source": real.source,
        "file": "locomo10.json",
        "sha256": digest,
    }
    summary = json.loads((out / "summary.json").read_text())
    assert next(iter(summary.values()))["scores"]["source"]["path"] == str(cache / "locomo" / "locomo10.json")
    # The same file named by its path is recognised by its hash.
    assert (
        data_provenance(definition("locomo").data, {"data": str(cache / "locomo" / "locomo10.json")})[
            "catalogue"
        ]
        == "locomo"
    )


@pytest.mark.shared_data("locomo")
def test_headers_of_the_dev_copy_and_of_a_users_file(shared_data, tmp_path, monkeypatch):
    monkeypatch.setenv("MEMSUITE_SHARED_DATA", str(shared_data))
    digest = hashlib.sha256((shared_data / LOCOMO_DEV).read_bytes()).hexdigest()
    record = data_provenance(definition("locomo").data, {})
    assert record == {"shared_dev": LOCOMO_DEV, "variable": "MEMSUITE_SHARED_DATA", "sha256": digest}
    mine = tmp_path / "mine.json"
    # Not "[]": a released file may be exactly that (a LifeBench user's empty contact list), and a file
    # with a catalogue file's hash is recorded as that file.
    mine.write_text('[{"sample_id": "mine"}]')
    assert data_provenance(definition("locomo").data, {"data": str(mine)}) == {
        "path": str(mine),
        "sha256": hashlib.sha256(mine.read_bytes()).hexdigest(),
    }
    assert (
        data_provenance(definition("meme").data, {}) is None
    )  # generated data: the benchmark's own source says so


@pytest.mark.shared_data("locomo")
def test_names_and_paths(shared_data, tmp_path, monkeypatch):
    monkeypatch.setenv("MEMSUITE_DATA", str(tmp_path / "cache"))
    assert data_path(str(shared_data / LOCOMO_DEV), benchmark="locomo") == shared_data / LOCOMO_DEV
    with pytest.raises(ConfigError, match="memsuite data fetch meme_episodes"):
        data_path("meme_episodes/meme_filler32k.json", benchmark="meme")
    with pytest.raises(ConfigError, match=r"has no file 'nope\.json'"):
        data_path("meme_episodes/nope.json", benchmark="meme")
    # A file that happens to be named like an entry in the working directory is a path.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "locomo").write_text("[]")
    assert data_path("locomo", benchmark="locomo").name == "locomo"
    # The development copy is read only where MEMSUITE_SHARED_DATA names it.
    monkeypatch.setenv("MEMSUITE_SHARED_DATA", str(shared_data))
    assert (
        shared_data_file(LOCOMO_DEV, benchmark="locomo", release="x", default="locomo")
        == shared_data / LOCOMO_DEV
    )
    monkeypatch.delenv("MEMSUITE_SHARED_DATA")
    with pytest.raises(ConfigError, match="memsuite data fetch locomo"):
        shared_data_file(LOCOMO_DEV, benchmark="locomo", release="x", default="locomo")


def test_nothing_in_the_package_looks_beside_the_checkout():
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    for folder in ("memsuite", "memory_systems", "baselines", "eval", "configs"):
        for path in (root / folder).rglob("*"):
            if path.suffix in (".py", ".yaml") and "__pycache__" not in path.parts:
                assert "../shared" not in path.read_text(encoding="utf-8"), path
