"""Shared pieces of the feed tests: publish a note, read an inbox, scroll a feed."""

from __future__ import annotations

from blogs import keys


def publish(author_api, title: str) -> int:
    response = author_api.post("/api/blogs", {"title": title, "content": "c"}, format="json")
    assert response.status_code == 201
    return response.json()["id"]


def inbox(redis_client, user) -> list[int]:
    return [int(member) for member in redis_client.zrevrange(keys.feed_inbox(user.id), 0, -1)]


def scroll(reader_api, between_pages=lambda: None) -> list[int]:
    seen: list[int] = []
    params: dict[str, int] = {}
    for _ in range(100):
        page = reader_api.get("/api/feed", params).json()
        if not page["results"]:
            return seen
        seen += [blog["id"] for blog in page["results"]]
        params = {"max_time": page["min_time"], "offset": page["offset"]}
        between_pages()
    raise AssertionError("the scroll never ended")
