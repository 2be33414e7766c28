"""Reads whose SQL the ORM compiles once: a hot read's queryset is built and compiled on
its first run for a database, and every later run sends the same SQL with new parameter
values and converts the rows as the ORM would.

Compiling costs the ORM far more than the query costs the database: about 1 ms of CPU for
the inbox's values query with four joins against 80 µs to run it (decision 305). Only
integer parameters are taken (ids, compared with `=`, `<` or `>`), and aware datetimes
named in `times` (compared with a DateTimeField, which adapts them as the database takes
them: decision 403), each placed as a parameter of its own; anything else is refused when
the read is first compiled, so the compiled statement is always the ORM's own for those
values.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db import connections, router
from django.db.models import QuerySet
from django.db.models.query import ValuesListIterable

# Stand-ins for the parameters while compiling: integers no id ever takes, and moments
# nothing is stamped at, each unique.
_PROBE = -(2**62)
_TIME_PROBE = datetime(1901, 1, 1, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class _Slot:
    name: str


@dataclass(frozen=True, slots=True)
class _Compiled:
    sql: str
    params: tuple[Any, ...]  # constants, and a _Slot where a parameter goes
    converters: tuple[tuple[int, tuple[Callable[..., Any], ...], Any], ...]


class PreparedRead:
    """`build(**ids)` must return a values_list queryset; `rows(**ids)` answers what
    `list(build(**ids))` would (tuples), without compiling it again. The parameters named
    in `times` take aware datetimes, the others integers."""

    def __init__(
        self, build: Callable[..., QuerySet[Any, Any]], *, times: tuple[str, ...] = ()
    ) -> None:
        self._build = build
        self._names = list(inspect.signature(build).parameters)
        if not set(times) <= set(self._names):
            raise TypeError(f"times {sorted(times)} are not all of {self._names}")
        self._times = frozenset(times)
        self._probes: dict[str, int | datetime] = {
            name: _TIME_PROBE + timedelta(seconds=i) if name in self._times else _PROBE - i
            for i, name in enumerate(self._names)
        }
        self._model: Any = None
        self._compiled: dict[str, _Compiled] = {}  # per database alias

    def rows(self, **ids: int | datetime) -> list[tuple[Any, ...]]:
        if sorted(ids) != sorted(self._names):
            raise TypeError(f"expected {self._names}, got {sorted(ids)}")
        for name in self._times:
            moment = ids[name]
            if not isinstance(moment, datetime) or moment.tzinfo is None:
                raise TypeError(f"{name} must be an aware datetime, not {moment!r}")
        if self._model is None:
            self._model = self._build(**self._probes).model
        alias = router.db_for_read(self._model)
        compiled = self._compiled.get(alias)
        if compiled is None:
            queryset = self._build(**self._probes)
            compiled = self._compiled[alias] = _compile(queryset, self._probes, alias)
        connection = connections[alias]
        params = [
            _placed(ids[p.name], connection) if isinstance(p, _Slot) else p for p in compiled.params
        ]
        with connection.cursor() as cursor:
            cursor.execute(compiled.sql, params)
            fetched = cursor.fetchall()
        if not compiled.converters:
            return [tuple(row) for row in fetched]
        rows = []
        for row in fetched:
            values = list(row)
            for position, functions, expression in compiled.converters:
                value = values[position]
                for convert in functions:
                    value = convert(value, expression, connection)
                values[position] = value
            rows.append(tuple(values))
        return rows


def _placed(value: int | datetime, connection: Any) -> Any:
    """A parameter as the compiled statement takes it: an id as itself, a moment as a
    DateTimeField adapts it (in the connection's zone, as the database stores it)."""
    if isinstance(value, datetime):
        return connection.ops.adapt_datetimefield_value(value)
    return value


def _compile(
    queryset: QuerySet[Any, Any], probes: dict[str, int | datetime], alias: str
) -> _Compiled:
    if queryset._iterable_class is not ValuesListIterable:
        raise ValueError("a prepared read must be a values_list() queryset (not flat)")
    compiler = queryset.query.get_compiler(using=alias)
    sql, raw_params = compiler.as_sql()
    connection = connections[alias]
    names = {_key(_placed(probe, connection)): name for name, probe in probes.items()}
    params = tuple(_Slot(names[key]) if (key := _key(v)) in names else v for v in raw_params)
    placed = sorted(p.name for p in params if isinstance(p, _Slot))
    if placed != sorted(probes):
        raise ValueError(f"each of {sorted(probes)} must be one parameter, as given: {placed}")
    fields = [s[0] for s in compiler.select[0 : compiler.col_count]]
    converters = tuple(
        (position, tuple(functions), expression)
        for position, (functions, expression) in compiler.get_converters(fields).items()
    )
    return _Compiled(sql, params, converters)


def _key(value: Any) -> tuple[type, Any] | None:
    """What a compiled parameter is matched on: its type and value (an id's probe as
    itself, a moment's as its DateTimeField adapted it), None when it cannot be one."""
    try:
        hash(value)
    except TypeError:
        return None
    return type(value), value
