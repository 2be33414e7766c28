"""Thin viewsets for sign-in and the statistics (staff,
docs/product/signin.md#statistics), and the operators' sign-in and visitors pages."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.conf import settings
from django.contrib import admin
from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, viewsets
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.authentication import authenticated_id
from accounts.permissions import IsStaff
from shops.selectors import shop_exists
from toolkit.api import fields
from toolkit.api.queries import query_params
from toolkit.api.schema import api_errors
from toolkit.validation import parse_iso_date, parse_month
from traffic.visits import PAGE_KINDS, PAGE_LABELS

from . import chart, services, stats


class SignResultSerializer(serializers.Serializer):
    date = serializers.DateField()
    signed = serializers.BooleanField()
    new = serializers.BooleanField(help_text="False when today was already signed.")
    streak = serializers.IntegerField()
    month_count = serializers.IntegerField(help_text="Days signed in this day's month.")
    total = serializers.IntegerField(help_text="Days signed ever.")


class StreakSerializer(serializers.Serializer):
    streak = serializers.IntegerField()
    signed_today = serializers.BooleanField()
    month_count = serializers.IntegerField(help_text="Days signed this month.")
    total = serializers.IntegerField(help_text="Days signed ever.")


class MonthSerializer(serializers.Serializer):
    month = serializers.CharField()
    days = serializers.ListField(child=serializers.IntegerField())
    count = serializers.IntegerField()


class DayVisitsSerializer(serializers.Serializer):
    date = serializers.DateField()
    uv = serializers.IntegerField()
    pv = serializers.IntegerField()


class UvStatsSerializer(serializers.Serializer):
    shop_id = serializers.IntegerField(allow_null=True)
    page = serializers.ChoiceField(choices=PAGE_KINDS, allow_null=True)
    date_from = serializers.DateField()
    date_to = serializers.DateField()
    days = serializers.IntegerField()
    uv = serializers.IntegerField(help_text="Unique visitors over the whole window.")
    pv = serializers.IntegerField()
    by_day = DayVisitsSerializer(many=True)


class DaySignInsSerializer(serializers.Serializer):
    date = serializers.DateField()
    users = serializers.IntegerField()


class MonthQuerySerializer(serializers.Serializer):
    month = fields.MonthField(required=False, help_text="This month when absent.")


class SpanQuerySerializer(serializers.Serializer):
    date = fields.DateField(required=False, help_text="The last day; today when absent.")
    days = fields.IntegerField(min_value=1, max_value=settings.STATS_MAX_DAYS, default=1)


class UvQuerySerializer(SpanQuerySerializer):
    shop_id = fields.IdField(required=False, help_text="One shop; the whole site when absent.")
    page = fields.ChoiceField(
        choices=PAGE_KINDS, required=False, help_text="One kind of page; not with shop_id."
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "shop_id" in attrs and "page" in attrs:
            message = gettext("Give shop_id or page, not both.")
            raise serializers.ValidationError({"page": [message]})
        return attrs


class SignViewSet(viewsets.ViewSet):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: SignResultSerializer})
    def create(self, request: Request) -> Response:
        """Sign in for today (local time); signing again the same day changes nothing."""
        return Response(services.sign(user_id=authenticated_id(request)))

    @extend_schema(responses=StreakSerializer)
    def streak(self, request: Request) -> Response:
        """Consecutive signed days up to today (or yesterday, until today is signed), the
        days signed this month and ever."""
        streak = services.streak(user_id=authenticated_id(request))
        return Response(
            {
                "streak": streak.days,
                "signed_today": streak.signed_today,
                "month_count": streak.month_count,
                "total": streak.total,
            }
        )

    @extend_schema(parameters=[MonthQuerySerializer], responses=MonthSerializer)
    def month(self, request: Request) -> Response:
        """The days signed in one month."""
        raw = query_params(request, MonthQuerySerializer).get("month")
        month = parse_month(raw) if raw else services.today().replace(day=1)
        days = services.month_days(user_id=authenticated_id(request), month=month)
        return Response({"month": month.strftime("%Y-%m"), "days": days, "count": len(days)})


class StatsViewSet(viewsets.ViewSet):
    permission_classes = [IsStaff]

    @extend_schema(parameters=[UvQuerySerializer], responses=UvStatsSerializer)
    @api_errors(404)  # unknown shop_id
    def uv(self, request: Request) -> Response:
        """Staff: unique visitors (merged over the days) and page views of the whole site,
        one kind of page (`page`) or one shop (`shop_id`): not both (400)."""
        query = query_params(request, UvQuerySerializer)
        shop_id = query.get("shop_id")
        if shop_id is not None:
            shop_exists(shop_id=shop_id)
        end, days = _span(query)
        return Response(stats.uv_stats(end=end, days=days, shop_id=shop_id, page=query.get("page")))

    @extend_schema(parameters=[SpanQuerySerializer], responses=DaySignInsSerializer(many=True))
    def sign(self, request: Request) -> Response:
        """Staff: users who signed in, per day, newest first."""
        end, days = _span(query_params(request, SpanQuerySerializer))
        return Response(services.daily_counts(end=end, days=days))


@staff_member_required
def sign_report(request: HttpRequest) -> HttpResponse:
    """Admin page: signed users per day over the last 30 days, from the running counters."""
    rows = services.daily_counts(end=services.today(), days=30)
    peak = max((row["users"] for row in rows), default=0) or 1
    for row in rows:
        row["percent"] = round(100 * row["users"] / peak)
    context = {
        **admin.site.each_context(request),
        "title": gettext("Sign-ins per day"),
        "rows": rows,
    }
    return render(request, "admin/signin_report.html", context)


@staff_member_required
def visits_report(request: HttpRequest) -> HttpResponse:
    """Admin page: UV and PV of the last 30 days, of the site and of each kind of page, in
    a table and a chart drawn on the server (SVG: the CSP allows no inline script)."""
    rows = stats.pages_stats(end=services.today(), days=30)
    for row in rows:
        row["label"] = PAGE_LABELS[row["page"]]
    context = {
        **admin.site.each_context(request),
        "title": gettext("Visitors and page views"),
        "rows": rows,
        "chart": chart.daily_bars(rows[0]["by_day"]),
    }
    return render(request, "admin/visits_report.html", context)


def _span(query: dict[str, Any]) -> tuple[date, int]:
    """The stats window: its last day (today by default) and how many days."""
    end = parse_iso_date(query["date"]) if "date" in query else services.today()
    return end, query["days"]
