"""The ranking formula (docs/rankings.md): the Bayesian prior, the minimum of reviewers,
popularity moving a shop up, and ties broken the same way whatever the input order."""

from __future__ import annotations

import pytest

from rankings import formula
from rankings.formula import Signals


def _shop(shop_id: int, *, reviewers: int = 5, ratings=(0, 0, 0, 0, 5), favourites=0, visitors=0):
    return Signals(
        shop_id=shop_id,
        reviewers=reviewers,
        ratings=ratings,
        favourites=favourites,
        visitors=visitors,
    )


def test_few_ratings_stay_near_the_city_mean(settings) -> None:
    settings.RANKING_PRIOR_WEIGHT = 10.0
    assert formula.bayesian_rating((0, 0, 0, 0, 0), 3.5) == 3.5
    assert formula.bayesian_rating((0, 0, 0, 0, 10), 3.0) == pytest.approx(4.0)
    # One 5-star rating does not beat forty 4.5-star ones.
    one = formula.bayesian_rating((0, 0, 0, 0, 1), 3.5)
    many = formula.bayesian_rating((0, 0, 0, 20, 20), 3.5)
    assert one < many
    assert formula.city_mean([(0, 0, 0, 0, 1), (0, 0, 1, 0, 0)]) == 4.0
    assert formula.city_mean([]) == formula.DEFAULT_MEAN


def test_shops_with_too_few_reviewers_are_not_ranked(settings) -> None:
    settings.RANKING_MIN_REVIEWS = 3
    shops = [_shop(1, reviewers=2), _shop(2, reviewers=3), _shop(3, reviewers=9)]
    assert [s.shop_id for s, _ in formula.ranked(shops, 3.5)] == [3, 2]


@pytest.mark.parametrize("signal", ["favourites", "visitors"])
def test_favourites_and_visitors_move_a_shop_up(signal) -> None:
    plain, popular = _shop(1), _shop(2, **{signal: 40})
    assert [s.shop_id for s, _ in formula.ranked([plain, popular], 3.5)] == [2, 1]


def test_ties_go_to_more_reviewers_then_the_smaller_id() -> None:
    a, b, c = _shop(7), _shop(3), _shop(5)
    same = formula.ranked([a, b, c], 3.5)
    assert [s.shop_id for s, _ in same] == [3, 5, 7]
    assert [s.shop_id for s, _ in formula.ranked([c, a, b], 3.5)] == [3, 5, 7]
    assert formula.score(a, 3.5) == formula.score(b, 3.5)


def test_equal_scores_go_to_more_reviewers(monkeypatch) -> None:
    monkeypatch.setattr(formula, "score", lambda shop, prior: 4.0)
    few, many = _shop(1, reviewers=4), _shop(2, reviewers=8)
    assert [s.shop_id for s, _ in formula.ranked([few, many], 3.5)] == [2, 1]
