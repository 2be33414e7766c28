"""Thin viewsets for blogs, likes, comments, user pages and the feed."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import status, viewsets
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.selectors import user_get
from accounts.serializers import PublicUserSerializer
from dianping.api.pagination import PageNumberPagination
from dianping.api.queries import query_params
from dianping.api.schema import PAGE_PARAMETER, PAGE_PARAMETERS, api_errors, paged
from dianping.api.throttles import WriteLimited

from . import feed, likes, pages, selectors, services
from .serializers import (
    BlogSerializer,
    BlogWriteSerializer,
    CommentSerializer,
    CommentWriteSerializer,
    FeedPageSerializer,
    FeedQuerySerializer,
    LikeStateSerializer,
    UserBlogsPageSerializer,
)


def _caller_id(request: Request) -> int | None:
    return request.user.id if request.user.is_authenticated else None


def _blogs(request: Request, blogs: list[Any], **kwargs: Any) -> list[dict[str, Any]]:
    liked = likes.like_states([b.id for b in blogs], _caller_id(request))
    return BlogSerializer(blogs, many=True, context={"liked": liked}, **kwargs).data


class BlogViewSet(WriteLimited, viewsets.ViewSet):
    _public = ("retrieve", "hot", "likes", "comments")
    write_limits = {"create": "blog_user", "comment": "comment_user", "like": "like_user"}

    def get_permissions(self):  # type: ignore[no-untyped-def]
        return [AllowAny()] if self.action in self._public else [IsAuthenticated()]

    @extend_schema(request=BlogWriteSerializer, responses={201: BlogSerializer})
    def create(self, request: Request) -> Response:
        """Publish a blog; it is pushed to the author's followers' feeds."""
        serializer = BlogWriteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        blog = services.blog_create(user_id=request.user.id, data=serializer.validated_data)
        blog = selectors.blog_get(blog_id=blog.id)
        return Response(_blogs(request, [blog])[0], status=status.HTTP_201_CREATED)

    @extend_schema(responses=BlogSerializer)
    def retrieve(self, request: Request, blog_id: int) -> Response:
        """A blog with its author and whether the caller likes it (cached; the like
        count and `is_liked` are read live)."""
        return Response(selectors.blog_detail(blog_id=blog_id, viewer_id=_caller_id(request)))

    @extend_schema(request=BlogWriteSerializer, responses=BlogSerializer)
    @api_errors(403)  # not the author
    def partial_update(self, request: Request, blog_id: int) -> Response:
        """Author only (others 403)."""
        serializer = BlogWriteSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        services.blog_update(
            blog_id=blog_id, user_id=request.user.id, data=serializer.validated_data
        )
        return Response(_blogs(request, [selectors.blog_get(blog_id=blog_id)])[0])

    @extend_schema(responses={204: None})
    @api_errors(403)  # not the author
    def destroy(self, request: Request, blog_id: int) -> Response:
        """Author only (others 403)."""
        services.blog_delete(blog_id=blog_id, user_id=request.user.id)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(parameters=PAGE_PARAMETERS, responses=paged(BlogSerializer))
    def hot(self, request: Request) -> Response:
        """Most liked first, 10 a page."""
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(selectors.hot_blogs(), request, self)
        return paginator.get_paginated_response(_blogs(request, page))

    @extend_schema(request=None, responses={200: LikeStateSerializer})
    def like(self, request: Request, blog_id: int) -> Response:
        """`POST` likes, `DELETE` unlikes; both idempotent. Answers the new state."""
        change = likes.blog_like if request.method == "POST" else likes.blog_unlike
        return Response(change(blog_id=blog_id, user_id=request.user.id))

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
            blog_id=blog_id, user_id=request.user.id, **serializer.validated_data
        )
        return Response(CommentSerializer(comment).data, status=status.HTTP_201_CREATED)


class UserBlogsViewSet(viewsets.ViewSet):
    def get_permissions(self):  # type: ignore[no-untyped-def]
        return [IsAuthenticated()] if self.action == "mine" else [AllowAny()]

    @extend_schema(parameters=[PAGE_PARAMETER], responses=UserBlogsPageSerializer)
    def list(self, request: Request, user_id: int) -> Response:
        """A user's blogs, newest first, 10 a page (each page cached on first read)."""
        return self._page(request, user_id)

    @extend_schema(parameters=[PAGE_PARAMETER], responses=UserBlogsPageSerializer)
    def mine(self, request: Request) -> Response:
        """The caller's own blogs, as `GET /api/users/{id}/blogs`."""
        return self._page(request, request.user.id)

    def _page(self, request: Request, user_id: int) -> Response:
        paginator = PageNumberPagination()
        number, _ = paginator.begin(request, fixed_size=pages.PAGE_SIZE)
        author = user_get(user_id=user_id)
        paginator.count, items = pages.user_blogs_page(
            user_id=user_id, page=number, caller_id=_caller_id(request)
        )
        response = paginator.get_paginated_response(items)
        response.data["user"] = PublicUserSerializer(author).data
        return response


class FeedViewSet(viewsets.ViewSet):
    permission_classes = [IsAuthenticated]

    @extend_schema(parameters=[FeedQuerySerializer], responses=FeedPageSerializer)
    def list(self, request: Request) -> Response:
        """Blogs of the people you follow, newest first. Scroll by passing the previous
        page's `min_time` as `max_time` and its `offset`; stop at an empty page."""
        query = query_params(request, FeedQuerySerializer)
        page = feed.feed_page(
            user_id=request.user.id, max_time=query.get("max_time"), offset=query["offset"]
        )
        page["results"] = _blogs(request, page["results"])
        return Response(page)
