"""Sign-in history for `seed_demo`: the first demo user has a 12-day streak ending
yesterday (sign today to make it 13); the others signed on scattered days."""

from __future__ import annotations

import random
from datetime import timedelta

from accounts.models import User

from . import services


def seed_signins(users: list[User]) -> int:
    """Idempotent (a day signed twice is one bit); returns the sign-ins made."""
    rng = random.Random(7)
    today = services.today()
    made = 0
    for index, user in enumerate(users):
        scattered = [d for d in range(1, 61) if rng.random() < 0.6]
        days = range(1, 13) if index == 0 else scattered
        for back in days:
            made += services.sign(user_id=user.id, day=today - timedelta(days=back))["new"]
    return made
