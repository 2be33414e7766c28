"""Every key builder's key is documented in docs/redis-keys.md: each builder of the
toolkit's keys (toolkit.redis.keys) and of every app's `keys` module is called with
placeholders, and what it builds must match a key the document's table spells in its
first column (`<...>` standing for any placeholder). The document names every keys
module, and the toolkit's imports no app."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from toolkit.redis import keys

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "redis-keys.md"
HOLE = "\0"  # what each argument is replaced with


def _modules() -> list[ModuleType]:
    """The toolkit's keys, then each app's `keys.py` (an app's subpackages included)."""
    paths = sorted(
        path
        for path in [*ROOT.glob("*/keys.py"), *ROOT.glob("*/*/keys.py")]
        if path.parts[len(ROOT.parts)] not in {"tests", "bench", ".venv", "var"}
        and path.resolve() != Path(keys.__file__ or "").resolve()
    )
    names = [".".join(path.relative_to(ROOT).with_suffix("").parts) for path in paths]
    return [keys, *(importlib.import_module(name) for name in names)]


def _builders() -> list[tuple[str, Callable[..., str]]]:
    return [
        (f"{module.__name__}.{name}", function)
        for module in _modules()
        for name, function in inspect.getmembers(module, inspect.isfunction)
        if not name.startswith("_") and function.__module__ == module.__name__
    ]


def _documented() -> list[str]:
    """The keys in the first column of the document's table."""
    rows = re.findall(r"^\| (`[^|]+)\|", DOC.read_text(encoding="utf-8"), re.MULTILINE)
    return [key for row in rows for key in re.findall(r"`([^`]+)`", row)]


def _pattern(name: str, builder: Callable[..., str]) -> re.Pattern[str]:
    """What the builder builds, as a regex over the document's spelling: an argument
    stands for a placeholder or an example; a lock name for the key of its lock."""
    built = builder(*[HOLE] * len(inspect.signature(builder).parameters))
    if name.endswith("_lock"):
        built = keys.lock(built)
    regex = ".+".join(re.escape(part) for part in built.split(HOLE))
    if name.endswith("_pattern"):  # a SCAN pattern: its `*` and `[0-9]` stand for a placeholder
        regex = regex.replace(re.escape("*"), ".+").replace(re.escape("[0-9]"), ".?")
    if not name.endswith(("_prefix", "_root")):  # prefixes begin keys; keys are whole
        regex += "$"
    return re.compile(regex)


def test_there_are_builders_to_check() -> None:
    assert len(_modules()) > 10  # the toolkit's and the apps'
    assert len(_builders()) > 70


def test_every_keys_module_is_named_in_the_document() -> None:
    text = DOC.read_text(encoding="utf-8")
    for module in _modules():
        path = Path(module.__file__ or "").relative_to(ROOT).as_posix()
        assert f"`{path}`" in text, f"{DOC.name} does not say what {path} builds"


def test_no_builder_name_is_defined_twice() -> None:
    names = [name.rsplit(".", 1)[1] for name, _ in _builders()]
    assert sorted(set(names)) == sorted(names)


def test_the_toolkit_keys_import_no_app() -> None:
    tree = ast.parse(Path(keys.__file__ or "").read_text(encoding="utf-8"))
    imported = {
        node.module or ""
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level == 0
    } | {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    assert imported <= {"__future__"}


@pytest.mark.parametrize(("name", "builder"), _builders(), ids=[n for n, _ in _builders()])
def test_every_key_builder_is_documented(name: str, builder: Callable[..., str]) -> None:
    pattern = _pattern(name, builder)

    assert any(pattern.match(key) for key in _documented()), (
        f"{name} builds {pattern.pattern!r}: no key in {DOC.name} matches it"
    )
