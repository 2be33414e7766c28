"""What can be searched: each content app describes its kind of document (a `Source`) and
registers it in its AppConfig.ready(). This app never imports them: it knows kinds only
through the registry, so the dependency points one way (content apps -> search)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from django.db import models
from rest_framework import serializers

Texts = dict[str, str]  # field name -> its text


@dataclass(frozen=True)
class Ranking:
    """How the database backend joins a kind's hits to its table: the table's model and
    key column, the popularity columns that break ties (most first), and the column values
    a row must have to be found (a hidden note must never be, even before its index entry
    is dropped)."""

    model: type[models.Model]
    key: str = "id"
    popularity: tuple[str, ...] = ()
    visible: dict[str, Any] = field(default_factory=dict)


class Source:
    """A kind of searchable document. Subclasses say which fields are indexed and how much
    each weighs (a hit in a name counts more than one in a long text), how the texts are
    read from the database, and how results are shown (the kind's usual list item)."""

    kind: ClassVar[str]  # as the API names it: ?kind=
    number: ClassVar[int]  # as the index stores it: never reuse one
    weights: ClassVar[dict[str, int]]
    ranking: ClassVar[Ranking]
    item_serializer: ClassVar[type[serializers.Serializer]]  # the list item, for the schema
    highlighted: ClassVar[tuple[str, ...]]  # fields of the item shown with their hits

    def texts(self, ids: Iterable[int], *, lock: bool = False) -> dict[int, Texts]:
        """The indexed fields of those rows that may be found (`lock`: the rows locked
        until the caller's transaction ends, so index refreshes of a row serialise with
        its writes); a missing id has no document."""
        raise NotImplementedError

    def all_ids(self) -> Any:
        """The ids of every row that may be found (a values_list query), for rebuilds."""
        raise NotImplementedError

    def items(self, ids: list[int], *, viewer_id: int | None) -> dict[int, dict[str, Any]]:
        """The rows as their list items, as the kind's own lists show them to `viewer_id`."""
        raise NotImplementedError

    def scope(self, *, city: str | None) -> dict[str, Any]:
        """What a query's scope asks of this kind's rows, as {field: value} the backend
        matches on the row itself (never copied into the index, so a row that moves is
        found where it is at once): `city` is a city's code, None for the default city.
        Kinds that are in no city ignore it; one that is may refuse an unknown city (a
        NotFound). Decision 395."""
        return {}


_sources: dict[str, Source] = {}


def register(source: Source) -> None:
    _sources[source.kind] = source


def source(kind: str) -> Source:
    return _sources[kind]


def kinds() -> list[str]:
    return list(_sources)
