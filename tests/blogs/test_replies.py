"""A shop's official reply to a review (issue 38, item 4): written, edited and deleted by
a member of the shop's staff (owner or clerk) and nobody else; one per review, however
many members write at once; shown under the review in the note's detail and the shop's
reviews page (each read below is cached before the write, so each assertion after it
proves an eviction); reported and hidden like a comment; the reviewer told once."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from blogs import replies, services
from blogs.caches import blog_evict
from blogs.models import Blog, Report, ReviewReply
from notifications.models import Kind, Notification
from shops.models import ShopStaff
from tests.factories import BlogFactory, ShopFactory, UserFactory
from tests.helpers import client_for, run_concurrently

pytestmark = pytest.mark.django_db(transaction=True)  # evictions run after commit


def _member(shop, role: str = ShopStaff.Role.CLERK):
    member = UserFactory()
    ShopStaff.objects.create(shop=shop, user=member, role=role)
    return member


@pytest.fixture
def review():
    return BlogFactory(shop=ShopFactory(name="老王面馆"), rating=4)


def _put(api, blog_id: int, text: Any = "谢谢光临"):
    return api.put(f"/api/blogs/{blog_id}/reply", {"text": text}, format="json")


def _reviews(api, shop_id: int) -> dict[int, Any]:
    page = api.get(f"/api/shops/{shop_id}/reviews").json()
    return {blog["id"]: blog["reply"] for blog in page["results"]}


@pytest.mark.parametrize("role", [ShopStaff.Role.OWNER, ShopStaff.Role.CLERK])
def test_a_member_replies_edits_and_deletes(review, api, role) -> None:
    member = client_for(_member(review.shop, role))
    # Both reads cached (and kept near) before every write below.
    assert api.get(f"/api/blogs/{review.id}").json()["reply"] is None
    assert _reviews(api, review.shop_id) == {review.id: None}

    created = _put(member, review.id, "谢谢光临，欢迎再来")

    assert created.status_code == 201, created.content
    body = created.json()
    assert (body["shop_id"], body["shop_name"], body["role"], body["text"]) == (
        review.shop_id,
        "老王面馆",
        "merchant",
        "谢谢光临，欢迎再来",
    )
    assert api.get(f"/api/blogs/{review.id}").json()["reply"] == body
    assert _reviews(api, review.shop_id) == {review.id: body}

    edited = _put(member, review.id, "已改进，欢迎再来")

    assert edited.status_code == 200
    assert edited.json()["id"] == body["id"]
    assert api.get(f"/api/blogs/{review.id}").json()["reply"]["text"] == "已改进，欢迎再来"
    assert _reviews(api, review.shop_id)[review.id]["text"] == "已改进，欢迎再来"
    assert ReviewReply.objects.count() == 1

    assert member.delete(f"/api/blogs/{review.id}/reply").status_code == 204

    assert api.get(f"/api/blogs/{review.id}").json()["reply"] is None
    assert _reviews(api, review.shop_id) == {review.id: None}
    assert ReviewReply.objects.count() == 0
    assert member.delete(f"/api/blogs/{review.id}/reply").json()["code"] == "reply_not_found"


def test_owner_and_clerk_share_one_reply(review) -> None:
    owner = client_for(_member(review.shop, ShopStaff.Role.OWNER))
    clerk_user = _member(review.shop)
    assert _put(owner, review.id, "店主回复").status_code == 201
    assert _put(client_for(clerk_user), review.id, "店员补充").status_code == 200
    reply = ReviewReply.objects.get()
    assert (reply.text, reply.user_id) == ("店员补充", clerk_user.id)


def test_nobody_else_may_reply_or_delete(review, api) -> None:
    other_shop = ShopFactory()
    member = client_for(_member(review.shop))
    assert _put(member, review.id, "原回复").status_code == 201
    outsiders = [
        client_for(_member(other_shop, ShopStaff.Role.OWNER)),
        client_for(_member(other_shop, ShopStaff.Role.CLERK)),
        client_for(UserFactory()),
        client_for(review.user),  # the reviewer
        client_for(UserFactory(is_staff=True)),  # site staff moderate, in the admin
    ]
    for outsider in outsiders:
        path = f"/api/blogs/{review.id}/reply"
        for answer in (_put(outsider, review.id, "冒充"), outsider.delete(path)):
            assert answer.status_code == 404
            assert answer.json()["code"] == "review_not_found"
    for anonymous in (_put(api, review.id, "x"), api.delete(f"/api/blogs/{review.id}/reply")):
        assert anonymous.status_code == 401
    assert list(ReviewReply.objects.values_list("text", flat=True)) == ["原回复"]


def test_a_note_that_is_no_review_has_no_reply() -> None:
    shop = ShopFactory()
    member = client_for(_member(shop))
    unrated = BlogFactory(shop=shop, rating=None)
    about_nothing = BlogFactory()
    hidden = BlogFactory(shop=shop, rating=5)
    services.blog_hide(blog_id=hidden.id)
    for blog_id in (unrated.id, about_nothing.id, hidden.id, 999_999):
        answer = _put(member, blog_id)
        assert (answer.status_code, answer.json()["code"]) == (404, "review_not_found")
    assert ReviewReply.objects.count() == 0


@pytest.mark.parametrize(
    "body",
    [{}, {"text": ""}, {"text": "   "}, {"text": "x" * 1001}, {"text": 5}, {"text": ["a"]}],
)
def test_bad_input_is_a_400_and_changes_nothing(review, api, body) -> None:
    member = client_for(_member(review.shop))
    assert _put(member, review.id, "原回复").status_code == 201
    assert api.get(f"/api/blogs/{review.id}").json()["reply"]["text"] == "原回复"  # cached

    answer = member.put(f"/api/blogs/{review.id}/reply", body, format="json")

    assert answer.status_code == 400
    assert list(ReviewReply.objects.values_list("text", flat=True)) == ["原回复"]
    assert api.get(f"/api/blogs/{review.id}").json()["reply"]["text"] == "原回复"


def test_two_members_replying_at_once_make_one_reply(review) -> None:
    """Decision 328: they queue on the review's row; the first creates (201), the other
    replaces its text (200); never two rows, never a 500."""
    members = [_member(review.shop, role) for role in (ShopStaff.Role.OWNER, ShopStaff.Role.CLERK)]
    apis = [client_for(m) for m in members]

    statuses = run_concurrently(lambda i: _put(apis[i], review.id, f"回复 {i}").status_code, 2)

    assert sorted(statuses) == [200, 201]
    reply = ReviewReply.objects.get()
    assert reply.text == f"回复 {statuses.index(200)}"  # the later write's words
    assert Notification.objects.filter(kind=Kind.REVIEW_REPLIED).count() == 1


def test_the_reviewer_is_told_once(review) -> None:
    member = client_for(_member(review.shop))
    reviewer = client_for(review.user)
    _put(member, review.id, "谢谢")
    _put(member, review.id, "谢谢，已改")  # an edit tells nothing more
    member.delete(f"/api/blogs/{review.id}/reply")
    _put(member, review.id, "再写一次")  # nor a reply written again

    items = reviewer.get("/api/notifications").json()["results"]

    assert [(n["kind"], n["blog"]["id"], n["shop"], n["actor"]) for n in items] == [
        ("review_replied", review.id, {"id": review.shop_id, "name": "老王面馆"}, None)
    ]


def test_a_hidden_reply_is_not_shown_and_its_notification_goes(review, api) -> None:
    member = client_for(_member(review.shop))
    reply_id = _put(member, review.id, "广告内容").json()["id"]
    reader = client_for(UserFactory())
    assert api.get(f"/api/blogs/{review.id}").json()["reply"]["id"] == reply_id  # cached
    assert _reviews(api, review.shop_id)[review.id]["id"] == reply_id

    report = reader.post(
        "/api/reports", {"kind": "reply", "id": reply_id, "reason": "spam"}, format="json"
    )
    assert report.status_code == 201, report.content
    services.moderate(kind=Report.Kind.REPLY, target_id=reply_id, hide=True, by_user_id=None)

    assert api.get(f"/api/blogs/{review.id}").json()["reply"] is None
    assert _reviews(api, review.shop_id) == {review.id: None}
    assert Report.objects.get().status == Report.Status.HIDDEN
    assert not Notification.objects.filter(kind=Kind.REVIEW_REPLIED).exists()
    again = reader.post(
        "/api/reports", {"kind": "reply", "id": reply_id, "reason": "spam"}, format="json"
    )
    assert (again.status_code, again.json()["code"]) == (409, "report_target_not_found")
    # Not edited back into view; deleted, it may be written anew.
    refused = _put(member, review.id, "换个说法")
    assert (refused.status_code, refused.json()["code"]) == (409, "reply_hidden")
    assert ReviewReply.objects.get().text == "广告内容"

    replies.reply_restore(reply_id=reply_id)

    assert api.get(f"/api/blogs/{review.id}").json()["reply"]["text"] == "广告内容"
    assert member.delete(f"/api/blogs/{review.id}/reply").status_code == 204


def test_the_admin_hides_and_restores_replies(review, api, admin_client) -> None:
    member = client_for(_member(review.shop))
    reply_id = _put(member, review.id).json()["id"]
    assert api.get(f"/api/blogs/{review.id}").json()["reply"] is not None  # cached
    url = "/admin/blogs/reviewreply/"

    admin_client.post(url, {"action": "hide", "_selected_action": [reply_id]})
    assert api.get(f"/api/blogs/{review.id}").json()["reply"] is None
    admin_client.post(url, {"action": "restore", "_selected_action": [reply_id]})
    assert api.get(f"/api/blogs/{review.id}").json()["reply"]["id"] == reply_id


def test_a_review_moved_to_another_shop_loses_its_reply(review, api) -> None:
    member = client_for(_member(review.shop))
    _put(member, review.id)
    author = client_for(review.user)
    other = ShopFactory()

    moved = author.patch(f"/api/blogs/{review.id}", {"shop_id": other.id}, format="json")

    assert moved.status_code == 200
    assert moved.json()["reply"] is None
    assert api.get(f"/api/blogs/{review.id}").json()["reply"] is None
    assert not ReviewReply.objects.exists()


def test_a_renamed_shop_shows_its_new_name_on_its_replies(review, api, staff_api) -> None:
    _put(client_for(_member(review.shop)), review.id)
    assert api.get(f"/api/blogs/{review.id}").json()["reply"]["shop_name"] == "老王面馆"  # cached

    answer = staff_api.patch(f"/api/shops/{review.shop_id}", {"name": "王记面馆"}, format="json")

    assert answer.status_code == 200, answer.content
    assert api.get(f"/api/blogs/{review.id}").json()["reply"]["shop_name"] == "王记面馆"


def test_the_reviews_page_reads_replies_in_its_one_query() -> None:
    shop = ShopFactory()
    member = client_for(_member(shop))
    for _ in range(5):
        blog = BlogFactory(shop=shop, rating=3)
        _put(member, blog.id, f"回复 {blog.id}")
    reader = client_for(UserFactory())
    assert len(_reviews(reader, shop.id)) == 5  # the page's documents cached

    with CaptureQueriesContext(connection) as queries:
        page = _reviews(reader, shop.id)
    assert len(queries) == 0
    assert all(reply["text"] == f"回复 {blog_id}" for blog_id, reply in page.items())

    blog_evict(*page)  # the documents gone (here and near), the page's ids kept
    with CaptureQueriesContext(connection) as queries:
        assert _reviews(reader, shop.id) == page
    assert len(queries) == 1  # every missing document, its reply and shop name: one query


def test_the_reply_state_says_who_may_reply(review, api) -> None:
    owner = client_for(_member(review.shop, ShopStaff.Role.OWNER))
    path = f"/api/shops/{review.shop_id}/reviews/reply-state"
    assert owner.get(path).json() == {"can_reply": True, "role": "owner"}
    assert client_for(UserFactory()).get(path).json() == {"can_reply": False, "role": None}
    assert api.get(path).status_code == 401
    assert owner.get("/api/shops/999999/reviews/reply-state").status_code == 404


def test_the_shop_s_owners_hear_of_a_new_review(api) -> None:
    shop = ShopFactory(name="小李烧烤")
    owners = [_member(shop, ShopStaff.Role.OWNER) for _ in range(2)]
    clerk = _member(shop)
    reviewer = UserFactory()
    note = {"title": "好吃", "content": "推荐", "shop_id": shop.id, "rating": 5}

    created = client_for(reviewer).post("/api/blogs", note, format="json")
    client_for(reviewer).post("/api/blogs", {**note, "rating": None}, format="json")  # no review

    own = client_for(owners[0]).post("/api/blogs", note, format="json")  # an owner's review
    blog_id, own_id = created.json()["id"], own.json()["id"]
    told = Notification.objects.filter(kind=Kind.SHOP_REVIEWED).order_by("id")
    assert list(told.values_list("recipient_id", "blog_id", "shop_id", "actor_id")) == [
        (owners[0].id, blog_id, shop.id, reviewer.id),
        (owners[1].id, blog_id, shop.id, reviewer.id),
        (owners[1].id, own_id, shop.id, owners[0].id),  # not told of their own
    ]
    assert not Notification.objects.filter(recipient=clerk).exists()
    item = client_for(owners[0]).get("/api/notifications").json()["results"][0]
    assert (item["kind"], item["shop"], item["actor"]["id"]) == (
        "shop_reviewed",
        {"id": shop.id, "name": "小李烧烤"},
        reviewer.id,
    )
    assert Blog.objects.count() == 3
