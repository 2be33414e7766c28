"""What a report is about, as a moderator needs it to decide: the reported note,
comment or shop's reply (its excerpt, author and visibility) and where to read it, in
the admin and on the site (the web client's hash routes: a comment or a reply is read on
its note's page). One query per kind for a page of reports."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Model
from django.urls import reverse

from .models import Blog, BlogComment, Report, ReviewReply, Visibility

EXCERPT_CHARS = 120


@dataclass(frozen=True, slots=True)
class Reported:
    excerpt: str
    author: Model | None  # the user who wrote it (a reply's: gone with their account)
    hidden: bool
    admin_url: str
    site_url: str


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1] + "…"


def _target(obj: Blog | BlogComment | ReviewReply, text: str, model: str, note_id: int) -> Reported:
    """A reported note, comment or reply: its excerpt, author, state and two links (a
    comment or reply has no page of its own on the site: its note's)."""
    return Reported(
        excerpt=_excerpt(text),
        author=obj.user,
        hidden=obj.status == Visibility.HIDDEN,
        admin_url=reverse(f"admin:blogs_{model}_change", args=[obj.pk]),
        site_url=f"/#/blogs/{note_id}",
    )


def _blog(blog: Blog) -> Reported:
    return _target(blog, f"{blog.title} · {blog.content}", "blog", blog.pk)


def _comment(comment: BlogComment) -> Reported:
    return _target(comment, comment.content, "blogcomment", comment.blog_id)


def _reply(reply: ReviewReply) -> Reported:
    return _target(reply, reply.text, "reviewreply", reply.review_id)


def reported(reports: Iterable[Report]) -> dict[tuple[str, int], Reported]:
    """Each report's target by (kind, target_id); a target deleted since is absent."""
    ids: dict[str, set[int]] = {}
    for report in reports:
        ids.setdefault(report.kind, set()).add(report.target_id)
    found: dict[tuple[str, int], Reported] = {}
    if blogs := ids.get(Report.Kind.BLOG):
        for blog in Blog.objects.select_related("user").filter(pk__in=blogs):
            found[Report.Kind.BLOG, blog.pk] = _blog(blog)
    if comments := ids.get(Report.Kind.COMMENT):
        for comment in BlogComment.objects.select_related("user").filter(pk__in=comments):
            found[Report.Kind.COMMENT, comment.pk] = _comment(comment)
    if replies := ids.get(Report.Kind.REPLY):
        for reply in ReviewReply.objects.select_related("user").filter(pk__in=replies):
            found[Report.Kind.REPLY, reply.pk] = _reply(reply)
    return found
