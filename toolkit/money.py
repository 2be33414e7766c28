"""Money as people read and type it: yuan (¥19.99), while the database, the API and the
services keep fen (integer cents). Shown the way the web client shows it
(dianping/static/web/lib/format.js `money`), typed with at most two decimals (decision 460)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import Model

CENTS = Decimal(100)
MAX_FEN = 100_000_000  # ¥1,000,000, far above any bill or voucher here: the API's bound too
MAX_YUAN = Decimal(MAX_FEN) / CENTS


def yuan(fen: int | None) -> str:
    """`¥100` for whole yuan, `¥19.99` otherwise; `-` for no amount."""
    if fen is None:
        return "-"
    whole, cents = divmod(fen, 100)
    return f"¥{whole}.{cents:02d}" if cents else f"¥{whole}"


def yuan_column(model: type[Model], name: str, *, sortable: bool = False) -> Callable[..., str]:
    """An admin column (or read-only field) that shows the model's fen field `name` in
    yuan, under the field's own name: one line per amount in a ModelAdmin."""

    field = model._meta.get_field(name)
    description = getattr(field, "verbose_name", name)  # a concrete field: its own name

    @admin.display(description=description, ordering=name if sortable else None)
    def column(model_admin: Any, obj: Model) -> str:
        return yuan(getattr(obj, name))

    return column


def fen_to_input(fen: int) -> str:
    """What a yuan input shows for a stored amount: `19.99`, `100.00`."""
    return str((Decimal(fen) / CENTS).quantize(Decimal("0.01")))


class YuanField(forms.DecimalField):
    """A form field typed in yuan (two decimals at most, never negative) whose cleaned
    value is fen, an int; a stored amount (fen) is shown back in yuan."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            max_digits=None, decimal_places=2, min_value=Decimal(0), max_value=MAX_YUAN, **kwargs
        )

    def prepare_value(self, value: Any) -> Any:
        # An int is fen (the model's initial value); typed input (a str) stays as typed.
        if isinstance(value, int) and not isinstance(value, bool):
            return fen_to_input(value)
        return super().prepare_value(value)

    def clean(self, value: Any) -> int | None:
        amount = super().clean(value)
        return None if amount is None else int(amount * CENTS)

    def has_changed(self, initial: Any, data: Any) -> bool:
        try:
            amount = self.to_python(data)
        except forms.ValidationError:
            return True
        return (None if amount is None else int(amount * CENTS)) != initial
