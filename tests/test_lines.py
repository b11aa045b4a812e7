"""No line of the project's Python or TOML is over 120 characters.

`ruff check` (E501) lets some long lines through: one whose overflow is a `# type:` or `# noqa`
pragma, one whose overflow is a word it cannot break (a long id in a string), and every line of a
TOML file. This test counts every line of them all, as a reader's editor shows them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: `line-length` in pyproject.toml's `[tool.ruff]`.
LIMIT = 120
SUFFIXES = (".py", ".toml")
#: Folders of the root that hold copies or links, never source: build/ may hold a package's copy,
#: and .typecheck/toolsurface links back to the root.
NOT_SOURCE = frozenset({"build", ".git", ".typecheck"})


def holds_source(folder: Path) -> bool:
    """Whether `folder`, in the root, is tests/ or one of the packages: caches, virtual
    environments and docs/ are neither."""
    if folder.name in NOT_SOURCE or folder.is_symlink() or not folder.is_dir():
        return False
    return folder.name == "tests" or (folder / "__init__.py").is_file()


#: Host code as others write it, and its labels: data the scan is measured on, in its authors' style.
CORPORA = Path(__file__).parent / "corpora"


def sources(root: Path) -> Iterator[Path]:
    """The .py and .toml files of the project in `root`: its own (pyproject.toml, the root
    package's modules), and every one under its packages and tests/ but the scan's corpora."""
    for path in sorted(root.iterdir()):
        if path.is_file() and path.suffix in SUFFIXES:
            yield path
        elif holds_source(path):
            yield from sorted(
                found
                for found in path.rglob("*")
                if found.suffix in SUFFIXES and found.is_file() and not found.is_relative_to(CORPORA)
            )


def long_lines(root: Path) -> list[str]:
    """`file:line: N characters` for each line of `sources(root)` over the limit."""
    found = []
    for path in sources(root):
        # Universal newlines, split on "\n" alone: line numbers are those an editor and Python give,
        # which a form feed or a U+2028 inside a string does not move.
        for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
            if len(line) > LIMIT:
                found.append(f"{path.relative_to(root)}:{number}: {len(line)} characters")
    return found


def test_no_line_of_the_project_is_over_the_limit():
    assert long_lines(ROOT) == [], f"lines over {LIMIT} characters:\n" + "\n".join(long_lines(ROOT))


def test_every_part_of_the_project_is_read():
    read = {path.relative_to(ROOT).as_posix() for path in sources(ROOT)}
    assert {"pyproject.toml", "__init__.py", "harness/_oracles.py", "tests/test_lines.py"} <= read
    assert {"tests/fixtures/hostile_records.py", "scan/rules/__init__.py"} <= read
    assert not any(path.startswith(("build/", ".git/", ".typecheck/")) for path in read)


def test_a_long_line_is_named_by_file_and_line(tmp_path):
    package = tmp_path / "package"
    (package / "inner").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "inner" / "module.py").write_text(f"x = 1\n# {'a' * (LIMIT - 2)}\n# {'é' * (LIMIT - 1)}\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_it.py").write_text(f"\r\n\r\ny = '{'b' * LIMIT}'\r\n")
    (tmp_path / "pyproject.toml").write_text(f'[project]\ndescription = "{"c" * LIMIT}"\n')
    (tmp_path / "notes.md").write_text("d" * 2 * LIMIT)
    # Long lines where the project holds no source: a build, and a folder that is no package.
    for folder in ("build", "build/lib/package", "docs"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / "copy.py").write_text("e" * 2 * LIMIT)
    (tmp_path / "build" / "__init__.py").write_text("")

    assert long_lines(tmp_path) == [
        f"package/inner/module.py:3: {LIMIT + 1} characters",
        f"pyproject.toml:2: {LIMIT + 16} characters",
        f"tests/test_it.py:3: {LIMIT + 6} characters",
    ]
