"""Thin viewsets for favourites: save and unsave (PUT and DELETE, both idempotent), and
"my favourites", read without DRF (toolkit.api.fastpath)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import viewsets
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import tokens
from accounts.authentication import authenticated_id
from toolkit.api import saved
from toolkit.api.fastpath import fast_path, json_bytes, json_response
from toolkit.api.queries import query_params
from toolkit.api.scroll import scroll_page, scrolled
from toolkit.api.throttles import WriteLimited
from toolkit.errors import NotAuthenticated

from . import pages, selectors, services
from .kinds import KINDS
from .serializers import FavouriteItemSerializer, FavouriteQuerySerializer, SavedStateSerializer

KIND_PARAMETER = OpenApiParameter(
    "kind",
    OpenApiTypes.STR,
    OpenApiParameter.PATH,
    enum=list(KINDS),
    description="`shop`, `blog` (a note) or `voucher`; any other is a 404 `unknown_kind`.",
)


class FavouriteViewSet(WriteLimited, viewsets.ViewSet):
    permission_classes = [IsAuthenticated]
    write_limits = {"update": "favourite_user", "destroy": "favourite_user"}

    @extend_schema(parameters=[KIND_PARAMETER], request=None, responses=SavedStateSerializer)
    def update(self, request: Request, kind: str, object_id: int) -> Response:
        """Save a shop, a note or a voucher (idempotent: saving it again changes nothing).
        Saving a flash sale that has not started sets its reminder, as `PUT
        /api/vouchers/{id}/watch` does. 404 `unknown_kind`, or the kind's own
        `shop_not_found`, `blog_not_found` or `voucher_not_found`."""
        state = services.favourite_save(
            user_id=authenticated_id(request), kind=kind, object_id=object_id
        )
        return Response(state)

    @extend_schema(parameters=[KIND_PARAMETER], responses={200: SavedStateSerializer})
    def destroy(self, request: Request, kind: str, object_id: int) -> Response:
        """Unsave (idempotent: unsaving what is not saved is a 200 too). A sale's reminder
        goes with it only if saving it set the reminder. 404 as for `PUT`, unless the
        caller saved it (a note hidden since can still be unsaved)."""
        state = services.favourite_unsave(
            user_id=authenticated_id(request), kind=kind, object_id=object_id
        )
        return Response(state)


def _favourites(request: HttpRequest) -> HttpResponse:
    """The token's round trip, with the first page's rows kept in Redis (favourites.pages;
    else one indexed query), the cards from their caches (a note's likes or a sale's
    stock in one more round trip); shop cards spliced as cached JSON."""
    asked = request.GET.get("kind")  # checked below, after the caller (as DRF would)
    first = "last_id" not in request.GET and pages.known_kind(asked)

    def reads(pipe: Any, viewer_id: int | None) -> None:
        if viewer_id is not None and first and asked is not None:
            pages.queue_page(pipe, viewer_id, asked)

    viewer, replies = tokens.touch_with(request, reads)
    if viewer is None:
        raise NotAuthenticated()  # before the query is looked at, as DRF's permission check
    query = query_params(request, FavouriteQuerySerializer)
    kind, last_id = query["kind"], query.get("last_id")
    if first and replies and kind == asked and last_id is None:
        page, generation = pages.page_from(replies[0])
        if page is None:
            page = selectors.favourite_rows(user_id=viewer["id"], kind=kind, last_id=None)
            pages.store_page(viewer["id"], kind, generation, page)
    else:
        page = selectors.favourite_rows(user_id=viewer["id"], kind=kind, last_id=last_id)
    rows, next_last_id = page
    if kind == saved.SHOP:
        return json_bytes(selectors.favourite_shops_json(rows, next_last_id))
    cards = selectors.favourite_cards(kind=kind, rows=rows, viewer_id=viewer["id"])
    return json_response(scroll_page(cards, next_last_id))


@fast_path("GET", "list", permission_classes=[IsAuthenticated])
@extend_schema(parameters=[FavouriteQuerySerializer], responses=scrolled(FavouriteItemSerializer))
def favourites_view(request: HttpRequest) -> HttpResponse:
    """My favourites of one kind, newest first, 10 a page, scrolled by passing the
    previous page's `last_id`; each item is the card its kind's lists show."""
    return _favourites(request)
