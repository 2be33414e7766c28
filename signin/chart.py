"""A bar chart of UV and PV per day, as the coordinates of SVG rectangles the admin's
template draws: drawn on the server because the CSP allows no inline script."""

from __future__ import annotations

from typing import Any

WIDTH, HEIGHT = 600, 160
_GAP = 2  # between one day's pair of bars and the next


def daily_bars(by_day: list[dict[str, Any]]) -> dict[str, Any]:
    """Each day's PV bar and UV bar (UV beside it, the narrower), scaled to the window's
    highest PV; a window with no views draws no bars."""
    peak = max((day["pv"] for day in by_day), default=0) or 1
    slot = WIDTH / max(len(by_day), 1)
    bar = max((slot - _GAP) / 2, 1)
    bars = []
    for index, day in enumerate(by_day):
        pv_h = round(HEIGHT * day["pv"] / peak, 1)
        uv_h = round(HEIGHT * min(day["uv"], peak) / peak, 1)
        x = round(index * slot, 1)
        bars.append(
            {
                **day,
                "pv_x": x,
                "pv_y": round(HEIGHT - pv_h, 1),
                "pv_h": pv_h,
                "uv_x": round(x + bar, 1),
                "uv_y": round(HEIGHT - uv_h, 1),
                "uv_h": uv_h,
            }
        )
    return {"width": WIDTH, "height": HEIGHT, "bar": round(bar, 1), "peak": peak, "bars": bars}
