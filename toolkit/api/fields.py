"""Strict request fields: a value is what the OpenAPI schema says it is, or a 400.

DRF's stock fields coerce: a full-width "1" (U+FF11), 1.0 and True pass as integers, a
PrimaryKeyRelatedField reads 1.5 as id 1, 0 passes as text and "yes" as a boolean. Each
of those is a client bug we should name, and a lie in the schema that schemathesis'
negative-data check finds. Every writable field of a request serializer comes from here
(tests/platform/test_strict_input.py walks them), and each declares in the schema the same limits
it enforces: the pattern it checks is the one the schema shows.

In a JSON body a value must have its JSON type; query strings and multipart forms carry
only text, so there numbers and booleans are parsed from ASCII text.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.http import QueryDict
from django.utils.translation import gettext_lazy as _
from rest_framework import serializers
from rest_framework.fields import empty

from toolkit.errors import Conflict, NotFound
from toolkit.validation import DATE_PATTERN, ID_TEXT_PATTERN, MAX_DB_ID, MONTH_PATTERN

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

# Characters no name or text may hold (docs/product/errors.md#hard-to-break): C0 controls
# but tab and line breaks (a single-line field refuses those too), DEL and the C1
# controls; the bidirectional embeddings, overrides, isolates and marks, which make text
# read other than it is stored ("gpj.exe" shown as "exe.jpg"); invisible separators and
# joiners that hide characters (zero width space, word joiner, BOM) but not ZWJ/ZWNJ,
# which emoji and scripts need; the line and paragraph separators. (Lone surrogates, which
# no database can store, are refused apart: a pattern cannot name them, as a JSON Schema
# validator's strings cannot hold them.)
_INVISIBLE = (
    "\\x7f-\\x9f\\u061c\\u200b\\u200e\\u200f\\u2028-\\u202e\\u2060-\\u2064\\u2066-\\u206f"
    "\\ufeff\\ufff9-\\ufffb"
)
REFUSED_IN_TEXT = f"\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f{_INVISIBLE}"
REFUSED_IN_LINE = f"\\x00-\\x1f{_INVISIBLE}"

_LONE_SURROGATE = re.compile("[\\ud800-\\udfff]")  # JSON's "\\ud800" decodes to one
INT64_MIN, INT64_MAX = -(2**63), MAX_DB_ID
_INTEGER_TEXT = re.compile(r"-?[0-9]{1,19}", re.ASCII)
_NUMBER_TEXT = re.compile(r"-?[0-9]{1,20}(\.[0-9]{1,20})?([eE][-+]?[0-9]{1,3})?", re.ASCII)
# RFC 3339 with its offset, 2000-01-01 to 2099-12-31 (the calendar spelled out: a
# pattern that let 2026-02-30 through would make the schema promise what we refuse).
DATETIME_PATTERN = (
    f"^(?:{DATE_PATTERN[1:-1]})T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]{{1,6}})?"
    "(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])$"
)


def _from_text(field: serializers.Field) -> bool:
    """Whether the value came from a query string or a form (text only), not JSON."""
    return isinstance(getattr(field.root, "initial_data", None), QueryDict)


class _Exact(serializers.Field):
    """Present means present: DRF reads `?page=` in a query string or form as if the key
    were absent (an HTML form's empty input); here it is a value, and refused as one."""

    field_name: str

    def get_value(self, dictionary: Any) -> Any:
        if isinstance(dictionary, QueryDict):
            return dictionary.get(self.field_name, empty)
        return super().get_value(dictionary)


def text_pattern(*, multiline: bool, allow_blank: bool) -> str:
    """The schema's and the validator's pattern: no refused character, and unless blanks
    are allowed at least one that is not white space (the field trims the edges)."""
    refused = REFUSED_IN_TEXT if multiline else REFUSED_IN_LINE
    if allow_blank:
        return f"^[^{refused}]*$"
    return f"^[^{refused}]*[^\\s{refused}][^{refused}]*$"


class CharField(_Exact, serializers.CharField):
    """Text: a JSON string, trimmed, in NFC, without control, invisible or bidirectional
    control characters; `multiline` allows tabs and line breaks (stored as \\n). The
    length limit counts what was sent, so the schema's maxLength holds before trimming."""

    default_error_messages = {
        "invalid": _("Not a valid string."),
        "characters": _("Control, invisible and text-direction characters are not allowed."),
    }

    def __init__(
        self,
        *,
        multiline: bool = False,
        pattern: str | None = None,
        pattern_message: StrOrPromise | None = None,
        **kwargs: Any,
    ) -> None:
        """`pattern` (anchored: ^...$) replaces the character rule with a stricter one of
        the caller's (a date, digits), which must refuse those characters too; such a value
        is taken as sent, untrimmed. Either way the field has exactly one pattern, the one
        the schema shows, and it admits "" exactly when the field allows blanks."""
        self.multiline = multiline
        if pattern is not None:
            kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)
        if pattern is None:
            pattern = text_pattern(multiline=multiline, allow_blank=self.allow_blank)
            pattern_message = self.error_messages["characters"]
        elif self.allow_blank:
            pattern = f"^(?:{pattern[1:-1]})?$"
        self._pattern = RegexValidator(pattern, message=pattern_message)
        self.validators.append(self._pattern)

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        if _LONE_SURROGATE.search(data):
            self.fail("characters")
        if self.max_length is not None and len(data) > self.max_length:
            self.fail("max_length", max_length=self.max_length)
        self._pattern(data)  # as sent, as the schema reads it: trimming hides no character
        value = unicodedata.normalize("NFC", super().to_internal_value(data))
        if self.multiline:
            value = value.replace("\r\n", "\n").replace("\r", "\n")
        return value


class ChoiceField(_Exact, serializers.ChoiceField):
    """One of the choices, spelled exactly (DRF would also take 1 for "1")."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, str):
            self.fail("invalid_choice", input=data)
        return super().to_internal_value(data)


class IntegerField(_Exact, serializers.IntegerField):
    """A JSON integer (not a boolean, not 1.0); ASCII digits in a query string. Bounded to
    a signed 64-bit integer unless told tighter: nothing larger fits a database column."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", INT64_MIN)
        kwargs.setdefault("max_value", INT64_MAX)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, str) and _from_text(self):
            if not _INTEGER_TEXT.fullmatch(data):
                self.fail("invalid")
            data = int(data)
        elif type(data) is not int:
            self.fail("invalid")
        return super().to_internal_value(data)


class IdField(IntegerField):
    """A database id: 1 to 2^63 - 1."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(min_value=1, max_value=MAX_DB_ID, **kwargs)


class FloatField(_Exact, serializers.FloatField):
    """A finite JSON number (not a boolean); a plain decimal in a query string."""

    def to_internal_value(self, data: Any) -> float:
        if isinstance(data, str) and _from_text(self):
            if not _NUMBER_TEXT.fullmatch(data):
                self.fail("invalid")
        elif isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        value = super().to_internal_value(data)
        if not math.isfinite(value):
            self.fail("invalid")
        return value


class BooleanField(_Exact, serializers.BooleanField):
    """true or false; "true" or "false" in a query string."""

    def to_internal_value(self, data: Any) -> bool:
        if isinstance(data, str) and _from_text(self) and data in ("true", "false"):
            return data == "true"
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class _TextPattern(RegexValidator):
    """A pattern for the text a field parses into something else: it passes the parsed
    value, and stays in `validators` so that the schema shows it."""

    def __call__(self, value: Any) -> None:
        if isinstance(value, str):
            super().__call__(value)


class DateTimeField(_Exact, serializers.DateTimeField):
    """An RFC 3339 time with its offset, from 2000 to 2099 (the schema's pattern)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        message = _("Use an RFC 3339 time with its offset, from 2000 to 2099.")
        self._rfc3339 = _TextPattern(DATETIME_PATTERN, message=message)
        self.validators.append(self._rfc3339)  # what the schema shows

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, str):
            self.fail("invalid", format="RFC 3339")
        self._rfc3339(data)  # checked here, on the text: validators see the parsed time
        return super().to_internal_value(data)


class DateField(CharField):
    """A calendar day, YYYY-MM-DD, from 2000-01-01 to 2099-12-31."""

    def __init__(self, **kwargs: Any) -> None:
        message = _("Use YYYY-MM-DD, a day from 2000 to 2099.")
        super().__init__(pattern=DATE_PATTERN, pattern_message=message, **kwargs)


class MonthField(CharField):
    """A month, YYYY-MM, from 2000-01 to 2099-12."""

    def __init__(self, **kwargs: Any) -> None:
        message = _("Use YYYY-MM, a month from 2000 to 2099.")
        super().__init__(pattern=MONTH_PATTERN, pattern_message=message, **kwargs)


class IdTextField(CharField):
    """An id sent as a string, as order ids are (they exceed 2^53): 1 to 2^63 - 1 in ASCII
    digits. Validated as text, handed on as an int."""

    def __init__(self, **kwargs: Any) -> None:
        message = _("An id: ASCII digits from 1 to 2^63 - 1.")
        super().__init__(pattern=ID_TEXT_PATTERN, pattern_message=message, **kwargs)

    def run_validation(self, data: Any = empty) -> Any:
        value = super().run_validation(data)
        return int(value) if isinstance(value, str) else value


def image_url_pattern() -> str:
    """One of our own pictures (a path under MEDIA_URL, no segment starting with a dot)
    or an https URL with a host: never another scheme, nor a protocol-relative //host."""
    segment = "[A-Za-z0-9_-][A-Za-z0-9_.-]*"
    media = re.escape(settings.MEDIA_URL) if settings.MEDIA_URL.startswith("/") else None
    own = f"{media}(?:{segment}/)*{segment}" if media else None
    label = "[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
    host = f"{label}(?:\\.{label})*"
    https = f"https://{host}(?::[0-9]{{1,5}})?(?:/[A-Za-z0-9_.~!$&'()*+,;=:@%/-]*)?"
    return f"^(?:{own}|{https})$" if own else f"^{https}$"


class ImageUrlField(CharField):
    """A picture's URL: ours (what POST /api/uploads answers) or https."""

    def __init__(self, **kwargs: Any) -> None:
        message = _("Use a picture uploaded here or an https URL.")
        super().__init__(pattern=image_url_pattern(), pattern_message=message, **kwargs)


class _IdBound(MinValueValidator):
    """1..2^63 - 1, for the schema and for the id before it is looked up (the field's
    validators see the row it found)."""

    def __call__(self, value: Any) -> None:
        if type(value) is int:
            super().__call__(value)


class _IdCeiling(MaxValueValidator):
    def __call__(self, value: Any) -> None:
        if type(value) is int:
            super().__call__(value)


def missing_reference(missing: type[NotFound]) -> Conflict:
    """A body naming a row that is not there: 409 with the row's not-found code and text
    (`shop_not_found`), not a 400, as the request is well formed and the world refuses it
    (the shop was deleted, say), and not a 404, which would say the URL's resource is gone.
    A schema cannot know which ids exist; the schema lists the 409 (toolkit.api.schema)."""
    return Conflict(str(missing.default_detail), code=missing.default_code)


class PrimaryKeyRelatedField(_Exact, serializers.PrimaryKeyRelatedField):
    """An existing row's id, as a JSON integer (DRF would read 1.5 as 1, True as 1); an id
    of no row is `missing_reference(missing)`."""

    default_error_messages = {
        **serializers.PrimaryKeyRelatedField.default_error_messages,
        "id": _("An id: a whole number from 1 to 2^63 - 1."),
    }

    def __init__(self, *, missing: type[NotFound] = NotFound, **kwargs: Any) -> None:
        self.missing = missing
        super().__init__(**kwargs)
        self.validators += [_IdBound(1), _IdCeiling(MAX_DB_ID)]

    def to_internal_value(self, data: Any) -> Any:
        if type(data) is not int:
            self.fail("incorrect_type", data_type=type(data).__name__)
        if not 0 < data <= MAX_DB_ID:
            self.fail("id")
        queryset = self.get_queryset()
        assert queryset is not None  # a writable related field has one (DRF asserts it)
        row = queryset.filter(pk=data).first()
        if row is None:
            raise missing_reference(self.missing)
        return row


class ExistingIdField(IdField):
    """An id of a row of `queryset`, handed on as the id; an id of no row is
    `missing_reference(missing)`."""

    def __init__(self, *, queryset: Any, missing: type[NotFound], **kwargs: Any) -> None:
        self.queryset, self.missing = queryset, missing
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> int:
        value = super().to_internal_value(data)
        if not self.queryset.filter(pk=value).exists():
            raise missing_reference(self.missing)
        return value


class StrictModelSerializer(serializers.ModelSerializer):
    """A ModelSerializer whose generated fields are the strict ones above."""

    serializer_field_mapping = {
        **serializers.ModelSerializer.serializer_field_mapping,
        **{
            model_field: CharField
            for model_field, field in serializers.ModelSerializer.serializer_field_mapping.items()
            if field is serializers.CharField
        },
        **{
            model_field: BooleanField
            for model_field, field in serializers.ModelSerializer.serializer_field_mapping.items()
            if field is serializers.BooleanField
        },
    }
    serializer_related_field = PrimaryKeyRelatedField
    serializer_choice_field = ChoiceField

    def build_standard_field(self, field_name: str, model_field: Any) -> tuple[Any, dict]:
        field_class, kwargs = super().build_standard_field(field_name, model_field)
        if field_class is CharField and model_field.get_internal_type() == "TextField":
            kwargs["multiline"] = True
        return field_class, kwargs
