"""Thin viewsets for merchants: a user's shop claims, the shops they run, and a shop's
profile, staff and offers for its owner. Every answer is personal (the middleware sends
`no-store`); which shop a caller may act for is decided in merchants.access alone."""

from __future__ import annotations

import csv
import io
from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status, viewsets
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.authentication import authenticated_id
from toolkit.api.lists import listed
from toolkit.api.pagination import PageNumberPagination
from toolkit.api.queries import query_params
from toolkit.api.schema import PAGE_PARAMETERS, api_errors, paged
from toolkit.api.throttles import WriteLimited

from . import dashboard, offers, selectors, services
from .access import member_shop
from .serializers import (
    ClaimCreateSerializer,
    ClaimSerializer,
    ClaimStateSerializer,
    DashboardQuerySerializer,
    DashboardSerializer,
    MyShopSerializer,
    OfferSerializer,
    OfferVoucherSerializer,
    ShopProfileSerializer,
    ShopProfileUpdateSerializer,
    StaffAddSerializer,
    StaffMemberSerializer,
)


def _page(request: Request, view: Any, queryset: Any, serializer: Any) -> Response:
    paginator = PageNumberPagination()
    page = paginator.paginate_queryset(queryset, request, view)
    return paginator.get_paginated_response(listed(serializer(page, many=True)))


class ClaimViewSet(WriteLimited, viewsets.ViewSet):
    permission_classes = [IsAuthenticated]
    write_limits = {"create": "shop_claim_user"}

    @extend_schema(request=ClaimCreateSerializer, responses={201: ClaimSerializer})
    @api_errors(409)  # shop_has_owner, claim_pending, shop_not_found
    def create(self, request: Request) -> Response:
        """Claim a shop: ask to become its owner, with evidence (and a picture uploaded
        first, if any) for an operator to check. 409 `shop_has_owner` for a shop that has
        an owner, `claim_pending` while my earlier claim of it awaits a decision,
        `shop_not_found` for an id of no shop."""
        serializer = ClaimCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user_id = authenticated_id(request)
        claim = services.claim_submit(user_id=user_id, **serializer.validated_data)
        claim = selectors.claims_mine(user_id=user_id).get(pk=claim.pk)  # with its shop
        return Response(ClaimSerializer(claim).data, status=status.HTTP_201_CREATED)

    @extend_schema(parameters=PAGE_PARAMETERS, responses=paged(ClaimSerializer))
    def list(self, request: Request) -> Response:
        """My shop claims, newest first, with their status (and the reason of a rejection)."""
        claims = selectors.claims_mine(user_id=authenticated_id(request))
        return _page(request, self, claims, ClaimSerializer)

    @extend_schema(responses=ClaimStateSerializer)
    def state(self, request: Request, shop_id: int) -> Response:
        """Whether I may claim the shop now: whether it has an owner, my role there and my
        newest claim of it (pending, approved, or rejected with its reason). 404
        `shop_not_found` for an id of no shop."""
        state = selectors.claim_state(user_id=authenticated_id(request), shop_id=shop_id)
        return Response(ClaimStateSerializer(state).data)


class MerchantShopViewSet(WriteLimited, viewsets.ViewSet):
    """The shops I run, and a shop's profile for its owner only: anyone else (its clerks
    included) gets the 404 of a shop that does not exist."""

    permission_classes = [IsAuthenticated]
    write_limits = {"partial_update": "shop_staff_user"}

    @extend_schema(parameters=PAGE_PARAMETERS, responses=paged(MyShopSerializer))
    def list(self, request: Request) -> Response:
        """The shops I own or work at, with my role at each (`owner` or `clerk`); owned
        shops first."""
        memberships = selectors.shops_mine(user_id=authenticated_id(request))
        return _page(request, self, memberships, MyShopSerializer)

    @extend_schema(responses=ShopProfileSerializer)
    def retrieve(self, request: Request, shop_id: int) -> Response:
        """Owner only: the shop as its owner sees it (its phone too), with the change of
        name, address or position waiting for an operator and the latest decided one."""
        shop = selectors.shop_profile(owner_id=authenticated_id(request), shop_id=shop_id)
        return Response(ShopProfileSerializer(shop).data)

    @extend_schema(
        request=ShopProfileUpdateSerializer,
        responses={200: ShopProfileSerializer, 202: ShopProfileSerializer},
    )
    def partial_update(self, request: Request, shop_id: int) -> Response:
        """Owner only: edit the shop. avg_price, phone, images and hours apply at once
        (200). name, address and the position (x and y) become the shop's pending change,
        replacing any pending one, for an operator to approve (202, with the shop as it
        is and `pending_change`)."""
        serializer = ShopProfileUpdateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        owner_id = authenticated_id(request)
        _shop, change = services.shop_profile_update(
            owner_id=owner_id, shop_id=shop_id, values=serializer.validated_data
        )
        shop = selectors.shop_profile(owner_id=owner_id, shop_id=shop_id)
        return Response(
            ShopProfileSerializer(shop).data,
            status=status.HTTP_202_ACCEPTED if change else status.HTTP_200_OK,
        )


class StaffViewSet(WriteLimited, viewsets.ViewSet):
    """A shop's staff, for its owner only: anyone else (its clerks included) gets the 404
    of a shop that does not exist."""

    permission_classes = [IsAuthenticated]
    write_limits = {"create": "shop_staff_user", "destroy": "shop_staff_user"}

    @extend_schema(parameters=PAGE_PARAMETERS, responses=paged(StaffMemberSerializer))
    def list(self, request: Request, shop_id: int) -> Response:
        """Owner only: the shop's staff, the owner first, then the clerks as they joined."""
        staff = selectors.staff_list(owner_id=authenticated_id(request), shop_id=shop_id)
        return _page(request, self, staff, StaffMemberSerializer)

    @extend_schema(
        request=StaffAddSerializer,
        responses={201: StaffMemberSerializer, 200: StaffMemberSerializer},
    )
    def create(self, request: Request, shop_id: int) -> Response:
        """Owner only: add the account with this phone as a clerk (201). Idempotent: for
        someone on the staff already, 200 and their membership as it is. 404
        `user_not_found` when no account has the phone."""
        serializer = StaffAddSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        membership, created = services.staff_add(
            owner_id=authenticated_id(request),
            shop_id=shop_id,
            phone=serializer.validated_data["phone"],
        )
        return Response(
            StaffMemberSerializer(membership).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )

    @extend_schema(responses={204: None})
    @api_errors(409)  # owner_not_removable
    def destroy(self, request: Request, shop_id: int, user_id: int) -> Response:
        """Owner only: take a clerk off the staff. 404 `member_not_found` for someone not
        on it; 409 `owner_not_removable` for the owner."""
        services.staff_remove(owner_id=authenticated_id(request), shop_id=shop_id, user_id=user_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


def _offer(offer: Any) -> dict[str, Any]:
    return OfferSerializer(selectors.offers_remaining([offer])[0]).data


class OfferViewSet(WriteLimited, viewsets.ViewSet):
    """A shop's offers, for its owner only (anyone else, its clerks included, gets the 404
    of a shop that does not exist): vouchers the owner proposes and an operator publishes
    or sends back. A move the offer's state refuses answers 409 with the state's code:
    `offer_draft`, `offer_submitted`, `offer_returned`, `offer_published`,
    `offer_stopped`."""

    permission_classes = [IsAuthenticated]
    write_limits = dict.fromkeys(["create", "partial_update", "submit", "stop"], "shop_offer_user")

    @extend_schema(parameters=PAGE_PARAMETERS, responses=paged(OfferSerializer))
    def list(self, request: Request, shop_id: int) -> Response:
        """Owner only: the shop's offers, newest first, with their state (and the reason
        of a send back) and, for a published flash sale, the units left now."""
        rows = selectors.offers_list(owner_id=authenticated_id(request), shop_id=shop_id)
        paginator = PageNumberPagination()
        page = selectors.offers_remaining(list(paginator.paginate_queryset(rows, request, self)))
        return paginator.get_paginated_response(listed(OfferSerializer(page, many=True)))

    @extend_schema(request=OfferVoucherSerializer, responses={201: OfferSerializer})
    def create(self, request: Request, shop_id: int) -> Response:
        """Owner only: draft an offer, a voucher for the shop as the staff API takes it
        (without `shop_id`) and checked by the same rules (400 with the same errors)."""
        owner_id = authenticated_id(request)
        selectors.offers_list(owner_id=owner_id, shop_id=shop_id)  # 404 before the 400s
        fields = OfferVoucherSerializer.proposal(request.data)
        offer = services.offer_create(owner_id=owner_id, shop_id=shop_id, fields=fields)
        return Response(_offer(offer), status=status.HTTP_201_CREATED)

    @extend_schema(request=OfferVoucherSerializer, responses=OfferSerializer)
    @api_errors(409)  # offer_submitted, offer_published, offer_stopped
    def partial_update(self, request: Request, shop_id: int, offer_id: int) -> Response:
        """Owner only: change a draft or a sent back offer's voucher (the fields given;
        the whole is checked again by the staff API's rules). 409 once it is submitted."""
        owner_id = authenticated_id(request)
        offer = selectors.offer_get(owner_id=owner_id, shop_id=shop_id, offer_id=offer_id)
        offers.allowed(offers.Move.EDIT, offer.state)  # the 409 before the 400s
        changes = request.data
        fields = OfferVoucherSerializer.proposal(
            {**offer.fields, **changes} if isinstance(changes, dict) else changes
        )
        offer = services.offer_edit(
            owner_id=owner_id, shop_id=shop_id, offer_id=offer_id, fields=fields
        )
        return Response(_offer(offer))

    @extend_schema(request=None, responses=OfferSerializer)
    @api_errors(409)  # offer_submitted, offer_published, offer_stopped
    def submit(self, request: Request, shop_id: int, offer_id: int) -> Response:
        """Owner only: send a draft, or a sent back offer, to the operators for a
        decision."""
        offer = services.offer_submit(
            owner_id=authenticated_id(request), shop_id=shop_id, offer_id=offer_id
        )
        return Response(_offer(offer))

    @extend_schema(request=None, responses=OfferSerializer)
    @api_errors(409)  # offer_draft, offer_submitted, offer_returned, offer_stopped, sale_over
    def stop(self, request: Request, shop_id: int, offer_id: int) -> Response:
        """Owner only: stop a published offer's sale early. Its voucher is voided: no
        more grabs or claims, the units left stay unsold, orders and coupons stay. 409
        `sale_over` once the sale has ended or was voided."""
        offer = services.offer_stop(
            offer_id=offer_id, owner_id=authenticated_id(request), shop_id=shop_id
        )
        return Response(_offer(offer))


class DashboardViewSet(viewsets.ViewSet):
    """A shop's numbers for its staff (owner or clerk); anyone else gets the 404 of a shop
    that does not exist."""

    permission_classes = [IsAuthenticated]

    @extend_schema(parameters=[DashboardQuerySerializer], responses=DashboardSerializer)
    def retrieve(self, request: Request, shop_id: int) -> Response:
        """The shop's dashboard over the last `days` local days (today included): page
        UV and PV, coupons claimed, flash-sale orders and redemptions per day; the rating
        histogram, the average rating of each of the last 8 weeks, and the newest reviews
        awaiting the shop's reply."""
        days = query_params(request, DashboardQuerySerializer)["days"]
        shop, _role = member_shop(authenticated_id(request), shop_id)
        return Response(DashboardSerializer(dashboard.shop_dashboard(shop=shop, days=days)).data)

    @extend_schema(
        parameters=[DashboardQuerySerializer],
        responses={
            (200, "text/csv"): OpenApiResponse(
                OpenApiTypes.STR,
                description="date,uv,pv,claims,sales,redemptions: one row per day, oldest "
                "first, as an attachment.",
            )
        },
    )
    def csv(self, request: Request, shop_id: int) -> HttpResponse:
        """The dashboard's per-day numbers as CSV (a spreadsheet's download)."""
        days = query_params(request, DashboardQuerySerializer)["days"]
        shop, _role = member_shop(authenticated_id(request), shop_id)
        rows, _uv = dashboard.dashboard_days(shop_id=shop.id, days=days)
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["date", *dashboard.DAY_FIELDS])
        writer.writerows(
            [row["date"], *(row[name] for name in dashboard.DAY_FIELDS)] for row in rows
        )
        response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
        name = f"shop-{shop.id}-{rows[0]['date']}-{rows[-1]['date']}.csv"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response
