"""Thin viewsets for vouchers: staff management, shop voucher lists, the activity list,
the flash sale's fast path, claims, orders, coupons at checkout, and redemptions."""

from __future__ import annotations

import json
import re
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework import status, viewsets
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import tokens
from accounts.authentication import authenticated_id
from accounts.permissions import IsStaff
from accounts.selectors import is_site_staff
from shops import cities
from shops.errors import ShopNotFound
from shops.selectors import shop_exists, works_at
from toolkit import clock
from toolkit.api import idempotency, saved
from toolkit.api.fastpath import fast_path, json_response
from toolkit.api.lists import listed
from toolkit.api.pagination import PageNumberPagination
from toolkit.api.queries import query_params
from toolkit.api.schema import PAGE_PARAMETERS, api_errors, paged
from toolkit.api.scroll import ScrollQuerySerializer, scroll_page
from toolkit.api.throttles import WriteLimited
from toolkit.errors import Forbidden, InvalidInput, NotAuthenticated
from toolkit.validation import parse_iso_date

from . import selectors, services
from .coupons import checkout, claims, redemptions, refunds
from .coupons import selectors as coupon_selectors
from .coupons import services as coupon_services
from .sale import challenge, seckill, stock
from .sale.shard import sale_has_own_redis
from .serializers import (
    ActivitiesQuerySerializer,
    ChallengeSerializer,
    MyVouchersPageSerializer,
    MyVouchersQuerySerializer,
    OrderDetailSerializer,
    OrderIdSerializer,
    RedemptionCreateSerializer,
    SeckillRequestSerializer,
    ShopOrderCreateSerializer,
    ShopOrderSerializer,
    ShopOrdersPageSerializer,
    UsableCouponsQuerySerializer,
    UsableCouponsSerializer,
    VoucherCardSerializer,
    VoucherListQuerySerializer,
    VoucherSerializer,
    VoucherStaffSerializer,
    VoucherWriteSerializer,
    WriteOffDayQuerySerializer,
    WriteOffSerializer,
)


def _staff_views(vouchers: list[Any]) -> list[dict[str, Any]]:
    """Vouchers as operators see them: units left and order counts, two queries for all
    (set on the rows for the serializer)."""
    left = selectors.remaining(vouchers)
    counts = selectors.order_counts([v.id for v in vouchers])
    for voucher in vouchers:
        voucher.remaining, voucher.counts = left[voucher.id], counts[voucher.id]
    return listed(VoucherStaffSerializer(vouchers, many=True))


class VoucherViewSet(WriteLimited, viewsets.ViewSet):
    STAFF_ACTIONS = ("create", "list", "retrieve", "partial_update", "destroy", "void")
    write_limits = {"claim": "claim_user", "challenge": "challenge_user"}  # a picture each

    def get_permissions(self):
        if self.action in self.STAFF_ACTIONS:
            return [IsStaff()]
        if self.action in ("claim", "challenge"):
            return [IsAuthenticated()]
        return []

    @extend_schema(request=VoucherWriteSerializer, responses={201: VoucherSerializer})
    def create(self, request: Request) -> Response:
        """Staff only: add a voucher (money in fen; flash sales need stock and a window;
        the discount rule's fields must fit its `discount_type`)."""
        serializer = VoucherWriteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        voucher = services.voucher_create(data=serializer.validated_data)
        return Response(VoucherSerializer(voucher).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        parameters=[VoucherListQuerySerializer, *PAGE_PARAMETERS],
        responses=paged(VoucherStaffSerializer),
    )
    def list(self, request: Request) -> Response:
        """Staff only: vouchers, newest first, by shop and real-time status, with units
        left and order counts."""
        query = query_params(request, VoucherListQuerySerializer)
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(
            selectors.voucher_list(shop_id=query.get("shop_id"), status=query.get("status")),
            request,
            self,
        )
        return paginator.get_paginated_response(_staff_views(page))

    @extend_schema(responses=VoucherStaffSerializer)
    def retrieve(self, request: Request, voucher_id: int) -> Response:
        """Staff only: one voucher with units left and its orders counted by status."""
        return Response(_staff_views([selectors.voucher_get(voucher_id=voucher_id)])[0])

    @extend_schema(request=VoucherWriteSerializer, responses=VoucherSerializer)
    @api_errors(409)  # sale_started, rule_frozen
    def partial_update(self, request: Request, voucher_id: int) -> Response:
        """Staff only: change a voucher. 409 `sale_started` for a started sale's stock or
        window, `rule_frozen` for the shop or discount rule once coupons exist."""
        voucher = selectors.voucher_get(voucher_id=voucher_id)
        serializer = VoucherWriteSerializer(voucher, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        voucher = services.voucher_update(voucher_id=voucher_id, data=serializer.validated_data)
        return Response(VoucherSerializer(voucher).data)

    @extend_schema(responses={204: None})
    @api_errors(409)  # sale_active, voucher_has_orders
    def destroy(self, request: Request, voucher_id: int) -> Response:
        """Staff only: delete a voucher nobody holds (409 `voucher_has_orders`: void it
        instead; `sale_active` while its sale runs)."""
        services.voucher_delete(voucher_id=voucher_id)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(request=None, responses=VoucherSerializer)
    def void(self, request: Request, voucher_id: int) -> Response:
        """Staff only: withdraw a voucher; its sale stops at once. Coupons held stay valid."""
        return Response(VoucherSerializer(services.voucher_void(voucher_id=voucher_id)).data)

    @extend_schema(request=None, responses={201: OrderIdSerializer})
    @api_errors(409)  # limit_reached, sold_out, ended, sale_only
    def claim(self, request: Request, voucher_id: int) -> Response:
        """Take a coupon of a normal voucher: `paid` at once when free, else `unpaid` until
        paid (or cancelled by the pay timeout). 409 `limit_reached` at the voucher's
        per-user limit, `sold_out`, `ended` when withdrawn, `sale_only` for a flash sale's
        voucher (grab it in its sale)."""
        order = claims.voucher_claim(user_id=authenticated_id(request), voucher_id=voucher_id)
        return Response({"order_id": str(order.id)}, status=status.HTTP_201_CREATED)

    @extend_schema(responses=ChallengeSerializer)
    @api_errors(404, 409, 429)  # no such sale; not_a_sale, ended, challenge_off; fetched too often
    def challenge(self, request: Request, voucher_id: int) -> Response:
        """A new challenge for the caller in a sale that asks one before the grab (fetch
        it before the sale opens): an arithmetic question as a PNG data URL, answered
        once in the grab's `challenge` within `expires_in` seconds. Replaces the caller's
        open one. 409 `challenge_off` for a sale that needs none, `not_a_sale`, `ended`;
        429 past the caller's fetches a minute (each draws a picture)."""
        issued = challenge.challenge_issue(user_id=authenticated_id(request), voucher_id=voucher_id)
        body = {"id": issued.id, "image": issued.data_url(), "expires_in": issued.expires_in}
        return Response(body, headers={"Cache-Control": "no-store"})


class OrderViewSet(viewsets.ViewSet):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=OrderDetailSerializer)
    def retrieve(self, request: Request, order_id: int) -> Response:
        """The caller's order, with its redeem code once paid; `pending` while it is
        accepted but not yet persisted. Other users' orders are 404."""
        order = coupon_selectors.order_get(order_id=order_id, user_id=authenticated_id(request))
        return Response(OrderDetailSerializer(order).data)

    @extend_schema(request=None, responses=OrderDetailSerializer)
    @api_errors(409)  # order_pending, coupon_expired, order_cancelled, order_refunded
    def pay(self, request: Request, order_id: int) -> Response:
        """Simulated payment of the caller's unpaid order (409 `order_pending` while it is
        still being placed, `coupon_expired` past its validity)."""
        order = coupon_services.order_pay(order_id=order_id, user_id=authenticated_id(request))
        return Response(OrderDetailSerializer(order).data)

    @extend_schema(request=None, responses=OrderDetailSerializer)
    @api_errors(409)  # order_paid, coupon_used, order_refunded, order_pending
    def cancel(self, request: Request, order_id: int) -> Response:
        """Cancel the caller's unpaid order: its unit goes back and the voucher can be
        taken again. Idempotent; 409 `order_paid` for a paid order (refund it)."""
        order = coupon_services.order_cancel(order_id=order_id, user_id=authenticated_id(request))
        return Response(OrderDetailSerializer(order).data)

    @extend_schema(request=None, responses=OrderDetailSerializer)
    @api_errors(409)  # coupon_used, coupon_expired, order_unpaid, order_cancelled
    def refund(self, request: Request, order_id: int) -> Response:
        """Refund the caller's paid, unused, unexpired coupon. Idempotent; 409
        `coupon_used`, `coupon_expired`, `order_unpaid` (cancel it instead)."""
        order = refunds.order_refund(order_id=order_id, user_id=authenticated_id(request))
        return Response(OrderDetailSerializer(order).data)


class CouponViewSet(viewsets.ViewSet):
    permission_classes = [IsAuthenticated]

    @extend_schema(parameters=[UsableCouponsQuerySerializer], responses=UsableCouponsSerializer)
    @api_errors(404)  # unknown shop
    def usable(self, request: Request) -> Response:
        """The caller's coupons for a bill at a shop: usable ones with their discount, best
        first; the others with a `reason` (`below_threshold`)."""
        query = query_params(request, UsableCouponsQuerySerializer)
        shop_exists(shop_id=query["shop_id"])
        usable, unusable = coupon_selectors.coupons_usable(
            user_id=authenticated_id(request), shop_id=query["shop_id"], amount=query["amount"]
        )
        return Response(UsableCouponsSerializer({"usable": usable, "unusable": unusable}).data)


class ShopOrderViewSet(WriteLimited, viewsets.ViewSet):
    permission_classes = [IsAuthenticated]
    write_limits = {"create": "checkout_user"}

    def is_replay(self, request: Request) -> bool:
        key = idempotency.idempotency_key(request) if self.action == "create" else None
        return key is not None and checkout.shop_order_keyed(
            user_id=authenticated_id(request), idempotency_key=key
        )

    @extend_schema(
        parameters=[
            idempotency.header_parameter(
                "Retries with the same key return the first checkout's order, and use "
                "none of the write limit."
            )
        ],
        request=ShopOrderCreateSerializer,
        responses={201: ShopOrderSerializer},
    )
    @api_errors(404, 409)  # someone else's coupon; the coupon's state refuses
    def create(self, request: Request) -> Response:
        """Pay a bill at a shop, optionally with a coupon (`coupon_id`, a voucher order
        id): it moves to `used` with a write-off record. 409 `coupon_used`,
        `coupon_expired`, `coupon_unpaid`, `coupon_refunded`, `below_threshold`,
        `wrong_shop`; someone else's coupon is a 404."""
        key = idempotency.idempotency_key(request)
        serializer = ShopOrderCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        order, created = checkout.shop_order_create(
            user_id=authenticated_id(request),
            shop_id=data["shop_id"].id,
            amount=data["amount"],
            coupon_id=data.get("coupon_id"),
            idempotency_key=key,
        )
        headers = {} if created else {"Idempotent-Replayed": "true"}
        return Response(
            ShopOrderSerializer(order).data, status=status.HTTP_201_CREATED, headers=headers
        )

    @extend_schema(parameters=[ScrollQuerySerializer], responses=ShopOrdersPageSerializer)
    def list(self, request: Request) -> Response:
        """The caller's shop orders, 10 a page, newest first, scrolled by `last_id`."""
        page, next_last_id = coupon_selectors.shop_orders_mine(
            user_id=authenticated_id(request),
            last_id=query_params(request, ScrollQuerySerializer).get("last_id"),
        )
        return Response(scroll_page(listed(ShopOrderSerializer(page, many=True)), next_last_id))

    @extend_schema(request=None, responses=ShopOrderSerializer)
    def refund(self, request: Request, shop_order_id: int) -> Response:
        """Refund the caller's shop order (idempotent): its coupon is unused again while it
        is still valid, and its write-off is marked reversed."""
        order = refunds.shop_order_refund(
            shop_order_id=shop_order_id, user_id=authenticated_id(request)
        )
        return Response(ShopOrderSerializer(order).data)


class RedemptionViewSet(WriteLimited, viewsets.ViewSet):
    permission_classes = [IsAuthenticated]
    write_limits = {"create": "redeem_user"}

    @extend_schema(request=RedemptionCreateSerializer, responses={201: WriteOffSerializer})
    @api_errors(403, 404, 409, 429)  # not staff; code matches nothing; coupon state; misses
    def create(self, request: Request) -> Response:
        """Shop staff (or site staff) redeem a coupon by its code. 404 for a code that is
        unknown or of another shop's voucher; 409 `coupon_used`, `coupon_expired`,
        `coupon_refunded`; 429 after too many codes that match nothing."""
        site_staff = is_site_staff(user_id=authenticated_id(request))
        if not (site_staff or works_at(user_id=authenticated_id(request))):
            raise Forbidden(gettext("Only shop staff redeem coupons."))
        serializer = RedemptionCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        write_off = redemptions.coupon_redeem(
            code=serializer.validated_data["code"],
            amount=serializer.validated_data.get("amount"),
            by_user_id=authenticated_id(request),
            by_site_staff=site_staff,
        )
        return Response(WriteOffSerializer(write_off).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        parameters=[WriteOffDayQuerySerializer, *PAGE_PARAMETERS],
        responses=paged(WriteOffSerializer),
    )
    def shop_day(self, request: Request, shop_id: int) -> Response:
        """A shop's write-offs (redemptions and checkouts) of a local day, today by
        default, newest first; for its staff and site staff. Anyone else gets the 404
        of a shop that does not exist, as from every merchant endpoint."""
        raw = query_params(request, WriteOffDayQuerySerializer).get("date")
        day = parse_iso_date(raw) if raw else clock.today()
        user_id = authenticated_id(request)
        if is_site_staff(user_id=user_id):
            shop_exists(shop_id=shop_id)
        elif not works_at(user_id=user_id, shop_id=shop_id):
            # Nothing to learn about who works where (decision 360).
            raise ShopNotFound()
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(
            coupon_selectors.shop_write_offs(shop_id=shop_id, day=day), request, self
        )
        return paginator.get_paginated_response(WriteOffSerializer(page, many=True).data)


@fast_path("POST", "create", permission_classes=[IsAuthenticated])
@extend_schema(request=SeckillRequestSerializer, responses={200: OrderIdSerializer})
@api_errors(400, 403, 409, 429, 503)  # the body; the challenge; the sale's verdicts; ...
def seckill_view(request: HttpRequest, voucher_id: int) -> HttpResponse:
    """Grab one unit of a flash sale: 200 with the order id, or 409 not_started /
    ended / sold_out / duplicate_order (`not_a_sale` for a normal voucher: claim it);
    429 (Retry-After) when the per-user funnel (5 at once, then 2 a second) is full,
    or when more grabs arrive than the server lets through to the sale at once.
    A sale with a challenge (its `challenge` is true) needs `challenge` {id, answer}
    from `GET /api/vouchers/{id}/challenge`: 403 `challenge_required` without it,
    `challenge_expired` when none is open (expired, used, never fetched),
    `challenge_wrong` for a wrong answer; each is answered once, and a refusal sells
    nothing."""
    # Without DRF's per-request machinery: one EVALSHA refreshes the token (as the DRF
    # authentication does) and decides the sale, funnel limit included.
    token = tokens.bearer_token(request.META.get("HTTP_AUTHORIZATION", ""))
    if token is None:
        raise NotAuthenticated()
    order_id = seckill.voucher_seckill_by_token(
        token=token, voucher_id=voucher_id, challenge=_challenge_answer(request)
    )
    # Every accepted grab answers through this line, so the body is written as bytes
    # instead of going through JsonResponse's encoder.
    return HttpResponse(b'{"order_id": "%d"}' % order_id, content_type="application/json")


def _challenge_answer(request: HttpRequest) -> seckill.Answer | None:
    """The grab's `challenge` {id, answer}, if its body has one (most grabs have none:
    no body, nothing parsed)."""
    if not request.body:
        return None
    try:
        data = json.loads(request.body)
    except ValueError:
        raise InvalidInput(gettext("The request body is not valid JSON.")) from None
    sent = data.get("challenge") if isinstance(data, dict) else None
    if sent is None:
        return None
    if not isinstance(sent, dict):
        raise InvalidInput(gettext("`challenge` needs an id and an answer."))
    challenge_id, answer = sent.get("id"), sent.get("answer")
    # A whole number, as a number or as typed (JSON true reads "True": refused).
    if (
        not isinstance(challenge_id, str)
        or len(challenge_id) > 64
        or not _ANSWER.fullmatch(str(answer))
    ):
        raise InvalidInput(gettext("`challenge` needs an id and an answer."))
    return challenge_id, str(int(str(answer)))  # "07", " 7" and 7 are the same answer


_ANSWER = re.compile(r"\s*[+-]?\d{1,6}\s*")


def _activities(request: HttpRequest) -> HttpResponse:
    """No round trip but the token's: the list and its stock are the process's snapshot
    (vouchers.caches), the city list a near copy, each status computed now; the reader's
    `saved` markers share the token's round trip."""
    query = query_params(request, ActivitiesQuerySerializer)
    city_id = cities.city_id(query.get("city"))
    items = selectors.activities(tab=query["tab"], city_id=city_id)
    return json_response(_marked(request, items))


def _marked(request: HttpRequest, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`items` with the reader's `saved` markers, read on the token's round trip."""
    ids = [item["id"] for item in items]

    def reads(pipe: Any, viewer_id: int | None) -> None:
        saved.queue_saved(pipe, viewer_id, saved.VOUCHER, ids)

    viewer, replies = tokens.touch_with(request, reads)
    marked, _ = saved.read_saved(replies, viewer["id"] if viewer else None, ids)
    saved.mark(items, marked)
    return items


def _activities_without_redis(request: HttpRequest) -> HttpResponse:
    query = query_params(request, ActivitiesQuerySerializer)
    city_id = cities.city_id(query.get("city"))  # the city list from the database
    items = selectors.activities(tab=query["tab"], city_id=city_id, without_redis=True)
    saved.mark(items, {})
    return json_response(items)


@fast_path("GET", "activities", viewset=VoucherViewSet, without_redis=_activities_without_redis)
@extend_schema(parameters=[ActivitiesQuerySerializer], responses=VoucherCardSerializer(many=True))
@api_errors(404)  # a `city` of no city
def activities_view(request: HttpRequest) -> HttpResponse:
    """Flash sales on now (`seizing`, the default) or starting within 30 days
    (`upcoming`) at the shops of a city (`city`, the default city without it), with
    their remaining stock (at most half a second old)."""
    return _activities(request)


def _shop_vouchers(request: HttpRequest, shop_id: int) -> HttpResponse:
    """The list from its cache; the sales' live stock and the reader's `saved` markers in
    the token's round trip (the stock in a round trip of its own when the sale has its
    own Redis)."""
    listed = selectors.shop_vouchers_listed(shop_id=shop_id)
    return json_response(_vouchers_live(request, listed))


def _vouchers_live(request: HttpRequest, listed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Cached voucher documents as readers get them: the sales' live stock, each status
    now, and the reader's `saved` markers, read with the caller's token."""
    ids = [doc["id"] for doc in listed]
    sales = selectors.seckill_ids(listed)
    own_redis = sale_has_own_redis()
    layout = None if own_redis else stock.bucket_layout(sales)

    def reads(pipe: Any, viewer_id: int | None) -> None:
        saved.queue_saved(pipe, viewer_id, saved.VOUCHER, ids)
        if layout is not None:
            stock.queue_live_stock(pipe, layout)

    viewer, replies = tokens.touch_with(request, reads)
    marked, replies = saved.read_saved(replies, viewer["id"] if viewer else None, ids)
    if layout is None:
        live = stock.live_stock_or_stored(sales, listed)
    else:
        live = stock.read_live_stock(layout, replies)
    documents = selectors.vouchers_now(listed, live)
    saved.mark(documents, marked)
    return documents


def _shop_vouchers_without_redis(request: HttpRequest, shop_id: int) -> HttpResponse:
    """The list from the database (the caches answer from it while Redis is unreachable),
    a sale's remaining stock the database's."""
    listed = selectors.shop_vouchers_listed(shop_id=shop_id)
    documents = selectors.vouchers_now(listed, stock.stored_stock(listed))
    saved.mark(documents, {})
    return json_response(documents)


def _my_vouchers(request: HttpRequest) -> HttpResponse:
    query = query_params(request, MyVouchersQuerySerializer)
    viewer, _ = tokens.touch_with(request)
    if viewer is None:
        raise NotAuthenticated()
    page, next_last_id = coupon_selectors.my_vouchers(
        user_id=viewer["id"], tab=query["status"], last_id=query.get("last_id")
    )
    return json_response(scroll_page(page, next_last_id))


@fast_path("GET", "list", without_redis=_shop_vouchers_without_redis)
@extend_schema(responses=VoucherCardSerializer(many=True))
def shop_vouchers_view(request: HttpRequest, shop_id: int) -> HttpResponse:
    """A shop's vouchers, with the units left (live Redis stock for flash sales)."""
    return _shop_vouchers(request, shop_id)


@fast_path("GET", "list", viewset=OrderViewSet)
@extend_schema(parameters=[MyVouchersQuerySerializer], responses=MyVouchersPageSerializer)
def my_vouchers_view(request: HttpRequest) -> HttpResponse:
    """My vouchers: `unused` (the default), `used`, `expired`, `unpaid` (awaiting
    payment), `cancelled` or `refunded`, 10 a page, newest first, scrolled by passing
    the previous page's `last_id`."""
    return _my_vouchers(request)
