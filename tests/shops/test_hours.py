"""Structured opening hours (shops/hours.py): the format's validation, "open now" across
midnight, the week's wrap, holidays and 24:00, and the legacy text. Times are local
(TIME_ZONE, Asia/Shanghai: no daylight saving time, so no DST cases exist to test)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.test import override_settings
from django.utils import translation

from shops import hours
from shops.errors import InvalidHours

SHANGHAI = ZoneInfo("Asia/Shanghai")
# 2026-11-30 is a Monday; 2026-12-06 the Sunday of that week.
MON, TUE, SAT, SUN = date(2026, 11, 30), date(2026, 12, 1), date(2026, 12, 5), date(2026, 12, 6)


def at(day: date, hhmm: str) -> datetime:
    hour, minute = (int(part) for part in hhmm.split(":"))
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=SHANGHAI)


def week(**days: list[list[str]]) -> dict:
    return hours.validate({"weekly": days})


def test_settings_use_shanghai() -> None:
    from django.conf import settings

    assert settings.TIME_ZONE == "Asia/Shanghai"


# --- validate ---------------------------------------------------------------------------


def test_validate_normalises_every_day_sorted_and_dates_deduplicated() -> None:
    given = {
        "weekly": {"mon": [["17:00", "02:00"], ["10:00", "14:00"]], "sun": []},
        "closed_dates": ["2026-12-25", "2026-10-01", "2026-12-25"],
    }

    assert hours.validate(given) == {
        "weekly": {
            "mon": [["10:00", "14:00"], ["17:00", "02:00"]],
            "tue": [],
            "wed": [],
            "thu": [],
            "fri": [],
            "sat": [],
            "sun": [],
        },
        "closed_dates": ["2026-10-01", "2026-12-25"],
    }
    assert hours.validate({}) == {"weekly": {d: [] for d in hours.DAYS}, "closed_dates": []}
    again = hours.validate(given)
    assert hours.validate(again) == again  # idempotent


def test_validate_keeps_24_00_and_touching_ranges() -> None:
    normal = week(mon=[["00:00", "24:00"]], tue=[["10:00", "14:00"], ["14:00", "18:00"]])

    assert normal["weekly"]["mon"] == [["00:00", "24:00"]]
    assert normal["weekly"]["tue"] == [["10:00", "14:00"], ["14:00", "18:00"]]


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (None, "must be an object"),
        ([], "must be an object"),
        ({"weekly": {}, "timezone": "UTC"}, "Unknown key in opening hours: timezone"),
        ({"weekly": []}, '"weekly" must be an object'),
        ({"weekly": {"monday": []}}, "Unknown weekday monday"),
        ({"weekly": {"mon": "10:00-14:00"}}, "mon: a list of [start, end] ranges"),
        ({"weekly": {"mon": [["10:00"]]}}, 'mon: each range is ["HH:MM", "HH:MM"]'),
        ({"weekly": {"mon": [["10:00", "14:00", "x"]]}}, "mon: each range is"),
        ({"weekly": {"mon": [[1000, 1400]]}}, "mon: each range is"),
        ({"weekly": {"mon": [["9:00", "14:00"]]}}, "mon: 9:00 is not a start time"),
        ({"weekly": {"mon": [["24:00", "02:00"]]}}, "mon: 24:00 is not a start time"),
        ({"weekly": {"mon": [["10:00", "24:01"]]}}, "mon: 24:01 is not an end time"),
        ({"weekly": {"mon": [["10:60", "14:00"]]}}, "mon: 10:60 is not a start time"),
        ({"weekly": {"tue": [["10:00", "25:00"]]}}, "tue: 25:00 is not an end time"),
        ({"weekly": {"mon": [["10:00", "10:00"]]}}, "cannot start and end at one time"),
        ({"weekly": {"mon": [["10:00", "14:00"], ["13:00", "18:00"]]}},
         "mon: opening ranges overlap"),
        ({"weekly": {"mon": [["10:00", "14:00"], ["10:00", "12:00"]]}},
         "mon: opening ranges overlap"),
        ({"weekly": {"mon": [["17:00", "02:00"], ["20:00", "23:00"]]}},
         "mon: opening ranges overlap"),
        ({"weekly": {"mon": [["22:00", "03:00"]], "tue": [["02:00", "10:00"]]}},
         "mon: its overnight range overlaps tue's first range"),
        ({"weekly": {"sun": [["22:00", "03:00"]], "mon": [["01:00", "10:00"]]}},
         "sun: its overnight range overlaps mon's first range"),
        ({"weekly": {"mon": [[f"0{n}:00", f"0{n}:30"] for n in range(5)]}},
         "mon: at most 4 ranges a day"),
        ({"closed_dates": "2026-12-25"}, '"closed_dates" must be a list'),
        ({"closed_dates": ["2026-02-30"]}, "2026-02-30 is not a date"),
        ({"closed_dates": ["2026-1-5"]}, "2026-1-5 is not a date"),
        ({"closed_dates": [20261225]}, "int is not a date"),
        ({"closed_dates": [f"2026-01-{d:02d}" for d in range(1, 32)]
          + [f"2026-03-{d:02d}" for d in range(1, 31)]}, "At most 60 closed dates"),
    ],
)  # fmt: skip
def test_validate_refuses_with_a_clear_message(data, says) -> None:
    with translation.override("en"), pytest.raises(InvalidHours) as refused:
        hours.validate(data)

    assert says in refused.value.detail
    assert refused.value.code == "invalid_hours"
    assert refused.value.status_code == 400


def test_an_overnight_range_may_end_where_the_next_day_opens() -> None:
    normal = week(mon=[["22:00", "03:00"]], tue=[["03:00", "10:00"]])

    assert normal["weekly"]["tue"] == [["03:00", "10:00"]]


# --- is_open ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("day", "time", "expected"),
    [
        (MON, "09:59", False),
        (MON, "10:00", True),
        (MON, "13:59", True),
        (MON, "14:00", False),
        (MON, "16:59", False),
        (MON, "17:00", True),
        (MON, "23:59", True),
        (TUE, "00:00", True),
        (TUE, "01:59", True),
        (TUE, "02:00", False),  # Monday's night
        (TUE, "12:00", False),  # Tuesday itself is closed
        (SUN, "01:00", False),  # Saturday has no overnight range
    ],
)
def test_an_overnight_range_runs_past_midnight(day, time, expected) -> None:
    monday = week(mon=[["10:00", "14:00"], ["17:00", "02:00"]])

    assert hours.is_open(monday, at(day, time)) is expected


def test_sunday_night_runs_into_monday() -> None:
    sunday = week(sun=[["18:00", "03:00"]])

    assert hours.is_open(sunday, at(SUN, "23:00"))
    assert hours.is_open(sunday, at(MON, "02:59"))  # the Monday before that Sunday
    assert hours.is_open(sunday, at(date(2026, 12, 7), "02:59"))  # the Monday after
    assert not hours.is_open(sunday, at(date(2026, 12, 7), "03:00"))
    assert not hours.is_open(sunday, at(SAT, "02:00"))


def test_24_00_closes_at_midnight_and_a_whole_day_is_open_all_day() -> None:
    late = week(mon=[["18:00", "24:00"]], tue=[["00:00", "24:00"]])

    assert hours.is_open(late, at(MON, "23:59"))
    assert hours.is_open(late, at(TUE, "00:00"))  # Tuesday's own range
    assert hours.is_open(late, at(TUE, "23:59"))
    assert not hours.is_open(late, at(date(2026, 12, 2), "00:00"))  # Wednesday: closed
    only_monday = week(mon=[["18:00", "24:00"]])
    assert not hours.is_open(only_monday, at(TUE, "00:00"))  # 24:00 is not overnight


def test_a_missing_weekday_is_closed_and_so_is_an_empty_week() -> None:
    assert not hours.is_open(week(mon=[["10:00", "22:00"]]), at(TUE, "12:00"))
    assert not hours.is_open(week(), at(MON, "12:00"))


def test_a_holiday_closes_its_whole_local_day_and_the_night_before_ends_at_midnight() -> None:
    every_day = {d: [["10:00", "14:00"], ["17:00", "02:00"]] for d in hours.DAYS}
    holiday = hours.validate({"weekly": every_day, "closed_dates": [TUE.isoformat()]})

    assert hours.is_open(holiday, at(MON, "12:00"))
    assert hours.is_open(holiday, at(MON, "23:59"))
    assert not hours.is_open(holiday, at(TUE, "00:00"))  # Monday's night ends at midnight
    assert not hours.is_open(holiday, at(TUE, "01:00"))
    assert not hours.is_open(holiday, at(TUE, "12:00"))
    assert not hours.is_open(holiday, at(TUE, "20:00"))
    # The holiday's own overnight range never opened, so nothing of it runs into Wednesday.
    assert not hours.is_open(holiday, at(date(2026, 12, 2), "01:00"))
    assert hours.is_open(holiday, at(date(2026, 12, 2), "10:00"))


def test_open_now_reads_any_aware_time_in_local_time() -> None:
    monday = week(mon=[["10:00", "14:00"]])
    utc = datetime(2026, 11, 30, 3, 30, tzinfo=UTC)  # 11:30 in Shanghai

    assert hours.is_open(monday, utc)
    assert hours.open_now(monday, utc) is True
    assert hours.open_now(None, utc) is None
    assert hours.open_now_json(b"null", utc) == b"null"
    assert hours.open_now_json(b'{"weekly":{"mon":[["10:00","14:00"]]}}', utc) == b"true"
    assert hours.open_now_json(b'{"weekly":{"mon":[["12:00","14:00"]]}}', utc) == b"false"


def test_open_now_json_is_held_for_its_minute_only() -> None:
    """Answers are kept per clock minute: the minute a shop closes reads closed, even right
    after the same hours were read open."""
    raw = b'{"weekly":{"mon":[["10:00","14:00"]]}}'
    last_open = datetime(2026, 11, 30, 5, 59, 59, tzinfo=UTC)  # 13:59:59 in Shanghai

    assert hours.open_now_json(raw, last_open) == b"true"
    assert hours.open_now_json(raw, last_open + timedelta(seconds=1)) == b"false"
    assert hours.open_now_json(raw, last_open) == b"true"  # a clock moved back is honoured
    with override_settings(TIME_ZONE="UTC"):  # 05:59 in UTC: the zone is part of the key
        assert hours.open_now_json(raw, last_open) == b"false"


# --- summary ----------------------------------------------------------------------------


def test_summary_is_the_most_common_weekday_or_a_given_day() -> None:
    lunch_and_night = [["10:00", "14:00"], ["17:00", "02:00"]]
    data = hours.validate(
        {
            "weekly": {
                **dict.fromkeys(("mon", "tue", "wed", "thu"), lunch_and_night),
                "fri": [["10:00", "24:00"]],
                "sat": [["10:00", "24:00"]],
            },
            "closed_dates": ["2026-12-25"],
        }
    )

    assert hours.summary(data) == "10:00-14:00, 17:00-02:00"
    assert hours.summary(data, date(2026, 12, 4)) == "10:00-24:00"  # a Friday
    assert hours.summary(data, SUN) == ""  # closed on Sundays
    assert hours.summary(data, date(2026, 12, 25)) == ""  # a closed date
    assert hours.summary(None) == ""
    assert hours.summary(week()) == ""
    # A tie: the earliest weekday's.
    assert hours.summary(week(mon=[["09:00", "17:00"]], tue=[["10:00", "18:00"]])) == "09:00-17:00"


def test_the_longest_summary_fits_the_legacy_field() -> None:
    busiest = week(
        mon=[["00:00", "05:00"], ["06:00", "11:00"], ["12:00", "17:00"], ["18:00", "23:59"]]
    )

    assert len(hours.summary(busiest)) <= 64
