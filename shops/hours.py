"""Structured opening hours (`Shop.hours`): the format, its validation, "open now" and the
legacy `open_hours` text (decisions 320-322).

The format, as stored and as the API shows it::

    {
      "weekly": {                              # weekday -> its opening ranges
        "mon": [["10:00", "14:00"], ["17:00", "02:00"]],
        "tue": [["10:00", "22:00"]],
        ...
        "sun": []                              # [] or a missing weekday: closed all day
      },
      "closed_dates": ["2026-12-25"]           # local dates closed all day (holidays)
    }

- Weekdays are `mon` … `sun`; times are `HH:MM` on the 24-hour clock, local time in
  `settings.TIME_ZONE` (there is no per-shop time zone). A range opens at its start and
  closes at its end (the end minute itself is closed).
- At most 4 ranges a day, which never overlap (touching is fine: 10:00-14:00, 14:00-18:00).
- A range whose end is at or before its start runs overnight into the next day: 17:00-02:00
  is open from 17:00 until 02:00 the next morning (Sunday's runs into Monday). Its part after
  midnight must not overlap the next day's ranges. An equal start and end is refused (use
  00:00-24:00 for a whole day); `24:00` is allowed as an end only.
- `closed_dates`: at most 60 distinct `YYYY-MM-DD` dates. A closed date closes the whole
  local calendar day, from 00:00 to 24:00: the part after midnight of the previous evening's
  overnight range closes too (the shop closes at midnight before a holiday), and the
  holiday's own overnight range never opens, so nothing of it runs into the next day.
- Asia/Shanghai (the default TIME_ZONE) has no daylight saving time, so every local day has
  24 hours; in a zone with DST, local wall-clock times are used as they are (a range over a
  skipped hour is simply shorter).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo

import orjson
from django.conf import settings
from django.utils.translation import gettext

from .errors import InvalidHours

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")  # datetime.weekday() order
MAX_RANGES_PER_DAY = 4
MAX_CLOSED_DATES = 60
KEYS = ("weekly", "closed_dates")
_DAY_MINUTES = 24 * 60
_TIME = re.compile(r"^(?:[01]\d|2[0-3]):[0-5]\d$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")

Hours = dict[str, Any]


def validate(data: Any) -> Hours:
    """`data` as stored: every weekday present (closed ones as []), each day's ranges in
    order of their start, the closed dates sorted and without repeats. Raises InvalidHours
    (a 400 with code `invalid_hours`) naming the first problem found."""
    if not isinstance(data, dict):
        _fail(gettext('Opening hours must be an object with "weekly" and "closed_dates".'))
    unknown = sorted(str(key) for key in data if key not in KEYS)
    if unknown:
        _fail(gettext("Unknown key in opening hours: %(key)s.") % {"key": unknown[0]})
    weekly = data.get("weekly", {})
    if not isinstance(weekly, dict):
        _fail(gettext('"weekly" must be an object of weekdays (mon … sun).'))
    unknown = sorted(str(key) for key in weekly if key not in DAYS)
    if unknown:
        message = gettext("Unknown weekday %(day)s: use mon, tue, wed, thu, fri, sat, sun.")
        _fail(message % {"day": unknown[0]})
    normal = {day: _day_ranges(day, weekly.get(day, [])) for day in DAYS}
    _refuse_spills_into_next_day(normal)
    return {"weekly": normal, "closed_dates": _closed_dates(data.get("closed_dates", []))}


def _day_ranges(day: str, ranges: Any) -> list[list[str]]:
    if not isinstance(ranges, list):
        _fail(gettext("%(day)s: a list of [start, end] ranges is expected.") % {"day": day})
    if len(ranges) > MAX_RANGES_PER_DAY:
        message = gettext("%(day)s: at most %(limit)s ranges a day.")
        _fail(message % {"day": day, "limit": MAX_RANGES_PER_DAY})
    parsed = sorted(_range(day, r) for r in ranges)
    for (_, end), (start, _) in itertools.pairwise(parsed):
        if start < end:
            _fail(gettext("%(day)s: opening ranges overlap.") % {"day": day})
    return [[_text(start), _text(end, end=True)] for start, end in parsed]


def _range(day: str, pair: Any) -> tuple[int, int]:
    """A range as minutes from the day's midnight, its end past 1440 when it runs overnight."""
    if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(t, str) for t in pair)):
        message = gettext('%(day)s: each range is ["HH:MM", "HH:MM"] (start, end).')
        _fail(message % {"day": day})
    start, end = pair
    if not _TIME.match(start):
        message = gettext("%(day)s: %(time)s is not a start time (00:00 to 23:59).")
        _fail(message % {"day": day, "time": _shown(start)})
    if not (_TIME.match(end) or end == "24:00"):
        message = gettext("%(day)s: %(time)s is not an end time (00:00 to 24:00).")
        _fail(message % {"day": day, "time": _shown(end)})
    first, last = _minutes(start), _minutes(end)
    if first == last:
        message = gettext(
            "%(day)s: a range cannot start and end at one time (00:00-24:00 is all day)."
        )
        _fail(message % {"day": day})
    return first, last if last > first else last + _DAY_MINUTES


def _refuse_spills_into_next_day(weekly: dict[str, list[list[str]]]) -> None:
    for n, day in enumerate(DAYS):
        ranges = weekly[day]
        if not ranges:
            continue
        spill = _span(ranges[-1])[1] - _DAY_MINUTES  # the last starts latest: only it may spill
        after = weekly[DAYS[(n + 1) % 7]]
        if spill > 0 and after and _span(after[0])[0] < spill:
            message = gettext("%(day)s: its overnight range overlaps %(next)s's first range.")
            _fail(message % {"day": day, "next": DAYS[(n + 1) % 7]})


def _closed_dates(dates: Any) -> list[str]:
    if not isinstance(dates, list):
        _fail(gettext('"closed_dates" must be a list of dates (YYYY-MM-DD).'))
    if len(dates) > MAX_CLOSED_DATES:
        _fail(gettext("At most %(limit)s closed dates.") % {"limit": MAX_CLOSED_DATES})
    for text in dates:
        if not (isinstance(text, str) and _DATE.match(text) and _is_date(text)):
            _fail(gettext("%(date)s is not a date (YYYY-MM-DD).") % {"date": _shown(text)})
    return sorted(set(dates))


def _is_date(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _shown(value: Any) -> str:
    return value[:20] if isinstance(value, str) else type(value).__name__


def _fail(message: str) -> None:
    raise InvalidHours(message)


def _minutes(text: str) -> int:
    return int(text[:2]) * 60 + int(text[3:])


def _text(minutes: int, *, end: bool = False) -> str:
    if end and minutes == _DAY_MINUTES:
        return "24:00"
    minutes %= _DAY_MINUTES
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _span(pair: list[str]) -> tuple[int, int]:
    """A stored range as (start, end) minutes from its day's midnight, end > start."""
    start, end = _minutes(pair[0]), _minutes(pair[1])
    return start, end if end > start else end + _DAY_MINUTES


def is_open(hours: Hours, at: datetime) -> bool:
    """Whether a shop with these (validated) hours is open at the aware time `at`."""
    local = at.astimezone(_zone())
    schedule = _compiled(orjson.dumps(hours))
    return _open_in(schedule, local)


def open_now(hours: Hours | None, at: datetime) -> bool | None:
    """The API's `open_now`: None for a shop without structured hours."""
    return None if hours is None else is_open(hours, at)


# The answers of one clock minute, per distinct hours JSON: `open_now` can only change
# when the minute does, and a list of ten cards then costs ten dictionary reads.
_this_minute: tuple[tuple[int, str], dict[bytes, bytes]] = ((-1, ""), {})
_MINUTE_ANSWERS_MAX = 4096


def open_now_json(raw_hours: bytes, at: datetime) -> bytes:
    """`open_now` as JSON (true, false or null) from the hours' JSON as the cached document
    holds them: the shop detail's fast path never decodes the rest of the document."""
    global _this_minute
    if raw_hours == b"null":
        return b"null"
    minute = (int(at.timestamp()) // 60, settings.TIME_ZONE)
    held_minute, answers = _this_minute
    if held_minute != minute:  # a new dict, never a cleared one: no thread mixes minutes
        answers = {}
        _this_minute = (minute, answers)
    answer = answers.get(raw_hours)
    if answer is None:
        answer = b"true" if _open_in(_compiled(raw_hours), at.astimezone(_zone())) else b"false"
        if len(answers) < _MINUTE_ANSWERS_MAX:
            answers[raw_hours] = answer
    return answer


# (per weekday: its ranges as (start, end) minutes, end > start), the closed dates
_Schedule = tuple[tuple[tuple[tuple[int, int], ...], ...], frozenset[str]]


@lru_cache(maxsize=4096)
def _compiled(raw: bytes) -> _Schedule:
    """Hours parsed once per distinct JSON: each read then costs a few comparisons."""
    hours = orjson.loads(raw)
    weekly = hours.get("weekly") or {}
    days = tuple(tuple(_span(pair) for pair in weekly.get(day) or ()) for day in DAYS)
    return days, frozenset(hours.get("closed_dates") or ())


def _open_in(schedule: _Schedule, local: datetime) -> bool:
    days, closed = schedule
    today = local.date()
    if closed and today.isoformat() in closed:
        return False  # the whole local day, the night before's overnight tail included
    minute = local.hour * 60 + local.minute
    weekday = today.weekday()
    if any(start <= minute < end for start, end in days[weekday]):
        return True
    yesterday = today - timedelta(days=1)
    if closed and yesterday.isoformat() in closed:
        return False  # a closed day's overnight range never opened
    return any(minute < end - _DAY_MINUTES for _, end in days[(weekday - 1) % 7])


@lru_cache(maxsize=1)
def _zone_named(name: str) -> ZoneInfo:
    return ZoneInfo(name)


def _zone() -> ZoneInfo:
    return _zone_named(settings.TIME_ZONE)


def summary(hours: Hours | None, day: date | None = None) -> str:
    """The legacy `open_hours` text, as "10:00-14:00, 17:00-02:00": with `day`, that local
    day's ranges ("" when it is closed); without, the most common weekday's (ties: the
    earliest weekday), ignoring closed weekdays unless every day is closed."""
    if not hours:
        return ""
    weekly = hours.get("weekly") or {}
    if day is not None:
        if day.isoformat() in (hours.get("closed_dates") or ()):
            return ""
        return _joined(weekly.get(DAYS[day.weekday()]) or [])
    texts = [_joined(weekly.get(name) or []) for name in DAYS]
    counts = Counter(text for text in texts if text)
    if not counts:
        return ""
    return max(counts, key=lambda text: (counts[text], -texts.index(text)))


def _joined(ranges: list[list[str]]) -> str:
    return ", ".join(f"{start}-{end}" for start, end in ranges)
