"""Offline evaluation of "guess you like" (decision 408): a generated interaction log with
known tastes, one interaction held out per user, hit rate at 10 of the co-occurrence model
against the popularity baseline. The model is trained and scored by the production code
(recommendations.model: the rebuild's trainer and the endpoint's `rank`), not a copy.

    make bench-recommend            (or: .venv/bin/python bench/recommend_eval.py --users 3000)

Tastes: each shop has a type and an area; each user loves one type and lives in one area.
An interaction is, with probability TASTE, a shop of their type (in their area with
probability HOME, else anywhere); otherwise a shop drawn by overall popularity (a Zipf
law over shops), the noise every real log has. Each user's last interaction is held out;
the rest, fed in time order, train the model; a hit is the held-out shop in the ten
suggested (never one the user already interacted with, as the endpoint never suggests what
the reader rated or saved)."""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere

from recommendations.model import CoOccurrence, rank

TYPES, AREAS, PER_CELL = 8, 6, 8  # 384 shops
TASTE, HOME = 0.75, 0.7
K = 10


def generate(users: int, seed: int) -> list[list[int]]:
    """Per user, their distinct shops in the order they met them."""
    rng = random.Random(seed)
    shops = [(t, a) for t in range(TYPES) for a in range(AREAS) for _ in range(PER_CELL)]
    by_type: dict[int, list[int]] = {}
    by_cell: dict[tuple[int, int], list[int]] = {}
    for shop_id, (t, a) in enumerate(shops):
        by_type.setdefault(t, []).append(shop_id)
        by_cell.setdefault((t, a), []).append(shop_id)
    order = list(range(len(shops)))
    rng.shuffle(order)
    zipf = [1 / (rank + 1) for rank in range(len(shops))]
    logs = []
    for _ in range(users):
        loved, home = rng.randrange(TYPES), rng.randrange(AREAS)
        length = rng.randint(4, 14)
        seen: list[int] = []
        while len(seen) < length:
            if rng.random() < TASTE:
                pool = by_cell[(loved, home)] if rng.random() < HOME else by_type[loved]
                shop = rng.choice(pool)
            else:
                shop = rng.choices(order, weights=zipf)[0]
            if shop not in seen:
                seen.append(shop)
        logs.append(seen)
    return logs


def evaluate(logs: list[list[int]]) -> dict[str, float]:
    events = []
    clock = 0
    held_out = {}
    for user, shops in enumerate(logs):
        *train, held_out[user] = shops
        for shop in train:  # users' logs interleave in time as the generator met them
            clock += 1
            events.append((user, shop, clock))
    started = time.perf_counter()
    model = CoOccurrence().add_all(events)
    trained = time.perf_counter() - started
    popular = [shop for shop, _ in model.popularity.most_common()]
    neighbours = {shop: model.neighbours(shop) for shop in model.pairs}
    hits = Counter[str]()
    started = time.perf_counter()
    for user, shops in enumerate(logs):
        seen = set(shops[:-1])
        recent = model.recent(user)
        ranked = rank(recent, [neighbours.get(s, []) for s in recent], seen, K)
        filler = [s for s in popular if s not in seen and s not in ranked]
        served = ranked + filler[: K - len(ranked)]
        baseline = [s for s in popular if s not in seen][:K]
        hits["co-occurrence"] += held_out[user] in ranked
        hits["co-occurrence, filled with popular (as served)"] += held_out[user] in served
        hits["popularity"] += held_out[user] in baseline
    scored = time.perf_counter() - started
    rates = {name: count / len(logs) for name, count in hits.items()}
    rates["train s"], rates["score ms/user"] = trained, 1000 * scored / len(logs)
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=3000)
    parser.add_argument("--seeds", type=int, default=3, help="runs, each with its own log")
    args = parser.parse_args()
    print(f"{args.users} users, {TYPES * AREAS * PER_CELL} shops, hit rate at {K}:")
    print("| seed | popularity | co-occurrence | co-occurrence + popular filler | train s |")
    print("| --- | --- | --- | --- | --- |")
    for seed in range(1, args.seeds + 1):
        r = evaluate(generate(args.users, seed))
        served = r["co-occurrence, filled with popular (as served)"]
        figures = (r["popularity"], r["co-occurrence"], served)
        print(f"| {seed} | " + " | ".join(f"{f:.3f}" for f in figures) + f" | {r['train s']:.2f} |")


if __name__ == "__main__":
    main()
