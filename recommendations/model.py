"""Item-to-item co-occurrence, the model behind "guess you like" (decision 404): two
shops are neighbours when the same users interacted with both, weighted like a cosine,
co(a, b) / sqrt(users(a) * users(b)), so a shop everyone visits does not crowd out the
rest. The same rules run three ways: in Redis, incrementally, on each event
(recommendations.store and its scripts); here, in memory, for the rebuild command and the
offline evaluation (bench/recommend_eval.py); and `rank`, the one scoring function the
endpoint and the evaluation share."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

HISTORY = 20  # a user's last N interactions: only these pair with a new one, and score
NEIGHBOURS = 50  # neighbours kept per shop (the strongest by weight)
SCORED = 20  # of which the strongest count toward a reader's scores (and are read)


def weight(count: int, users_a: int, users_b: int) -> float:
    """A pair's weight: its co-occurrence count normalised by both shops' popularity."""
    return count / math.sqrt(max(users_a * users_b, 1))


class CoOccurrence:
    """The model trained from interactions fed in time order, as the Redis side would
    have seen them: a shop already among a user's last HISTORY interactions only moves up
    (it pairs and counts once); a new one pairs with each of those and counts one more
    user of the shop."""

    def __init__(self, *, history: int = HISTORY, neighbours: int = NEIGHBOURS) -> None:
        self.history_size = history
        self.neighbour_size = neighbours
        self.histories: dict[int, dict[int, float]] = defaultdict(dict)  # user -> shop -> at
        self.popularity: Counter[int] = Counter()
        self.pairs: dict[int, Counter[int]] = defaultdict(Counter)

    def add(self, user_id: int, shop_id: int, at: float) -> None:
        history = self.histories[user_id]
        if shop_id in history:
            history[shop_id] = max(history[shop_id], at)
            return
        for other in history:
            self.pairs[shop_id][other] += 1
            self.pairs[other][shop_id] += 1
        self.popularity[shop_id] += 1
        history[shop_id] = at
        if len(history) > self.history_size:
            del history[min(history, key=lambda s: (history[s], s))]

    def add_all(self, events: Iterable[tuple[int, int, float]]) -> CoOccurrence:
        """Feed (user, shop, at) events, sorted by time first."""
        for user_id, shop_id, at in sorted(events, key=lambda e: (e[2], e[0], e[1])):
            self.add(user_id, shop_id, at)
        return self

    def neighbours(self, shop_id: int) -> list[tuple[int, float]]:
        """The shop's strongest NEIGHBOURS as (shop, weight), strongest first."""
        pop = self.popularity
        weighted = [
            (other, weight(count, pop[shop_id], pop[other]))
            for other, count in self.pairs.get(shop_id, Counter()).items()
        ]
        weighted.sort(key=lambda pair: (-pair[1], pair[0]))
        return weighted[: self.neighbour_size]

    def recent(self, user_id: int) -> list[int]:
        """The user's last interactions, newest first (as the Redis history is read)."""
        history = self.histories.get(user_id, {})
        return sorted(history, key=lambda s: (-history[s], s))


def rank(
    recent: Sequence[int],
    neighbour_lists: Sequence[Sequence[tuple[int, float]]],
    exclude: Iterable[int],
    limit: int,
) -> list[int]:
    """A user's suggestions: each shop scored by the sum of its weights as a neighbour of
    the user's recent shops (among each one's SCORED strongest), best first (ties by id),
    leaving out the recent shops themselves and `exclude` (what the user rated or saved)."""
    left_out = set(recent) | set(exclude)
    totals: dict[int, float] = defaultdict(float)
    for neighbours in neighbour_lists:
        for shop_id, shop_weight in neighbours[:SCORED]:
            if shop_id not in left_out:
                totals[shop_id] += shop_weight
    return sorted(totals, key=lambda s: (-totals[s], s))[:limit]
