"""The validation cache: a file found valid is not validated again until its bytes change, and a
cache that cannot be used never fails a load."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from toolsurface import scenarios
from toolsurface.scenarios import ScenarioError, _loader, _validated

BASE_FILE = scenarios.bundled_dir() / "etf-compare-main-hooked.json"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "toolsurface" / "scenarios"


@pytest.fixture
def validations(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The source of every document the loader validates, in order."""
    seen: list[str] = []
    validate = _loader.parse

    def counting(document, source="<scenario>"):
        seen.append(source)
        return validate(document, source)

    monkeypatch.setattr(_loader, "parse", counting)
    return seen


def copy_of_base(folder: Path) -> Path:
    path = folder / "scenario.json"
    path.write_bytes(BASE_FILE.read_bytes())
    return path


def test_a_second_load_skips_validation(tmp_path: Path, cache: Path, validations: list[str]):
    path = copy_of_base(tmp_path)
    first = scenarios.load([path])
    second = scenarios.load([path])
    assert validations == [str(path)]
    assert second == first and second[0].digest == first[0].digest and second[0].source == str(path)
    assert [entry.name for entry in cache.rglob("*") if entry.is_file()] == [_validated.key(path.read_bytes())]


def test_an_edited_file_is_validated_again(tmp_path: Path, cache: Path, validations: list[str]):
    path = copy_of_base(tmp_path)
    scenarios.load([path])
    document = orjson.loads(path.read_bytes())
    document["description"] = "The same request, described again."
    path.write_bytes(orjson.dumps(document))
    (loaded,) = scenarios.load([path])
    assert validations == [str(path), str(path)]
    assert loaded.description == "The same request, described again."


def test_a_broken_file_is_refused_every_time(tmp_path: Path, cache: Path, validations: list[str]):
    path = copy_of_base(tmp_path)
    document = orjson.loads(path.read_bytes())
    document["contract"]["admitted"][0]["input_schema"] = {"type": "object", "properties": {"q": {"minLength": -1}}}
    path.write_bytes(orjson.dumps(document))
    for _ in range(2):
        with pytest.raises(ScenarioError) as raised:
            scenarios.load([path])
        (problem,) = raised.value.problems
        assert (
            problem == f"{path}:$.contract.admitted[0].input_schema.properties.q.minLength: not a valid JSON Schema: "
            "-1 is less than the minimum of 0"
        )
        assert "\n" not in problem
    assert validations == [str(path), str(path)]
    assert not cache.exists()


def test_a_valid_entry_for_other_bytes_does_not_pass_a_broken_file(tmp_path: Path, cache: Path):
    """Only the exact bytes found valid are: a broken file whose valid original is cached is refused."""
    path = copy_of_base(tmp_path)
    scenarios.load([path])
    path.write_bytes(path.read_bytes().replace(b'"lane": "main"', b'"lane": "sideways"', 1))
    with pytest.raises(ScenarioError, match=r"\$\.lane: 'sideways' is not one of"):
        scenarios.load([path])


@pytest.mark.parametrize("content", [b"", b"valid", b"\x00" * 64, b"valid scenario\nand more"])
def test_a_corrupt_entry_is_ignored(tmp_path: Path, cache: Path, validations: list[str], content: bytes):
    path = copy_of_base(tmp_path)
    name = _validated.key(path.read_bytes())
    (cache / name[:2]).mkdir(parents=True)
    (cache / name[:2] / name).write_bytes(content)
    scenarios.load([path])
    assert validations == [str(path)]
    # Validated, so the entry is written again, whole.
    scenarios.load([path])
    assert validations == [str(path)]


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs a folder the user cannot write")
def test_an_unwritable_cache_never_fails_a_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, validations: list[str]
):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    monkeypatch.setenv("XDG_CACHE_HOME", str(locked))
    path = copy_of_base(tmp_path)
    assert scenarios.load([path]) == scenarios.load([path])
    assert validations == [str(path), str(path)]


def test_a_cache_that_is_a_file_never_fails_a_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, validations: list[str]
):
    """Where the cache folder should be there is a file: nothing can be read or written there."""
    (tmp_path / "cache").write_bytes(b"not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = copy_of_base(tmp_path)
    assert scenarios.load([path]) == scenarios.load([path])
    assert validations == [str(path), str(path)]


def test_the_key_follows_the_bytes_and_the_salt(monkeypatch: pytest.MonkeyPatch):
    """Another version, schema or loader (the salt) is validated again, as is a file one byte longer."""
    raw = BASE_FILE.read_bytes()
    before = _validated.key(raw)
    assert before == _validated.key(bytes(raw)) != _validated.key(raw + b" ")
    monkeypatch.setattr(_validated, "_salt", lambda: b"another version")
    assert _validated.key(raw) != before


def test_another_jsonschema_is_another_salt(monkeypatch: pytest.MonkeyPatch):
    """jsonschema's metaschemas and format checks decide validity too."""
    before = _validated._salt()
    _validated._salt.cache_clear()
    real = _validated.metadata.version
    monkeypatch.setattr(_validated.metadata, "version", lambda name: "0.0.1" if name == "jsonschema" else real(name))
    try:
        assert _validated._salt() != before
    finally:
        _validated._salt.cache_clear()
