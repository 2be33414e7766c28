"""Operators decide shop claims here: the queue (pending first), a claim's page with its
shop, user, evidence and picture, Approve and Reject (with a reason) on that page and as
bulk actions. Owners' changes of a shop's name, address or position too: their queue
(pending first), a change's page with the shop's values beside the proposed ones, Approve
and Reject (with a reason). And owners' offers: the queue (submitted first), an offer's
page with Publish, Send back (with a reason) and, once published, Stop. Every decision goes
through merchants.services."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.http import Http404, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from shops.models import Shop
from toolkit.errors import DomainError
from toolkit.money import yuan
from vouchers.models import MONEY_FIELDS

from . import services
from .models import REASON_MAX, OfferDraft, ShopChange, ShopClaim
from .serializers import OfferVoucherSerializer

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

CLAIM_FIELDS = (
    "shop_link",
    "user_link",
    "evidence",
    "picture_preview",
    "status",
    "reason",
    "decided_by",
    "decided_at",
    "created_at",
)


def reason_form(help_text: StrOrPromise) -> type[forms.Form]:
    """The form an operator fills to turn something down: the reason its author reads."""
    field = forms.CharField(
        label=_("reason"),
        max_length=REASON_MAX,
        widget=forms.Textarea(attrs={"rows": 4, "cols": 60}),
        help_text=help_text,
    )
    return type("ReasonForm", (forms.Form,), {"reason": field})


class DecisionAdmin(admin.ModelAdmin):
    """A queue of requests that users make and operators decide: none is added, edited or
    deleted here, and each decision runs a service, its refusal shown as a message."""

    def has_add_permission(self, request):
        return False  # they come from users

    def has_delete_permission(self, request, obj=None):
        return False  # the record of what was asked and what was decided

    def render_change_form(self, request, context, *args, **kwargs):
        # Every field is read-only: a request changes by a decision, never by a save.
        context.update(
            show_save=False, show_save_and_continue=False, show_save_and_add_another=False
        )
        return super().render_change_form(request, context, *args, **kwargs)

    def _back(self, object_id: int) -> HttpResponseRedirect:
        meta = self.model._meta
        return HttpResponseRedirect(
            reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[object_id])
        )

    def _decide(
        self, request, object_id: int, decision: Callable[[], Any], success: Callable[[Any], str]
    ) -> HttpResponseRedirect:
        """Run `decision`; say `success(its result)`, or why it was refused; back to the page."""
        try:
            done = decision()
        except DomainError as exc:
            self.message_user(request, exc.detail, messages.ERROR)
        else:
            self.message_user(request, success(done), messages.SUCCESS)
        return self._back(object_id)

    def _decide_with_reason(
        self, request, object_id: int, form: forms.Form, decision: Callable[[str], Any], done: str
    ) -> HttpResponseRedirect | None:
        """`_decide` once the posted form gives a reason; None while it has to be asked."""
        if request.method != "POST" or not form.is_valid():
            return None
        reason = form.cleaned_data["reason"]
        return self._decide(request, object_id, lambda: decision(reason), lambda _: done)


RejectForm = reason_form(_("The user reads it in the claim's status."))


@admin.register(ShopClaim)
class ShopClaimAdmin(DecisionAdmin):
    list_display = ["id", "status", "shop_link", "user_link", "created_at", "decided_at"]
    list_filter = ["status"]
    search_fields = ["shop__name", "user__phone", "user__nick_name"]
    list_select_related = ["shop", "user"]
    # Pending first: `pending` is true while pending and NULL once decided, and SQLite and
    # MariaDB both sort NULLs last in a descending order.
    ordering = ["-pending", "-id"]
    fields = readonly_fields = CLAIM_FIELDS  # a claim changes by a decision, never by hand
    actions = ["approve", "reject"]
    change_form_template = "admin/merchants/shopclaim/change_form.html"

    @admin.display(description=_("shop"), ordering="shop__name")
    def shop_link(self, claim: ShopClaim) -> str:
        url = reverse("admin:shops_shop_change", args=[claim.shop_id])
        return format_html('<a href="{}">{} (#{})</a>', url, claim.shop.name, claim.shop_id)

    @admin.display(description=_("user"), ordering="user__phone")
    def user_link(self, claim: ShopClaim) -> str:
        url = reverse("admin:accounts_user_change", args=[claim.user_id])
        return format_html('<a href="{}">{}</a>', url, claim.user)

    @admin.display(description=_("picture"))
    def picture_preview(self, claim: ShopClaim) -> str:
        if not claim.picture:
            return "-"
        return format_html(
            '<a href="{}" target="_blank" rel="noopener"><img src="{}" alt="" '
            'style="max-width: 480px; max-height: 480px"></a>',
            claim.picture,
            claim.picture,
        )

    # --- Approve and Reject on a claim's page -------------------------------------

    def get_urls(self):
        decide = [
            path(
                "<int:claim_id>/approve/",
                self.admin_site.admin_view(require_POST(self.approve_view)),
                name="merchants_shopclaim_approve",
            ),
            path(
                "<int:claim_id>/reject/",
                self.admin_site.admin_view(self.reject_view),
                name="merchants_shopclaim_reject",
            ),
        ]
        return decide + super().get_urls()

    def _claim(self, request, claim_id: int) -> ShopClaim:
        claim = ShopClaim.objects.select_related("shop", "user").filter(pk=claim_id).first()
        if claim is None or not self.has_change_permission(request, claim):
            raise Http404(gettext("No such shop claim."))
        return claim

    def approve_view(self, request, claim_id: int):
        claim = self._claim(request, claim_id)
        return self._decide(
            request,
            claim.pk,
            lambda: services.claim_approve(claim_id=claim.pk, by_user_id=request.user.pk),
            lambda _: (
                gettext("Approved: %(user)s now owns %(shop)s.")
                % {"user": claim.user, "shop": claim.shop.name}
            ),
        )

    def reject_view(self, request, claim_id: int):
        claim = self._claim(request, claim_id)
        form = RejectForm(request.POST if request.method == "POST" else None)
        decided = self._decide_with_reason(
            request,
            claim.pk,
            form,
            lambda reason: services.claim_reject(
                claim_id=claim.pk, reason=reason, by_user_id=request.user.pk
            ),
            gettext("Rejected."),
        )
        return decided or self._reject_page(request, form, [claim])

    def _reject_page(
        self, request, form: forms.Form, claims: list[ShopClaim], *, bulk: bool = False
    ) -> TemplateResponse:
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Reject shop claims"),
            "opts": self.model._meta,
            "form": form,
            "claims": claims,
            "bulk": bulk,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/merchants/shopclaim/reject.html", context)

    # --- the same as bulk actions on the queue --------------------------------------

    def _refused(self, request, claim_id: int, exc: DomainError) -> None:
        message = gettext("Claim %(id)s: %(reason)s") % {"id": claim_id, "reason": exc.detail}
        self.message_user(request, message, messages.ERROR)

    @admin.action(description=_("Approve the selected claims"), permissions=["change"])
    def approve(self, request, queryset):
        approved = 0
        for claim_id in queryset.order_by("id").values_list("pk", flat=True):
            try:
                services.claim_approve(claim_id=claim_id, by_user_id=request.user.pk)
            except DomainError as exc:  # decided already, or its shop has an owner now
                self._refused(request, claim_id, exc)
            else:
                approved += 1
        message = ngettext("%(count)d claim approved.", "%(count)d claims approved.", approved) % {
            "count": approved
        }
        self.message_user(request, message, messages.SUCCESS)

    @admin.action(description=_("Reject the selected claims"), permissions=["change"])
    def reject(self, request, queryset):
        """First the page that asks the reason; its form posts back to this action."""
        form = RejectForm(request.POST if "reason" in request.POST else None)
        if not form.is_bound or not form.is_valid():
            claims = list(queryset.select_related("shop", "user").order_by("id"))
            return self._reject_page(request, form, claims, bulk=True)
        rejected = 0
        for claim_id in queryset.order_by("id").values_list("pk", flat=True):
            try:
                services.claim_reject(
                    claim_id=claim_id,
                    reason=form.cleaned_data["reason"],
                    by_user_id=request.user.pk,
                )
            except DomainError as exc:
                self._refused(request, claim_id, exc)
            else:
                rejected += 1
        message = ngettext("%(count)d claim rejected.", "%(count)d claims rejected.", rejected) % {
            "count": rejected
        }
        self.message_user(request, message, messages.SUCCESS)
        return None


CHANGE_FIELDS = (
    "shop_link",
    "requested_by",
    "proposal",
    "status",
    "reason",
    "decided_by",
    "decided_at",
    "created_at",
)


ChangeRejectForm = reason_form(_("The owner reads it on the shop's profile."))


@admin.register(ShopChange)
class ShopChangeAdmin(DecisionAdmin):
    list_display = ["id", "status", "shop_link", "requested_by", "created_at", "decided_at"]
    list_filter = ["status"]
    search_fields = ["shop__name", "requested_by__phone"]
    list_select_related = ["shop", "requested_by"]
    ordering = ["-pending", "-id"]  # pending first, as the claims' queue
    fields = readonly_fields = CHANGE_FIELDS  # a change is decided, never edited
    change_form_template = "admin/merchants/shopchange/change_form.html"

    @admin.display(description=_("shop"), ordering="shop__name")
    def shop_link(self, change: ShopChange) -> str:
        url = reverse("admin:shops_shop_change", args=[change.shop_id])
        return format_html('<a href="{}">{} (#{})</a>', url, change.shop.name, change.shop_id)

    @admin.display(description=_("proposed fields"))
    def proposal(self, change: ShopChange) -> str:
        """Each proposed field beside the shop's value now."""
        rows = format_html_join(
            "",
            "<tr><th>{}</th><td>{}</td><td>{}</td></tr>",
            (
                (Shop._meta.get_field(name).verbose_name, getattr(change.shop, name), value)  # type: ignore[union-attr]
                for name, value in change.fields.items()
            ),
        )
        return format_html(
            "<table><tr><th></th><th>{}</th><th>{}</th></tr>{}</table>",
            gettext("now"),
            gettext("proposed"),
            rows,
        )

    def get_urls(self):
        decide = [
            path(
                "<int:change_id>/approve/",
                self.admin_site.admin_view(require_POST(self.approve_view)),
                name="merchants_shopchange_approve",
            ),
            path(
                "<int:change_id>/reject/",
                self.admin_site.admin_view(self.reject_view),
                name="merchants_shopchange_reject",
            ),
        ]
        return decide + super().get_urls()

    def _change(self, request, change_id: int) -> ShopChange:
        change = ShopChange.objects.select_related("shop").filter(pk=change_id).first()
        if change is None or not self.has_change_permission(request, change):
            raise Http404(gettext("No such shop profile change."))
        return change

    def approve_view(self, request, change_id: int):
        change = self._change(request, change_id)
        return self._decide(
            request,
            change.pk,
            lambda: services.shop_change_approve(change_id=change.pk, by_user_id=request.user.pk),
            lambda _: gettext("Approved: %(shop)s is changed.") % {"shop": change.shop.name},
        )

    def reject_view(self, request, change_id: int):
        change = self._change(request, change_id)
        form = ChangeRejectForm(request.POST if request.method == "POST" else None)
        decided = self._decide_with_reason(
            request,
            change.pk,
            form,
            lambda reason: services.shop_change_reject(
                change_id=change.pk, reason=reason, by_user_id=request.user.pk
            ),
            gettext("Rejected."),
        )
        if decided:
            return decided
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Reject the shop profile change"),
            "opts": self.model._meta,
            "form": form,
            "change": change,
        }
        return TemplateResponse(request, "admin/merchants/shopchange/reject.html", context)


# --- offers: owners propose vouchers, operators publish them or send them back ---------

OFFER_FIELDS = (
    "shop_link",
    "author",
    "state",
    "proposed",
    "reason",
    "voucher_link",
    "submissions",
    "decided_by",
    "created_at",
    "updated_at",
    "submitted_at",
    "decided_at",
)


SendBackForm = reason_form(_("The owner reads it beside the offer, edits it and submits it again."))


@admin.register(OfferDraft)
class OfferDraftAdmin(DecisionAdmin):
    list_display = ["id", "state", "title", "shop_link", "author", "submitted_at", "decided_at"]
    list_filter = ["state"]
    search_fields = ["shop__name", "author__phone"]
    list_select_related = ["shop", "author"]
    # Submitted first (`waiting`), then the newest.
    ordering = ["-waiting", "-id"]
    fields = readonly_fields = OFFER_FIELDS  # an offer changes by its owner or a decision
    change_form_template = "admin/merchants/offerdraft/change_form.html"

    @admin.display(description=_("title"))
    def title(self, offer: OfferDraft) -> str:
        return offer.fields.get("title", "")

    @admin.display(description=_("shop"), ordering="shop__name")
    def shop_link(self, offer: OfferDraft) -> str:
        url = reverse("admin:shops_shop_change", args=[offer.shop_id])
        return format_html('<a href="{}">{} (#{})</a>', url, offer.shop.name, offer.shop_id)

    @admin.display(description=_("voucher"))
    def voucher_link(self, offer: OfferDraft) -> str:
        if offer.voucher_id is None:
            return "-"
        url = reverse("admin:vouchers_voucher_change", args=[offer.voucher_id])
        return format_html('<a href="{}">#{}</a>', url, offer.voucher_id)

    @admin.display(description=_("proposed voucher"))
    def proposed(self, offer: OfferDraft) -> str:
        rows = format_html_join(
            "",
            "<tr><th>{}</th><td>{}</td></tr>",
            # Amounts in yuan, as the voucher's page shows them.
            ((k, yuan(v) if k in MONEY_FIELDS else v) for k, v in sorted(offer.fields.items())),
        )
        return format_html("<table>{}</table>", rows)

    def get_urls(self):
        decide = [
            path(
                "<int:offer_id>/publish/",
                self.admin_site.admin_view(require_POST(self.publish_view)),
                name="merchants_offerdraft_publish",
            ),
            path(
                "<int:offer_id>/send-back/",
                self.admin_site.admin_view(self.send_back_view),
                name="merchants_offerdraft_send_back",
            ),
            path(
                "<int:offer_id>/stop/",
                self.admin_site.admin_view(require_POST(self.stop_view)),
                name="merchants_offerdraft_stop",
            ),
        ]
        return decide + super().get_urls()

    def _offer(self, request, offer_id: int) -> OfferDraft:
        offer = OfferDraft.objects.select_related("shop").filter(pk=offer_id).first()
        if offer is None or not self.has_change_permission(request, offer):
            raise Http404(gettext("No such offer."))
        return offer

    def publish_view(self, request, offer_id: int):
        offer = self._offer(request, offer_id)
        # The staff API's rules again: settings (SECKILL_SHARDS) may have changed since.
        serializer = OfferVoucherSerializer(data=offer.fields)
        if not serializer.is_valid():
            errors = "; ".join(
                f"{name}: {' '.join(map(str, messages_))}"
                for name, messages_ in serializer.errors.items()
            )
            message = gettext("The proposed voucher breaks the rules: %(errors)s") % {
                "errors": errors
            }
            self.message_user(request, message, messages.ERROR)
            return self._back(offer.pk)
        return self._decide(
            request,
            offer.pk,
            lambda: services.offer_publish(
                offer_id=offer.pk, data=serializer.validated_data, by_user_id=request.user.pk
            ),
            lambda published: (
                gettext("Published as voucher %(voucher)s.") % {"voucher": published.voucher_id}
            ),
        )

    def send_back_view(self, request, offer_id: int):
        offer = self._offer(request, offer_id)
        form = SendBackForm(request.POST if request.method == "POST" else None)
        decided = self._decide_with_reason(
            request,
            offer.pk,
            form,
            lambda reason: services.offer_return(
                offer_id=offer.pk, reason=reason, by_user_id=request.user.pk
            ),
            gettext("Sent back."),
        )
        if decided:
            return decided
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Send the offer back"),
            "opts": self.model._meta,
            "form": form,
            "offer": offer,
        }
        return TemplateResponse(request, "admin/merchants/offerdraft/send_back.html", context)

    def stop_view(self, request, offer_id: int):
        offer = self._offer(request, offer_id)
        return self._decide(
            request,
            offer.pk,
            lambda: services.offer_stop(offer_id=offer.pk),
            lambda _: gettext("The sale was stopped."),
        )
