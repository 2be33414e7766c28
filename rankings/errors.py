"""Every error code the rankings app answers with, in one place; a `city` of no city is
the shops app's `city_not_found`."""

from __future__ import annotations

from enum import StrEnum

from django.utils.translation import gettext_lazy as _

from toolkit.errors import InvalidInput


class Code(StrEnum):
    ONE_LIST_REQUIRED = "one_list_required"  # 400: neither or both of `type_id` and `area`


class OneListRequired(InvalidInput):
    default_code = Code.ONE_LIST_REQUIRED
    default_detail = _("Give exactly one of type_id and area.")
