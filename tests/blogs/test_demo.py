from __future__ import annotations

import pytest
from django.core.management import call_command

from accounts.models import User, UserInfo
from blogs import keys
from blogs.demo import NOTES, NOTES_BY_AUTHOR
from blogs.models import Blog, ShopRating
from follows.models import Follow
from shops.models import Shop
from shops.services import score_of
from tests.helpers import client_for


@pytest.mark.django_db(transaction=True)
def test_seed_demo_gives_the_hot_list_and_feeds_content(api, redis_client) -> None:
    call_command("seed_demo", "--force")
    call_command("seed_demo", "--force")  # idempotent: nothing doubles

    notes = Blog.objects.select_related("shop").filter(content__in=[c for *_, c in NOTES])
    notes = notes.order_by("id")
    assert len({blog.content for blog in notes}) == 40  # forty different notes
    # Each note is about a branch of the brand it names (its shop's name starts with it).
    shops = [blog.shop for blog in notes]
    assert [shop.name.split("(")[0] for shop in shops if shop] == [brand for brand, *_ in NOTES]
    hot = api.get("/api/blogs/hot").json()["results"]
    assert hot[0]["liked"] > 0
    assert hot[0]["liked"] == redis_client.zcard(keys.blog_likes(hot[0]["id"]))
    demo = User.objects.get(phone="13800000001")
    assert UserInfo.objects.get(user=demo).followee == Follow.objects.filter(user=demo).count() == 3
    assert client_for(demo).get("/api/feed").json()["results"]


@pytest.mark.django_db(transaction=True)
def test_demo_scores_come_from_ratings_in_the_notes_tone(api) -> None:
    call_command("seed_demo", "--force")

    assert not Blog.objects.filter(rating__isnull=True).exists()  # every demo note rates
    stars = dict(
        Blog.objects.filter(content__in=[c for *_, c in NOTES]).values_list("content", "rating")
    )
    assert stars[NOTES_BY_AUTHOR[3][0][2]] == 5  # 张伟's 9/10 for 鼎泰丰
    assert stars[NOTES_BY_AUTHOR[0][3][2]] == 3  # 小明's hard sell at 文峰
    rated = Shop.objects.filter(score__gt=0)
    assert rated.count() > 40  # the notes' shops and the short reviews'
    for shop in rated:
        histogram = {n: getattr(shop, f"rating_{n}") for n in range(1, 6)}
        assert shop.score == score_of(histogram)
        assert sum(histogram.values()) == ShopRating.objects.filter(shop=shop).count()
        reviewers = Blog.objects.filter(shop=shop).values("user_id").distinct().count()
        assert shop.comments == reviewers  # one review per reviewer (decision 286)
    shown = [api.get(f"/api/shops/{shop.id}").json()["ratings"] for shop in rated[:20]]
    assert any(sum(ratings) > 2 for ratings in shown)  # histograms with a shape


@pytest.mark.django_db(transaction=True)
def test_demo_reviews_have_sub_scores_and_helpful_votes(api, redis_client) -> None:
    from shops.scores import mean_x10

    call_command("seed_demo", "--force")

    scored = Blog.objects.filter(taste__isnull=False)
    assert scored.count() > Blog.objects.count() // 2
    assert not Blog.objects.filter(rating__isnull=True, taste__isnull=False).exists()
    shop = Shop.objects.filter(taste_count__gt=1).order_by("id").first()
    assert shop is not None
    ratings = ShopRating.objects.filter(shop=shop, taste__isnull=False)
    tastes = list(ratings.values_list("taste", flat=True))
    shown = api.get(f"/api/shops/{shop.id}").json()
    assert shown["sub_scores"]["taste"] == mean_x10(sum(tastes), len(tastes))
    assert shown["sub_score_counts"]["taste"] == len(tastes)
    voted = Blog.objects.filter(helpful__gt=0)
    assert voted.count() > 10
    for blog in voted[:10]:
        assert blog.helpful == redis_client.zcard(keys.blog_helpful(blog.id))
        assert not redis_client.zscore(keys.blog_helpful(blog.id), blog.user_id)  # not one's own
