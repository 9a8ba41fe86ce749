"""`memsuite data`: catalogue files fetched from a real HTTP server (tests/file_server.py serving files
the tests write), verified by sha256, cached by name, refused when corrupted, cut or unreachable."""

from __future__ import annotations

import hashlib
import json
import shutil
import socket

import pytest
from file_server import FileServer

from memsuite.eval.cli.main import main
from memsuite.eval.data import cache as data_cache
from memsuite.eval.data.catalogue import DataFile, Dataset, catalogue

WMB_FILES = ("meta.json", "questions.sample.json", "work_career.sample.jsonl")


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def served(tmp_path):
    """A server over a file of 1.5 MB and a set of three small ones (a test may change what it serves)."""
    root = tmp_path / "served"
    (root / "wmb").mkdir(parents=True)
    (root / "locomo.dev.json").write_bytes(b"0123456789abcdef" * 94_688)
    for name in WMB_FILES:
        (root / "wmb" / name).write_text(json.dumps({"file": name}))
    server = FileServer(root)
    yield server
    server.close()


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("MEMSUITE_DATA", str(folder))
    return folder


def _entry(monkeypatch, name: str, files: tuple[DataFile, ...], *, folder: bool = False) -> Dataset:
    entry = Dataset(
        name=name,
        description=f"test entry {name}",
        licence="CC BY-NC 4.0",
        source="https://example.org/test",
        revision="0" * 40,
        files=files,
        hashes="test",
        folder=folder,
    )
    monkeypatch.setitem(catalogue(), name, entry)
    return entry


def _locomo_entry(monkeypatch, server: FileServer, sha256: str, name: str = "locomo_test") -> Dataset:
    size = (server.root / "locomo.dev.json").stat().st_size
    data_file = DataFile("locomo.dev.json", f"{server.url}/locomo.dev.json", sha256, size)
    return _entry(monkeypatch, name, (data_file,))


def _leftovers(folder) -> list[str]:
    """Everything in a cache folder (temporary download files included)."""
    return sorted(p.name for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def test_a_fetch_verifies_and_a_second_fetch_does_nothing(served, cache, monkeypatch, capsys):
    expected = _sha(served.root / "locomo.dev.json")
    _locomo_entry(monkeypatch, served, expected)
    assert main(["data", "fetch", "locomo_test", "--quiet"]) == 0
    path = cache / "locomo_test" / "locomo.dev.json"
    assert _sha(path) == expected and served.requests == 1
    assert "1 fetched and verified" in capsys.readouterr().out
    assert main(["data", "fetch", "locomo_test", "--quiet"]) == 0
    assert served.requests == 1  # nothing downloaded again
    assert "1 already cached and verified" in capsys.readouterr().out
    assert main(["data", "path", "locomo_test"]) == 0
    assert capsys.readouterr().out.strip() == str(path)


def test_list_shows_licence_size_and_whether_cached_and_verified(served, cache, monkeypatch, capsys):
    _locomo_entry(monkeypatch, served, _sha(served.root / "locomo.dev.json"))
    assert main(["data", "list"]) == 0
    line = next(row for row in capsys.readouterr().out.splitlines() if row.startswith("locomo_test "))
    assert "CC BY-NC 4.0" in line and "1.5 MB" in line and "not fetched" in line
    main(["data", "fetch", "locomo_test", "--quiet"])
    capsys.readouterr()
    main(["data", "list"])
    out = capsys.readouterr().out
    assert " verified " in next(row for row in out.splitlines() if row.startswith("locomo_test "))
    # Every real entry is listed with its licence.
    for entry in catalogue().values():
        assert any(row.startswith(f"{entry.name} ") and entry.licence in row for row in out.splitlines())
    # A cached file changed since it was verified is no longer listed as verified.
    path = cache / "locomo_test" / "locomo.dev.json"
    path.write_bytes(path.read_bytes() + b" ")
    main(["data", "list"])
    row = next(r for r in capsys.readouterr().out.splitlines() if r.startswith("locomo_test "))
    assert " cached " in row and "verified" not in row.split("test entry")[0]


def test_a_file_that_fails_its_hash_is_refused_and_removed(served, cache, monkeypatch, capsys):
    actual = _sha(served.root / "locomo.dev.json")
    wrong = hashlib.sha256(b"not the release").hexdigest()
    _locomo_entry(monkeypatch, served, wrong)
    assert main(["data", "fetch", "locomo_test", "--quiet", "--retries", "0"]) == 1
    err = capsys.readouterr().err
    assert f"expected sha256: {wrong}" in err and f"actual sha256:   {actual}" in err
    assert _leftovers(cache / "locomo_test") == []  # neither under the final name nor a temporary file


def test_verify_deletes_a_cached_file_changed_after_its_fetch(served, cache, monkeypatch, capsys):
    expected = _sha(served.root / "locomo.dev.json")
    _locomo_entry(monkeypatch, served, expected)
    main(["data", "fetch", "locomo_test", "--quiet"])
    assert main(["data", "verify", "locomo_test"]) == 0
    path = cache / "locomo_test" / "locomo.dev.json"
    path.write_text("[]", encoding="utf-8")
    capsys.readouterr()
    assert main(["data", "verify", "locomo_test"]) == 1
    err = capsys.readouterr().err
    assert "sha256 mismatch, deleted" in err and expected in err and _sha_text("[]") in err
    assert not path.exists()
    assert main(["data", "fetch", "locomo_test", "--quiet"]) == 0 and _sha(path) == expected


def _sha_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_a_cut_download_leaves_nothing_and_a_retry_succeeds(served, cache, monkeypatch, capsys):
    expected = _sha(served.root / "locomo.dev.json")
    _locomo_entry(monkeypatch, served, expected)
    served.cut = 1
    assert main(["data", "fetch", "locomo_test", "--quiet", "--retries", "0"]) == 1
    assert "nothing kept" in capsys.readouterr().err
    assert _leftovers(cache / "locomo_test") == []
    assert main(["data", "fetch", "locomo_test", "--quiet", "--retries", "0"]) == 0  # the fetch run again
    assert _sha(cache / "locomo_test" / "locomo.dev.json") == expected
    # Within one fetch: the download is retried after a cut.
    main(["data", "remove", "locomo_test"])
    served.cut, served.requests = 1, 0
    assert main(["data", "fetch", "locomo_test", "--quiet", "--retries", "1"]) == 0
    assert served.requests == 2 and _sha(cache / "locomo_test" / "locomo.dev.json") == expected


def test_no_network_exits_2_with_the_url_the_hash_and_where_to_place_the_file(cache, monkeypatch, capsys):
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/locomo10.json"
    digest = catalogue()["locomo"].files[0].sha256
    _entry(monkeypatch, "offline_test", (DataFile("locomo10.json", url, digest),))
    assert main(["data", "fetch", "offline_test", "--quiet", "--retries", "0"]) == 2
    err = capsys.readouterr().err
    assert url in err and f"expected sha256: {digest}" in err
    assert f"place the file at: {cache / 'offline_test' / 'locomo10.json'}" in err
    assert "memsuite data verify offline_test" in err


def test_a_file_placed_by_hand_is_verified(served, cache, monkeypatch, capsys):
    expected = _sha(served.root / "locomo.dev.json")
    _locomo_entry(monkeypatch, served, expected)
    target = cache / "locomo_test" / "locomo.dev.json"
    target.parent.mkdir(parents=True)
    shutil.copy(served.root / "locomo.dev.json", target)
    assert main(["data", "verify", "locomo_test"]) == 0
    assert main(["data", "fetch", "locomo_test", "--quiet"]) == 0 and served.requests == 0


def test_a_file_set_without_known_hashes_records_them_once_and_checks_them_after(
    served, cache, monkeypatch, capsys
):
    files = tuple(DataFile(f"datasets/{name}", f"{served.url}/wmb/{name}") for name in WMB_FILES)
    _entry(monkeypatch, "wmb_test", files, folder=True)
    assert main(["data", "fetch", "wmb_test", "--quiet"]) == 0
    assert "3 fetched, hash recorded in the lock file" in capsys.readouterr().out
    lock = json.loads((cache / "lock.json").read_text())
    assert lock["wmb_test"] == {f"datasets/{name}": _sha(served.root / "wmb" / name) for name in WMB_FILES}
    assert main(["data", "path", "wmb_test"]) == 0
    assert capsys.readouterr().out.strip() == str(cache / "wmb_test")
    # The release changes upstream: a new fetch is checked against the recorded hash and refused.
    main(["data", "remove", "wmb_test"])
    lock_again = {"wmb_test": lock["wmb_test"]}
    (cache / "lock.json").write_text(json.dumps(lock_again))
    (served.root / "wmb" / "meta.json").write_text("{}")
    capsys.readouterr()
    assert main(["data", "fetch", "wmb_test", "--quiet", "--retries", "0"]) == 1
    err = capsys.readouterr().err
    assert lock["wmb_test"]["datasets/meta.json"] in err and _sha_text("{}") in err
    assert not (cache / "wmb_test" / "datasets" / "meta.json").exists()


def test_remove_and_unknown_names(served, cache, monkeypatch, capsys):
    _locomo_entry(monkeypatch, served, _sha(served.root / "locomo.dev.json"))
    main(["data", "fetch", "locomo_test", "--quiet"])
    assert main(["data", "remove", "locomo_test"]) == 0
    assert not (cache / "locomo_test").exists()
    assert data_cache.status(catalogue()["locomo_test"]) == "not fetched"
    capsys.readouterr()
    assert main(["data", "fetch", "no_such_data"]) == 2
    assert "no data named 'no_such_data'" in capsys.readouterr().err


def test_every_catalogue_entry_is_pinned():
    """Every URL names its entry's revision; every known hash is a sha256; names are unique."""
    for entry in catalogue().values():
        assert entry.licence and entry.description and len(entry.revision) == 40
        for f in entry.files:
            assert entry.revision in f.url and f.url.startswith("https://")
            assert f.sha256 is None or (len(f.sha256) == 64 and int(f.sha256, 16) >= 0)
        assert len({f.path for f in entry.files}) == len(entry.files)
    locomo = catalogue()["locomo"].files[0]
    assert locomo.sha256 == "79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4"
    oracle = catalogue()["longmemeval_oracle"].files[0]
    assert oracle.sha256 == "821a2034d219ab45846873dd14c14f12cfe7776e73527a483f9dac095d38620c"
