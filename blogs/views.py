"""Thin viewsets for blogs, likes, comments, user pages and the feed."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework import status, viewsets
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import tokens
from accounts.authentication import authenticated_id
from accounts.selectors import public_user_document
from accounts.serializers import PublicUserSerializer
from toolkit.api import idempotency, saved
from toolkit.api.fastpath import fast_path, json_response
from toolkit.api.lists import listed
from toolkit.api.pagination import PageNumberPagination
from toolkit.api.queries import query_params
from toolkit.api.schema import PAGE_PARAMETER, PAGE_PARAMETERS, api_errors, paged
from toolkit.api.throttles import WriteLimited
from toolkit.errors import NotAuthenticated
from traffic.visitors import count_page

from . import feed, helpful, likes, pages, replies, selectors, services
from .serializers import (
    BlogSerializer,
    BlogWriteSerializer,
    CommentSerializer,
    CommentWriteSerializer,
    FeedPageSerializer,
    FeedQuerySerializer,
    HelpfulStateSerializer,
    LikeStateSerializer,
    ReplySerializer,
    ReplyStateSerializer,
    ReplyWriteSerializer,
    ReportSerializer,
    ReportWriteSerializer,
    ReviewQuerySerializer,
    UserBlogsPageSerializer,
)


def _caller_id(request: Request) -> int | None:
    return request.user.id if request.user.is_authenticated else None


def _blogs(request: Request, blogs: list[Any], **kwargs: Any) -> list[dict[str, Any]]:
    liked, marked = likes.reader_states([b.id for b in blogs], _caller_id(request))
    context = {"liked": liked, "saved": marked}
    return listed(BlogSerializer(blogs, many=True, context=context, **kwargs))


class BlogViewSet(WriteLimited, viewsets.ViewSet):
    _public = ("retrieve", "hot", "likes", "comments")
    write_limits = {
        "create": "blog_user",
        "comment": "comment_user",
        "delete_comment": "comment_user",
        "like": "like_user",
        "helpful": "helpful_user",
    }

    def get_permissions(self):
        return [AllowAny()] if self.action in self._public else [IsAuthenticated()]

    def is_replay(self, request: Request) -> bool:
        return self.action == "create" and idempotency.stored(
            request, scope="blog", user_id=authenticated_id(request)
        )

    @extend_schema(
        parameters=[
            idempotency.header_parameter(
                "Retries with the same key (24 h) answer the first publication again, with "
                "`Idempotent-Replayed: true`, instead of publishing twice, and use none of "
                "the write limit; the same key with another body is a 409 "
                "`idempotency_key_reused`, and while the first request "
                "still runs a duplicate waits briefly, then 409 `idempotency_in_progress`; "
                "once the note it published is deleted, the key is a 409 "
                "`idempotency_key_spent`."
            )
        ],
        request=BlogWriteSerializer,
        responses={201: BlogSerializer},
    )
    @api_errors(409)  # the Idempotency-Key: first request differs, still runs, or was deleted
    def create(self, request: Request) -> Response:
        """Publish a blog; it is pushed to the author's followers' feeds."""
        serializer = BlogWriteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user_id = authenticated_id(request)

        def publish() -> Response:
            blog = services.blog_create(user_id=user_id, data=serializer.validated_data)
            blog = selectors.blog_get(blog_id=blog.id)
            return Response(_blogs(request, [blog])[0], status=status.HTTP_201_CREATED)

        return idempotency.once(
            request,
            scope="blog",
            user_id=user_id,
            run=publish,
            still_there=lambda body: selectors.blog_stored(blog_id=body["id"]),
        )

    @extend_schema(request=BlogWriteSerializer, responses=BlogSerializer)
    @api_errors(403)  # not the author
    def partial_update(self, request: Request, blog_id: int) -> Response:
        """Author only (others 403)."""
        serializer = BlogWriteSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        services.blog_update(
            blog_id=blog_id, user_id=authenticated_id(request), data=serializer.validated_data
        )
        return Response(_blogs(request, [selectors.blog_get(blog_id=blog_id)])[0])

    @extend_schema(responses={204: None})
    @api_errors(403)  # not the author
    def destroy(self, request: Request, blog_id: int) -> Response:
        """Author only (others 403)."""
        services.blog_delete(blog_id=blog_id, user_id=authenticated_id(request))
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(request=None, responses={200: LikeStateSerializer})
    def like(self, request: Request, blog_id: int) -> Response:
        """`POST` likes, `DELETE` unlikes; both idempotent. Answers the new state."""
        change = likes.blog_like if request.method == "POST" else likes.blog_unlike
        return Response(change(blog_id=blog_id, user_id=authenticated_id(request)))

    @extend_schema(request=None, responses={200: HelpfulStateSerializer})
    @api_errors(403, 409)  # own_review; not_a_review: a note about no shop
    def helpful(self, request: Request, blog_id: int) -> Response:
        """`PUT` votes a review (a note about a shop) helpful, `DELETE` takes the vote back;
        both idempotent, one vote per user. Your own review: 403 `own_review` (a `DELETE`
        is always accepted); a note about no shop: 409 `not_a_review`. Answers the new
        state."""
        user_id = authenticated_id(request)
        if request.method == "PUT":
            return Response(helpful.helpful_vote(blog_id=blog_id, user_id=user_id))
        return Response(helpful.helpful_unvote(blog_id=blog_id, user_id=user_id))

    @extend_schema(responses=PublicUserSerializer(many=True))
    def likes(self, request: Request, blog_id: int) -> Response:
        """The first 5 users who liked the blog, in like order."""
        return Response(PublicUserSerializer(likes.top_likers(blog_id=blog_id), many=True).data)

    @extend_schema(parameters=PAGE_PARAMETERS, responses=paged(CommentSerializer))
    def comments(self, request: Request, blog_id: int) -> Response:
        """Comments, oldest first, 10 a page."""
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(selectors.blog_comments(blog_id=blog_id), request, self)
        return paginator.get_paginated_response(CommentSerializer(page, many=True).data)

    @extend_schema(request=CommentWriteSerializer, responses={201: CommentSerializer})
    @api_errors(409)  # parent_not_found: a reply to no comment of this note
    def comment(self, request: Request, blog_id: int) -> Response:
        serializer = CommentWriteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        comment = services.comment_create(
            blog_id=blog_id, user_id=authenticated_id(request), **serializer.validated_data
        )
        return Response(CommentSerializer(comment).data, status=status.HTTP_201_CREATED)

    @extend_schema(responses={204: None})
    @api_errors(403)  # not the comment's author
    def delete_comment(self, request: Request, blog_id: int, comment_id: int) -> Response:
        """Delete your own comment (others 403), with the replies beneath it; the note's
        `comments` count drops by as many."""
        services.comment_delete(
            blog_id=blog_id, comment_id=comment_id, user_id=authenticated_id(request)
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class ReplyViewSet(WriteLimited, viewsets.ViewSet):
    """A shop's official reply to a review, by a member of its staff (owner or clerk)."""

    permission_classes = [IsAuthenticated]
    write_limits = {"update": "reply_user", "destroy": "reply_user"}

    @extend_schema(
        request=ReplyWriteSerializer,
        responses={201: ReplySerializer, 200: ReplySerializer},
    )
    @api_errors(409)  # reply_hidden: a moderator hid the reply
    def update(self, request: Request, blog_id: int) -> Response:
        """Write the shop's reply to a review (201), or edit it (200): one reply per
        review, whichever member of the shop's staff writes it. 404 `review_not_found`
        for a note that is no visible review (a rated note about a shop) or a review of a
        shop the caller does not work at. Two members at once: one creates it (201), the
        other's text replaces it (200). Creating it tells the reviewer, once."""
        serializer = ReplyWriteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        reply, created = replies.reply_save(
            blog_id=blog_id, user_id=authenticated_id(request), **serializer.validated_data
        )
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        reply = selectors.reply_get(reply_id=reply.id)
        return Response(ReplySerializer(reply).data, status=code)

    @extend_schema(responses={204: None})
    def destroy(self, request: Request, blog_id: int) -> Response:
        """Delete the shop's reply (a member of its staff); 404 `review_not_found` as for
        `PUT`, `reply_not_found` when the review has none."""
        replies.reply_delete(blog_id=blog_id, user_id=authenticated_id(request))
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(responses=ReplyStateSerializer)
    def state(self, request: Request, shop_id: int) -> Response:
        """Whether the caller works at the shop, and so may reply to its reviews."""
        selectors.shop_exists(shop_id=shop_id)
        role = replies.member_role(user_id=authenticated_id(request), shop_id=shop_id)
        return Response({"can_reply": role is not None, "role": role})


class ReportViewSet(WriteLimited, viewsets.ViewSet):
    permission_classes = [IsAuthenticated]
    write_limits = {"create": "report_user"}

    @extend_schema(
        request=ReportWriteSerializer, responses={201: ReportSerializer, 200: ReportSerializer}
    )
    @api_errors(409)  # report_target_not_found: no such visible note, comment or reply
    def create(self, request: Request) -> Response:
        """Report a note (`blog`), a comment or a shop's reply (`reply`) to the moderators.
        One open report per user and target: reporting it again while it waits answers 200
        with that report."""
        serializer = ReportWriteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        report, created = services.report_create(
            user_id=authenticated_id(request),
            kind=data["kind"],
            target_id=data["id"],
            reason=data["reason"],
            text=data["text"],
        )
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(ReportSerializer(report).data, status=code)


# The reads, without DRF (toolkit.api.fastpath): the caller's token refreshed with the
# live like counts, `is_liked` and `saved` in one round trip (accounts.tokens.touch_with),
# the blogs from their cached documents (the process's near copies first).

States = tuple[dict[int, tuple[int, bool]], dict[int, bool], dict[int, bool]]


def _with_likes(request: HttpRequest, blog_ids: list[int]) -> tuple[States, int | None]:
    """The caller's token refreshed and the blogs' live like states (count, liked by the
    caller), the caller's helpful votes and `saved` markers, read in the same round trip
    (accounts.tokens.touch_with); and who the caller is (None: anonymous)."""

    def reads(pipe: Any, viewer_id: int | None) -> None:
        saved.queue_saved(pipe, viewer_id, saved.BLOG, blog_ids)
        likes.queue_like_states(pipe, blog_ids, viewer_id)
        helpful.queue_voted(pipe, blog_ids, viewer_id)

    viewer, replies = tokens.touch_with(request, reads)
    viewer_id = viewer["id"] if viewer else None
    marked, replies = saved.read_saved(replies, viewer_id, blog_ids)
    asked = len(blog_ids) if viewer_id is not None else 0  # queue_like_states' replies
    liked = likes.read_like_states(replies[:asked], blog_ids, viewer_id, counts=True)
    return (liked, helpful.read_voted(replies[asked:], blog_ids, viewer_id), marked), viewer_id


def _apply(blogs: list[dict[str, Any]], states: States) -> None:
    liked, voted, marked = states
    for blog in blogs:
        blog["liked"], blog["is_liked"] = liked[blog["id"]]
        blog["voted_helpful"] = voted[blog["id"]]
        blog["saved"] = marked[blog["id"]]


def _blog_detail(request: HttpRequest, blog_id: int) -> HttpResponse:
    states, viewer_id = _with_likes(request, [blog_id])
    blog = selectors.blog_document(blog_id=blog_id)
    _apply([blog], states)
    count_page(request, "note", viewer_id)  # after the read: a missing note counts nowhere
    return json_response(blog)


def _liked_documents(request: HttpRequest, ids: list[int]) -> list[dict[str, Any]]:
    """A page's blogs from their cache, with live like counts and `is_liked` read in the
    caller's token round trip."""
    states, _ = _with_likes(request, ids)
    blogs = selectors.blog_documents(ids)
    _apply(blogs, states)
    return blogs


def _hot_ids(request: HttpRequest) -> tuple[PageNumberPagination, list[int]]:
    """The page asked for, and the ids of its blogs, most liked first."""
    paginator = PageNumberPagination()
    paginator.begin(request)
    paginator.count, ids = selectors.hot_page(offset=paginator.offset, size=paginator.size)
    return paginator, ids


def _hot(request: HttpRequest) -> HttpResponse:
    """The popular notes: the home page's main read, whose first page counts as a view of
    the home page (later pages are the same page scrolled)."""
    paginator, ids = _hot_ids(request)
    states, viewer_id = _with_likes(request, ids)
    blogs = selectors.blog_documents(ids)
    _apply(blogs, states)
    if paginator.page == 1:
        count_page(request, "home", viewer_id)
    return json_response(paginator.page_body(blogs))


def _review_ids(request: HttpRequest, shop_id: int) -> tuple[PageNumberPagination, list[int]]:
    """The page asked for, and the ids of its notes about the shop."""
    query = query_params(request, ReviewQuerySerializer)
    paginator = PageNumberPagination()
    paginator.begin(request)
    paginator.count, ids = selectors.shop_reviews_page(
        shop_id=shop_id,
        sort=query["sort"],
        offset=paginator.offset,
        size=paginator.size,
        with_photos=query["with_photos"],
        stars=query.get("stars"),
    )
    return paginator, ids


def _shop_reviews(request: HttpRequest, shop_id: int) -> HttpResponse:
    paginator, ids = _review_ids(request, shop_id)
    return json_response(paginator.page_body(_liked_documents(request, ids)))


def _user_blogs(request: HttpRequest, user_id: int | None) -> HttpResponse:
    """A user's page of blogs; the caller's own when `user_id` is None."""
    paginator = PageNumberPagination()
    number, _ = paginator.begin(request, fixed_size=pages.PAGE_SIZE)
    viewer, _ = tokens.touch_with(request)
    viewer_id = viewer["id"] if viewer else None
    if user_id is None:
        if viewer_id is None:
            raise NotAuthenticated()
        user_id = viewer_id
    author = public_user_document(user_id=user_id)
    paginator.count, items = pages.user_blogs_page(
        user_id=user_id, page=number, caller_id=viewer_id
    )
    return json_response({**paginator.page_body(items), "user": author})


def _feed(request: HttpRequest) -> HttpResponse:
    query = query_params(request, FeedQuerySerializer)
    max_time, offset = query.get("max_time"), query["offset"]
    guessed: list[int] = []

    def first_reads(pipe: Any, viewer_id: int | None) -> None:
        if viewer_id is not None:
            guessed[:] = feed.queue_first_reads(
                pipe, user_id=viewer_id, max_time=max_time, offset=offset
            )

    viewer, replies = tokens.touch_with(request, first_reads)
    if viewer is None:
        raise NotAuthenticated()
    page = feed.feed_page(
        user_id=viewer["id"],
        max_time=max_time,
        offset=offset,
        first_reads=replies,
        guessed=guessed,
    )
    if max_time is None:  # the feed opened, not scrolled
        count_page(request, "feed", viewer["id"])
    return json_response(page)


# Redis unreachable, an anonymous caller: the same answers from the database (the caches
# fall back to it), each blog's `liked` the database's count, which follows the likers'
# set (blogs.likes), and `is_liked` false.


def _unliked(blogs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for blog in blogs:
        blog["is_liked"] = blog["voted_helpful"] = blog["saved"] = False
    return blogs


def _blog_detail_without_redis(request: HttpRequest, blog_id: int) -> HttpResponse:
    return json_response(_unliked([selectors.blog_document(blog_id=blog_id)])[0])


def _hot_without_redis(request: HttpRequest) -> HttpResponse:
    paginator, ids = _hot_ids(request)
    return json_response(paginator.page_body(_unliked(selectors.blog_documents(ids))))


def _shop_reviews_without_redis(request: HttpRequest, shop_id: int) -> HttpResponse:
    paginator, ids = _review_ids(request, shop_id)
    return json_response(paginator.page_body(_unliked(selectors.blog_documents(ids))))


def _user_blogs_without_redis(request: HttpRequest, user_id: int) -> HttpResponse:
    paginator = PageNumberPagination()
    number, _ = paginator.begin(request, fixed_size=pages.PAGE_SIZE)
    author = public_user_document(user_id=user_id)
    paginator.count, items = pages.user_blogs_from_database(user_id=user_id, page=number)
    return json_response({**paginator.page_body(_unliked(items)), "user": author})


@fast_path(
    "GET",
    "retrieve",
    viewset=BlogViewSet,
    actions={"patch": "partial_update", "delete": "destroy"},
    without_redis=_blog_detail_without_redis,
)
@extend_schema(responses=BlogSerializer)
def blog_detail_view(request: HttpRequest, blog_id: int) -> HttpResponse:
    """A blog with its author and whether the caller likes it (cached; the like
    count, `is_liked` and `saved` are read live)."""
    return _blog_detail(request, blog_id)


@fast_path("GET", "hot", viewset=BlogViewSet, without_redis=_hot_without_redis)
@extend_schema(parameters=PAGE_PARAMETERS, responses=paged(BlogSerializer))
def hot_view(request: HttpRequest) -> HttpResponse:
    """Most liked first (ties newest first), 10 a page."""
    return _hot(request)


@fast_path("GET", "list", permission_classes=[AllowAny], without_redis=_shop_reviews_without_redis)
@extend_schema(
    parameters=[ReviewQuerySerializer, *PAGE_PARAMETERS], responses=paged(BlogSerializer)
)
def shop_reviews_view(request: HttpRequest, shop_id: int) -> HttpResponse:
    """The notes about a shop (its reviews, each with the author's `rating` and
    sub-scores if they gave them), 10 a page, newest, most liked or most helpful first,
    optionally only those with photos or with a number of stars; `count` is how many
    notes match."""
    return _shop_reviews(request, shop_id)


@fast_path("GET", "list", permission_classes=[AllowAny], without_redis=_user_blogs_without_redis)
@extend_schema(parameters=[PAGE_PARAMETER], responses=UserBlogsPageSerializer)
def user_blogs_view(request: HttpRequest, user_id: int) -> HttpResponse:
    """A user's blogs, newest first, 10 a page (each page cached on first read)."""
    return _user_blogs(request, user_id)


@fast_path("GET", "mine", permission_classes=[IsAuthenticated])
@extend_schema(parameters=[PAGE_PARAMETER], responses=UserBlogsPageSerializer)
def my_blogs_view(request: HttpRequest) -> HttpResponse:
    """The caller's own blogs, as `GET /api/users/{id}/blogs`."""
    return _user_blogs(request, None)


@fast_path("GET", "list", permission_classes=[IsAuthenticated])
@extend_schema(parameters=[FeedQuerySerializer], responses=FeedPageSerializer)
def feed_view(request: HttpRequest) -> HttpResponse:
    """Blogs of the people you follow, newest first. Scroll by passing the previous
    page's `min_time` as `max_time` and its `offset`; stop at an empty page."""
    return _feed(request)
