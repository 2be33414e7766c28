"""Reports and moderation: a hidden note or comment leaves every list and cache (each read
below is cached before the hide, so each assertion proves an eviction), and restoring
brings it back; reports queue in the admin, whose actions call the same services."""

from __future__ import annotations

from typing import Any

import pytest

from blogs import services
from blogs.models import Blog, BlogComment, Report, Visibility
from follows import services as follows
from tests.factories import BlogFactory, UserFactory
from tests.helpers import client_for, run_concurrently

pytestmark = pytest.mark.django_db(transaction=True)  # evictions run after commit


def _ids(page: dict[str, Any]) -> list[int]:
    return [item["id"] for item in page["results"]]


def _feed(api) -> list[int]:
    return _ids(api.get("/api/feed").json())


def test_a_hidden_note_leaves_every_list_and_cache_and_comes_back(user, api) -> None:
    author = UserFactory()
    author_api = client_for(author)
    follows.follow(user_id=user.id, target_id=author.id)
    reader = client_for(user)
    kept = author_api.post("/api/blogs", {"title": "kept", "content": "c"}, format="json")
    note = author_api.post("/api/blogs", {"title": "bad", "content": "c"}, format="json")
    kept_id, note_id = kept.json()["id"], note.json()["id"]
    comment = reader.post(f"/api/blogs/{note_id}/comments", {"content": "hi"}, format="json")
    # Every read cached first.
    assert api.get(f"/api/blogs/{note_id}").status_code == 200
    assert _ids(api.get("/api/blogs/hot").json()) == [note_id, kept_id]
    assert _ids(api.get(f"/api/users/{author.id}/blogs").json()) == [note_id, kept_id]
    assert _feed(reader) == [note_id, kept_id]

    services.blog_hide(blog_id=note_id)

    for caller in (api, reader, author_api):  # the author too
        assert caller.get(f"/api/blogs/{note_id}").status_code == 404
    hot = api.get("/api/blogs/hot").json()
    assert (_ids(hot), hot["count"]) == ([kept_id], 1)
    page = api.get(f"/api/users/{author.id}/blogs").json()
    assert (_ids(page), page["count"]) == ([kept_id], 1)
    assert _ids(author_api.get("/api/blogs/mine").json()) == [kept_id]
    assert _feed(reader) == [kept_id]
    assert api.get(f"/api/blogs/{note_id}/comments").status_code == 404
    assert reader.post(f"/api/blogs/{note_id}/like").status_code == 404
    assert (
        reader.post(f"/api/blogs/{note_id}/comments", {"content": "x"}, format="json").status_code
        == 404
    )
    assert (
        author_api.patch(f"/api/blogs/{note_id}", {"title": "ok now?"}, format="json").status_code
        == 404
    )
    assert Blog.objects.get(pk=note_id).title == "bad"

    services.blog_restore(blog_id=note_id)

    assert api.get(f"/api/blogs/{note_id}").json()["comments"] == 1
    assert _ids(api.get("/api/blogs/hot").json()) == [note_id, kept_id]
    assert _ids(api.get(f"/api/users/{author.id}/blogs").json()) == [note_id, kept_id]
    assert _feed(reader) == [note_id, kept_id]
    listed = api.get(f"/api/blogs/{note_id}/comments").json()["results"]
    assert [c["id"] for c in listed] == [comment.json()["id"]]


def test_hiding_is_idempotent_and_deleting_a_hidden_note_still_works(user, user_api) -> None:
    blog = BlogFactory(user=user)
    services.blog_hide(blog_id=blog.id)
    services.blog_hide(blog_id=blog.id)
    assert Blog.objects.get(pk=blog.id).status == Blog.Status.HIDDEN

    assert user_api.delete(f"/api/blogs/{blog.id}").status_code == 204
    assert not Blog.objects.filter(pk=blog.id).exists()


def test_a_hidden_comment_leaves_the_list_and_the_count(user, user_api, api) -> None:
    blog = BlogFactory()
    ids = [
        user_api.post(f"/api/blogs/{blog.id}/comments", {"content": f"c{i}"}, format="json").json()[
            "id"
        ]
        for i in range(3)
    ]
    assert api.get(f"/api/blogs/{blog.id}").json()["comments"] == 3  # cached

    services.comment_hide(comment_id=ids[1])
    services.comment_hide(comment_id=ids[1])  # idempotent: counted once

    assert api.get(f"/api/blogs/{blog.id}").json()["comments"] == 2
    listed = api.get(f"/api/blogs/{blog.id}/comments").json()["results"]
    assert [c["id"] for c in listed] == [ids[0], ids[2]]
    services.comment_restore(comment_id=ids[1])
    services.comment_restore(comment_id=ids[1])
    assert api.get(f"/api/blogs/{blog.id}").json()["comments"] == 3
    assert Blog.objects.get(pk=blog.id).comments == 3


def test_reporting_once_per_user_and_target(user, user_api, api) -> None:
    blog = BlogFactory()
    comment = BlogComment.objects.create(blog=blog, user=blog.user, content="rude")
    body = {"kind": "blog", "id": blog.id, "reason": "spam", "text": "广告"}

    first = user_api.post("/api/reports", body, format="json")
    again = user_api.post("/api/reports", {**body, "reason": "abuse"}, format="json")

    assert first.status_code == 201
    assert first.json() | {"created_at": None} == {
        "id": first.json()["id"],
        "kind": "blog",
        "target_id": blog.id,
        "reason": "spam",
        "text": "广告",
        "status": "open",
        "created_at": None,
    }
    assert (again.status_code, again.json()) == (200, first.json())
    other = client_for(UserFactory()).post("/api/reports", body, format="json")
    assert other.status_code == 201
    on_comment = {"kind": "comment", "id": comment.id, "reason": "abuse"}
    assert user_api.post("/api/reports", on_comment, format="json").status_code == 201
    assert Report.objects.count() == 3


@pytest.mark.parametrize(
    "body",
    [
        {"kind": "shop", "id": 1, "reason": "spam"},
        {"kind": "blog", "id": 0, "reason": "spam"},
        {"kind": "blog", "id": "1", "reason": "spam"},
        {"kind": "blog", "id": 1, "reason": "boring"},
        {"kind": "blog", "id": 1, "reason": "spam", "text": "x" * 501},
        {"kind": "blog", "id": 1, "reason": "spam", "text": "\u202e"},
        {"kind": "blog", "reason": "spam"},
    ],
)
def test_bad_reports_are_400(user_api, body) -> None:
    BlogFactory()
    assert user_api.post("/api/reports", body, format="json").status_code == 400
    assert not Report.objects.exists()


def test_reports_of_nothing_need_login_and_a_visible_target(user_api, api) -> None:
    blog = BlogFactory()
    body = {"kind": "blog", "id": blog.id, "reason": "spam"}
    assert api.post("/api/reports", body, format="json").status_code == 401
    missing = user_api.post("/api/reports", {**body, "id": 987654}, format="json")
    assert (missing.status_code, missing.json()["code"]) == (409, "report_target_not_found")
    comment = {"kind": "comment", "id": blog.id + 987654, "reason": "spam"}
    assert user_api.post("/api/reports", comment, format="json").status_code == 409
    on_hidden = services.comment_create(blog_id=blog.id, user_id=blog.user_id, content="c")
    services.blog_hide(blog_id=blog.id)
    assert user_api.post("/api/reports", body, format="json").status_code == 409
    on_it = {"kind": "comment", "id": on_hidden.id, "reason": "spam"}  # a comment on it
    assert user_api.post("/api/reports", on_it, format="json").status_code == 409
    assert not Report.objects.exists()


def test_racing_duplicate_reports_make_one(user) -> None:
    blog = BlogFactory()
    apis = [client_for(user) for _ in range(8)]
    body = {"kind": "blog", "id": blog.id, "reason": "fake"}

    statuses = run_concurrently(
        lambda i: apis[i].post("/api/reports", body, format="json").status_code, workers=8
    )

    assert sorted(statuses) == [200] * 7 + [201]
    assert Report.objects.count() == 1


def test_the_admin_queue_hides_and_restores_the_targets(user, admin_client, api) -> None:
    blog = BlogFactory()
    comment = BlogComment.objects.create(blog=blog, user=blog.user, content="rude")
    Blog.objects.filter(pk=blog.pk).update(comments=1)
    reporters = [client_for(UserFactory()) for _ in range(2)]
    for reporter in reporters:
        reporter.post(
            "/api/reports", {"kind": "blog", "id": blog.id, "reason": "spam"}, format="json"
        )
    reporters[0].post(
        "/api/reports", {"kind": "comment", "id": comment.id, "reason": "abuse"}, format="json"
    )
    assert api.get(f"/api/blogs/{blog.id}").status_code == 200  # cached
    listing = admin_client.get("/admin/blogs/report/?status__exact=open")
    assert listing.content.count(b'name="_selected_action"') == 3  # the open queue
    comment_report = Report.objects.get(kind="comment").pk

    admin_client.post(
        "/admin/blogs/report/", {"action": "hide", "_selected_action": [comment_report]}
    )

    assert BlogComment.objects.get(pk=comment.pk).status == BlogComment.Status.HIDDEN
    assert api.get(f"/api/blogs/{blog.id}").json()["comments"] == 0
    assert Report.objects.get(pk=comment_report).status == "hidden"
    blog_reports = list(Report.objects.filter(kind="blog").values_list("pk", flat=True))
    admin_client.post(
        "/admin/blogs/report/", {"action": "hide", "_selected_action": blog_reports[:1]}
    )
    assert api.get(f"/api/blogs/{blog.id}").status_code == 404
    # One action closes every open report of the target, and records who did it.
    handled = Report.objects.filter(kind="blog")
    assert {(r.status, r.open, r.handled_by_id) for r in handled} == {
        ("hidden", None, Report.objects.get(pk=comment_report).handled_by_id)
    }
    # Handled, a target may be reported again.
    again = reporters[0].post(
        "/api/reports", {"kind": "comment", "id": comment.id, "reason": "abuse"}, format="json"
    )
    assert again.status_code == 409  # hidden: nothing to report
    admin_client.post(
        "/admin/blogs/report/", {"action": "restore", "_selected_action": blog_reports[:1]}
    )
    assert api.get(f"/api/blogs/{blog.id}").status_code == 200
    assert Report.objects.filter(kind="blog", status="dismissed").count() == 0  # none open


def test_blog_and_comment_admin_actions(user, admin_client, api) -> None:
    blog = BlogFactory()
    comment = BlogComment.objects.create(blog=blog, user=user, content="c")
    Blog.objects.filter(pk=blog.pk).update(comments=1)
    assert api.get(f"/api/blogs/{blog.id}").json()["comments"] == 1

    admin_client.post(
        "/admin/blogs/blogcomment/", {"action": "hide", "_selected_action": [comment.pk]}
    )
    assert api.get(f"/api/blogs/{blog.id}").json()["comments"] == 0
    admin_client.post("/admin/blogs/blog/", {"action": "hide", "_selected_action": [blog.pk]})
    assert api.get(f"/api/blogs/{blog.id}").status_code == 404
    admin_client.post("/admin/blogs/blog/", {"action": "restore", "_selected_action": [blog.pk]})
    admin_client.post(
        "/admin/blogs/blogcomment/", {"action": "restore", "_selected_action": [comment.pk]}
    )
    assert api.get(f"/api/blogs/{blog.id}").json()["comments"] == 1
    # An operator's delete goes through the service: the count follows.
    admin_client.post(
        "/admin/blogs/blogcomment/",
        {"action": "delete_selected", "_selected_action": [comment.pk], "post": "yes"},
    )
    assert not BlogComment.objects.exists()
    assert api.get(f"/api/blogs/{blog.id}").json()["comments"] == 0


def test_the_queue_shows_what_was_reported_and_who_wrote_it(admin_client) -> None:
    author = UserFactory(nick_name="阿强")
    blog = BlogFactory(user=author, title="避雷", content="老板态度很差，" * 40)
    comment = BlogComment.objects.create(
        blog=blog, user=UserFactory(nick_name="小李"), content="加我微信"
    )
    reporter = UserFactory(nick_name="热心网友")
    api = client_for(reporter)
    api.post("/api/reports", {"kind": "blog", "id": blog.id, "reason": "fake"}, format="json")
    api.post("/api/reports", {"kind": "comment", "id": comment.id, "reason": "spam"}, format="json")

    listing = admin_client.get("/admin/blogs/report/").content.decode()

    assert "避雷 · 老板态度很差" in listing
    assert "…" in listing
    assert "加我微信" in listing
    assert "阿强" in listing
    assert "小李" in listing
    assert "热心网友" in listing
    assert f'href="/admin/blogs/blog/{blog.id}/change/"' in listing
    assert f'href="/admin/blogs/blogcomment/{comment.id}/change/"' in listing
    # The web client reads a note, and a comment, on the note's page.
    assert listing.count(f'href="/#/blogs/{blog.id}"') == 2


def test_a_report_page_hides_and_restores_with_buttons_and_saves_nothing(admin_client, api) -> None:
    blog = BlogFactory(title="广告帖")
    client_for(UserFactory()).post(
        "/api/reports", {"kind": "blog", "id": blog.id, "reason": "spam"}, format="json"
    )
    report = Report.objects.get()
    url = f"/admin/blogs/report/{report.id}/change/"

    page = admin_client.get(url).content.decode()
    assert 'name="_save"' not in page
    assert 'name="_continue"' not in page
    assert f'action="/admin/blogs/report/{report.id}/hide/"' in page
    assert "csrfmiddlewaretoken" in page
    assert "广告帖" in page
    assert admin_client.get(f"/admin/blogs/report/{report.id}/hide/").status_code == 405

    hidden = admin_client.post(
        f"/admin/blogs/report/{report.id}/hide/", follow=True, HTTP_ACCEPT_LANGUAGE="en"
    )

    assert hidden.redirect_chain[-1][0] == url
    assert [str(m) for m in hidden.context["messages"]] == ["1 reported items handled."]
    assert Blog.objects.get(pk=blog.pk).status == Visibility.HIDDEN
    assert api.get(f"/api/blogs/{blog.id}").status_code == 404
    assert Report.objects.get().status == Report.Status.HIDDEN
    after = hidden.content.decode()
    assert f'action="/admin/blogs/report/{report.id}/restore/"' in after
    assert f'action="/admin/blogs/report/{report.id}/hide/"' not in after

    admin_client.post(f"/admin/blogs/report/{report.id}/restore/")

    assert api.get(f"/api/blogs/{blog.id}").status_code == 200
