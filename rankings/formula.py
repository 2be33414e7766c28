"""The ranking score of a shop (docs/rankings.md, decision 410): a Bayesian average of its
ratings, pulled toward its city's mean, plus log-scaled popularity. Pure functions, so the
formula is tested apart from where its inputs come from."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from django.conf import settings

DEFAULT_MEAN = 3.0  # the prior of a city without a single rating


@dataclass(frozen=True, slots=True)
class Signals:
    """What the formula reads of one shop."""

    shop_id: int
    reviewers: int  # users with a visible review (Shop.comments: one per user)
    ratings: Sequence[int]  # how many gave 1..5 stars (one per user)
    favourites: int  # saves within RANKING_FAVOURITE_DAYS
    visitors: int  # unique visitors summed over the days of RANKING_VIEW_DAYS


def city_mean(histograms: Sequence[Sequence[int]]) -> float:
    """The mean stars over every rating of the city's shops: the prior."""
    count = sum(sum(h) for h in histograms)
    stars = sum(sum((i + 1) * n for i, n in enumerate(h)) for h in histograms)
    return stars / count if count else DEFAULT_MEAN


def bayesian_rating(ratings: Sequence[int], prior: float) -> float:
    """(m * prior + sum of stars) / (m + n): few ratings stay near the city's mean."""
    m = settings.RANKING_PRIOR_WEIGHT
    count = sum(ratings)
    stars = sum((i + 1) * n for i, n in enumerate(ratings))
    return (m * prior + stars) / (m + count)


def score(shop: Signals, prior: float) -> float:
    """The shop's ranking score (higher is better), rounded to 4 places so that equal
    inputs tie exactly and the tie-break decides."""
    value = (
        bayesian_rating(shop.ratings, prior)
        + settings.RANKING_REVIEW_WEIGHT * math.log1p(shop.reviewers)
        + settings.RANKING_FAVOURITE_WEIGHT * math.log1p(shop.favourites)
        + settings.RANKING_VIEW_WEIGHT * math.log1p(shop.visitors)
    )
    return round(value, 4)


def eligible(shop: Signals) -> bool:
    """Only a shop with RANKING_MIN_REVIEWS reviewers is ranked."""
    return shop.reviewers >= settings.RANKING_MIN_REVIEWS


def ranked(shops: Sequence[Signals], prior: float) -> list[tuple[Signals, float]]:
    """The eligible shops best first with their scores: ties go to more reviewers, then
    to the older shop (the smaller id), so a list never depends on the query's order."""
    scored = [(shop, score(shop, prior)) for shop in shops if eligible(shop)]
    scored.sort(key=lambda pair: (-pair[1], -pair[0].reviewers, pair[0].shop_id))
    return scored
