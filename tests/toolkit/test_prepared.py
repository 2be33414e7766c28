"""toolkit/prepared.py: a read compiled once answers what the ORM answers, for every
parameter value, with the ORM's conversions; what it cannot place safely it refuses."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.db.models.sql.compiler import SQLCompiler
from django.test.utils import CaptureQueriesContext

from tests.factories import NormalVoucherFactory, UserFactory, VoucherFactory
from toolkit import clock
from toolkit.prepared import PreparedRead
from vouchers.models import Voucher

pytestmark = pytest.mark.django_db


def _vouchers(shop_id: int, after: int):
    return (
        Voucher.objects.filter(shop_id=shop_id, id__gt=after)
        .order_by("-id")
        .values_list("id", "title", "begin_time", "shop__name", "shop__type__name")[:3]
    )


def test_it_answers_what_the_orm_answers_for_every_value(monkeypatch) -> None:
    first = VoucherFactory()
    VoucherFactory.create_batch(4, shop=first.shop, begin_time=clock.now() + timedelta(days=2))
    other = NormalVoucherFactory()
    read = PreparedRead(_vouchers)
    compiled: list[int] = []
    real = SQLCompiler.as_sql

    def as_sql(self, *args, **kwargs):
        compiled.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(SQLCompiler, "as_sql", as_sql)

    cases = [(first.shop_id, 0), (first.shop_id, first.id + 1), (other.shop_id, 0), (999, 0)]
    answers = [read.rows(shop_id=shop, after=after) for shop, after in cases]
    compiled_by_read = len(compiled)

    expected = [list(_vouchers(shop, after)) for shop, after in cases]
    assert answers == expected
    assert compiled_by_read == 1  # the first call's, only
    assert answers[0][0][2].tzinfo is not None  # times converted as the ORM does
    assert answers[2] == [(other.id, other.title, None, other.shop.name, other.shop.type.name)]
    assert answers[3] == []


def test_it_is_one_query_as_the_database_sees_it() -> None:
    user = UserFactory()
    read = PreparedRead(
        lambda user_id: UserFactory._meta.model.objects.filter(pk=user_id).values_list(
            "id", "nick_name"
        )
    )
    read.rows(user_id=user.id)

    with CaptureQueriesContext(connection) as queries:
        assert read.rows(user_id=user.id) == [(user.id, user.nick_name)]
    assert len(queries) == 1


@pytest.mark.parametrize(
    "build",
    [
        lambda shop_id: Voucher.objects.filter(shop_id=shop_id),  # models, not values
        lambda shop_id: Voucher.objects.filter(shop_id=shop_id).values_list("id", flat=True),
        lambda shop_id: Voucher.objects.filter(shop_id=shop_id + 1).values_list("id"),
        lambda shop_id: Voucher.objects.filter(title=str(shop_id)).values_list("id"),  # text
        lambda shop_id: Voucher.objects.values_list("id"),  # not a parameter at all
    ],
    ids=["models", "flat", "changed", "as text", "unused"],
)
def test_what_it_cannot_place_exactly_is_refused(build) -> None:
    with pytest.raises(ValueError, match=r"prepared read|parameter"):
        PreparedRead(build).rows(shop_id=5)


def test_it_wants_exactly_its_parameters() -> None:
    with pytest.raises(TypeError):
        PreparedRead(_vouchers).rows(shop_id=1)


def _starting(shop_id: int, since: datetime, until: datetime):
    return (
        Voucher.objects.filter(shop_id=shop_id, begin_time__gte=since, begin_time__lt=until)
        .order_by("id")
        .values_list("id", "begin_time")
    )


def test_moments_are_placed_as_a_datetime_field_takes_them() -> None:
    now = clock.now().replace(microsecond=0)
    first = VoucherFactory(begin_time=now)
    later = VoucherFactory(shop=first.shop, begin_time=now + timedelta(hours=3, seconds=1))
    read = PreparedRead(_starting, times=("since", "until"))
    local = ZoneInfo("Asia/Shanghai")
    cases = [
        (now, now + timedelta(days=1)),
        (now + timedelta(seconds=1), now + timedelta(days=1)),
        (now.astimezone(local), (now + timedelta(hours=3, seconds=1)).astimezone(local)),
        (now - timedelta(days=1), now),
    ]

    answers = [read.rows(shop_id=first.shop_id, since=a, until=b) for a, b in cases]

    assert answers == [list(_starting(first.shop_id, a, b)) for a, b in cases]
    assert answers[0] == [(first.id, now), (later.id, later.begin_time)]
    assert answers[1] == [(later.id, later.begin_time)]
    assert answers[2] == [(first.id, now)]  # the zone it is given in does not matter
    assert answers[3] == []
    with pytest.raises(TypeError, match="aware"):
        read.rows(shop_id=first.shop_id, since=datetime(2026, 1, 1), until=now)


def test_a_moment_not_compared_as_a_datetime_field_is_refused() -> None:
    as_text = PreparedRead(
        lambda shop_id, since: Voucher.objects.filter(
            shop_id=shop_id, title=str(since)
        ).values_list("id"),
        times=("since",),
    )

    with pytest.raises(ValueError, match="parameter"):
        as_text.rows(shop_id=1, since=datetime(2026, 1, 1, tzinfo=UTC))
    with pytest.raises(TypeError, match="times"):
        PreparedRead(_starting, times=("sinse",))
