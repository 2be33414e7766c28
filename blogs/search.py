"""Notes as search documents (search.documents): found by title and text while visible
(a moderator's hide drops them); ranked among equals by likes, then comments."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from search.documents import Ranking, Source, Texts

from .models import Blog, Visibility
from .serializers import BlogSerializer


class NoteSource(Source):
    kind = "notes"
    number = 2
    weights = {"title": 10, "content": 1}
    ranking = Ranking(
        model=Blog, popularity=("liked", "comments"), visible={"status": Visibility.VISIBLE}
    )
    item_serializer = BlogSerializer
    highlighted = ("title", "content")

    def texts(self, ids: Iterable[int], *, lock: bool = False) -> dict[int, Texts]:
        blogs = Blog.objects.filter(pk__in=list(ids))
        if lock:
            blogs = blogs.select_for_update()  # hidden ones too: their hide may be racing
        rows = blogs.values_list("id", "title", "content", "status")
        return {
            blog_id: {"title": title, "content": content}
            for blog_id, title, content, status in rows
            if status == Visibility.VISIBLE
        }

    def all_ids(self) -> Any:
        return (
            Blog.objects.filter(status=Visibility.VISIBLE)
            .order_by("id")
            .values_list("id", flat=True)
        )

    def items(self, ids: list[int], *, viewer_id: int | None) -> dict[int, dict[str, Any]]:
        """As the hot list shows them: with the author, live likes and `is_liked`."""
        from . import likes
        from .selectors import blog_documents

        documents = blog_documents(ids)
        likes.overlay(documents, viewer_id)
        return {doc["id"]: doc for doc in documents}
