"""Rows in bulk: `batched` for walks over many rows, and multi-row INSERTs of plain values
for a writer whose volume is the load (the drain).

`bulk_create` sends every value of every row through the SQL compiler: about 50 µs of
CPU per 12-column order row, most of what persisting a flash sale costs the machine the
web tier runs on. Here each column's adapter is picked once per batch and the rows are
joined into one statement (in chunks the database accepts), the values still going as
parameters. Fields the rows leave out take their defaults. No signals, no `pre_save`:
models with `auto_now` fields are refused rather than written wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar, cast

from django.db import connections, models, router
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models.fields.related import RelatedField

_INTEGERS = {
    models.AutoField,
    models.BigAutoField,
    models.SmallAutoField,
    models.IntegerField,
    models.BigIntegerField,
    models.SmallIntegerField,
    models.PositiveIntegerField,
    models.PositiveBigIntegerField,
    models.PositiveSmallIntegerField,
}


T = TypeVar("T")


def batched(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Lists of `size` items in order, the last one shorter (itertools.batched, which
    Python 3.11 lacks)."""
    batch: list[T] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def insert_rows(model: type[models.Model], rows: Sequence[Mapping[str, Any]]) -> None:
    """INSERT `rows` (field attname -> value) into `model`'s table, in one statement per
    chunk. Raises the database's IntegrityError as bulk_create would."""
    if not rows:
        return
    fields = model._meta.concrete_fields
    if any(
        getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False)
        for field in fields
    ):
        raise ValueError(f"{model.__name__} has auto_now fields: use bulk_create")
    connection = connections[router.db_for_write(model)]
    # Per column: its name in the rows, its adapter, its default (called per row, as a
    # callable default must be).
    columns = [(field.attname, _adapter(field, connection), field.get_default) for field in fields]
    values = [
        [adapt(row[name] if name in row else default()) for name, adapt, default in columns]
        for row in rows
    ]
    quote = connection.ops.quote_name
    # A concrete field is one with a column (Django's definition), which its type cannot say.
    column_list = ", ".join(quote(cast(str, field.column)) for field in fields)
    head = f"INSERT INTO {quote(model._meta.db_table)} ({column_list}) VALUES "
    placeholders = f"({', '.join(['%s'] * len(fields))})"
    chunk = connection.ops.bulk_batch_size(fields, rows) or len(rows)
    with connection.cursor() as cursor:
        for start in range(0, len(values), chunk):
            part = values[start : start + chunk]
            cursor.execute(
                head + ", ".join([placeholders] * len(part)), [v for row in part for v in row]
            )


def _adapter(field: models.Field, connection: BaseDatabaseWrapper) -> Callable[[Any], Any]:
    """The cheapest conversion that gives the driver what the ORM would: exact field
    types only (a subclass may convert its values its own way)."""
    target = field.target_field if isinstance(field, RelatedField) else field
    if type(target) in _INTEGERS:
        return _as_is
    if type(target) is models.CharField:
        return _text
    if type(target) is models.DateTimeField:
        adapt = connection.ops.adapt_datetimefield_value
        return lambda value: None if value is None else adapt(value)
    return lambda value: field.get_db_prep_save(value, connection)


def _as_is(value: Any) -> Any:
    return value


def _text(value: Any) -> str | None:
    return None if value is None else str(value)  # a TextChoices member: its value
