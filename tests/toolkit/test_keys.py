"""Every key builder's key is documented in docs/redis-keys.md: each builder of
dianping.redis.keys is called with placeholders, and what it builds must match a key the
document's table spells in its first column (`<...>` standing for any placeholder)."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from dianping.redis import keys

DOC = Path(__file__).resolve().parents[2] / "docs" / "redis-keys.md"
HOLE = "\0"  # what each argument is replaced with


def _builders() -> list[tuple[str, Callable[..., str]]]:
    return [
        (name, function)
        for name, function in inspect.getmembers(keys, inspect.isfunction)
        if not name.startswith("_") and function.__module__ == keys.__name__
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
    if name.endswith("_pattern"):  # a SCAN pattern: its `*` stands for a placeholder
        regex = regex.replace(re.escape("*"), ".+")
    if not name.endswith(("_prefix", "_root")):  # prefixes begin keys; keys are whole
        regex += "$"
    return re.compile(regex)


def test_there_are_builders_to_check() -> None:
    assert len(_builders()) > 30


@pytest.mark.parametrize(("name", "builder"), _builders(), ids=[n for n, _ in _builders()])
def test_every_key_builder_is_documented(name: str, builder: Callable[..., str]) -> None:
    pattern = _pattern(name, builder)

    assert any(pattern.match(key) for key in _documented()), (
        f"keys.{name} builds {pattern.pattern!r}: no key in {DOC.name} matches it"
    )
