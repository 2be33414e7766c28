"""Moderation: operators read notes and comments, hide and restore them (the services
take them out of every list and cache), edit text and delete; reports queue here."""

from __future__ import annotations

import contextlib

from django.contrib import admin, messages
from django.db import transaction
from django.http import Http404, HttpResponseRedirect
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from search import tasks as search_tasks
from toolkit.errors import NotFound

from . import reviews, services
from .caches import blog_evict, hot_evict
from .models import Blog, BlogComment, Report, ReviewReply
from .reported import Reported, reported


def _moderate(modeladmin: admin.ModelAdmin, request, kind: str, queryset, *, hide: bool) -> None:
    """Hide or restore the selected notes or comments, closing their open reports."""
    ids = list(queryset.values_list("id", flat=True))
    for target_id in ids:
        services.moderate(kind=kind, target_id=target_id, hide=hide, by_user_id=request.user.id)
    _done(modeladmin, request, len(ids))


def _pages_changed_on_commit(user_id: int) -> None:
    transaction.on_commit(lambda: services.pages_changed(user_id), robust=True)


def _done(modeladmin: admin.ModelAdmin, request, count: int) -> None:
    modeladmin.message_user(
        request,
        ngettext("%(count)d item changed.", "%(count)d items changed.", count) % {"count": count},
        messages.SUCCESS,
    )


@admin.register(Blog)
class BlogAdmin(admin.ModelAdmin):
    list_display = ["id", "title", "user", "shop", "status", "liked", "comments", "created_at"]
    list_filter = ["status"]
    search_fields = ["title", "user__nick_name"]
    raw_id_fields = ["user", "shop"]
    # The rating and its sub-scores are the author's; visibility is the moderation actions'.
    readonly_fields = [
        "rating",
        "taste",
        "environment",
        "service",
        "status",
        "liked",
        "comments",
        "helpful",
        "created_at",
        "updated_at",
    ]
    list_select_related = ["user", "shop"]
    actions = ["hide", "restore"]

    @admin.action(description=_("Hide the selected notes"), permissions=["change"])
    def hide(self, request, queryset):
        _moderate(self, request, Report.Kind.BLOG, queryset, hide=True)

    @admin.action(description=_("Restore the selected notes"), permissions=["change"])
    def restore(self, request, queryset):
        _moderate(self, request, Report.Kind.BLOG, queryset, hide=False)

    def save_model(self, request, obj, form, change):
        """An edit may move the note to another shop or author: both shops' statistics
        are counted again, their rows locked before the note's (blogs.reviews)."""
        previous_author = form.initial.get("user") if change else None
        previous_shop = form.initial.get("shop") if change else None
        reviews.lock_shops([previous_shop, obj.shop_id])
        super().save_model(request, obj, form, change)
        for user_id in {obj.user_id, previous_author} - {None}:
            reviews.reviews_changed(user_id=user_id, shop_ids=[previous_shop, obj.shop_id])
        transaction.on_commit(lambda: blog_evict(obj.pk), robust=True)
        if not change:
            transaction.on_commit(hot_evict, robust=True)
        for user_id in {obj.user_id, previous_author} - {None}:
            _pages_changed_on_commit(user_id)
        search_tasks.refresh_on_commit("notes", obj.pk)

    def delete_model(self, request, obj):
        self.delete_queryset(request, Blog.objects.filter(pk=obj.pk))

    def delete_queryset(self, request, queryset):
        """Bulk deletes too, one note at a time through the service: its shop's
        statistics, like keys, search entry and its author's cached pages follow."""
        for blog_id in queryset.values_list("id", flat=True):
            services.blog_delete(blog_id=blog_id, user_id=None)


@admin.register(BlogComment)
class BlogCommentAdmin(admin.ModelAdmin):
    list_display = ["id", "blog", "user", "content", "status", "created_at"]
    list_filter = ["status"]
    raw_id_fields = ["blog", "user", "parent"]
    list_select_related = ["blog", "user"]
    readonly_fields = ["status", "liked", "created_at"]
    actions = ["hide", "restore"]

    @admin.action(description=_("Hide the selected comments"), permissions=["change"])
    def hide(self, request, queryset):
        _moderate(self, request, Report.Kind.COMMENT, queryset, hide=True)

    @admin.action(description=_("Restore the selected comments"), permissions=["change"])
    def restore(self, request, queryset):
        _moderate(self, request, Report.Kind.COMMENT, queryset, hide=False)

    def has_add_permission(self, request):
        return False  # comments come from users; their count is kept by the services

    def delete_model(self, request, obj):
        self.delete_queryset(request, BlogComment.objects.filter(pk=obj.pk))

    def delete_queryset(self, request, queryset):
        """Through the service, so each note's count follows (replies go too)."""
        for comment_id, blog_id in list(queryset.values_list("id", "blog_id")):
            # A reply may have gone with its parent, earlier in this loop.
            with contextlib.suppress(NotFound):
                services.comment_delete(blog_id=blog_id, comment_id=comment_id, user_id=None)


@admin.register(ReviewReply)
class ReviewReplyAdmin(admin.ModelAdmin):
    """Shops' replies to reviews: read, hidden and restored here (the shop's staff write
    them through the API)."""

    list_display = ["id", "review", "shop", "user", "text", "status", "updated_at"]
    list_filter = ["status"]
    list_select_related = ["review", "shop", "user"]
    raw_id_fields = ["review", "shop", "user"]
    readonly_fields = ["review", "shop", "user", "text", "status", "created_at", "updated_at"]
    actions = ["hide", "restore"]

    @admin.action(description=_("Hide the selected replies"), permissions=["change"])
    def hide(self, request, queryset):
        _moderate(self, request, Report.Kind.REPLY, queryset, hide=True)

    @admin.action(description=_("Restore the selected replies"), permissions=["change"])
    def restore(self, request, queryset):
        _moderate(self, request, Report.Kind.REPLY, queryset, hide=False)

    def has_add_permission(self, request):
        return False  # replies come from the shops' staff


TARGET = "_reported"  # the attribute a listed report keeps its target in


@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):
    """The moderation queue: open reports first; each shows what was reported (an excerpt,
    its author, links to it here and on the site). "Hide" takes the reported note or
    comment out of every list and closes all open reports of it, "restore" keeps (or
    brings back) the target and dismisses them: bulk actions on the queue, and buttons
    on a report's page, which has nothing to save (decision 462)."""

    list_display = [
        "id", "status", "target", "excerpt", "author", "reason", "text", "reporter", "created_at",
    ]  # fmt: skip
    list_filter = ["status", "kind", "reason"]
    list_select_related = ["reporter"]
    fields = readonly_fields = (
        "target", "excerpt", "author", "kind", "reason", "text", "reporter", "status",
        "created_at", "handled_at", "handled_by",
    )  # fmt: skip
    actions = ["hide", "restore"]
    change_form_template = "admin/blogs/report/change_form.html"

    def get_changelist_instance(self, request):
        """The page's targets in one query per kind, not a lookup per row."""
        changelist = super().get_changelist_instance(request)
        rows = list(changelist.result_list)
        targets = reported(rows)
        for report in rows:
            setattr(report, TARGET, targets.get((report.kind, report.target_id)))
        return changelist

    def _reported(self, report: Report) -> Reported | None:
        if not hasattr(report, TARGET):  # a report's page: its target alone
            setattr(report, TARGET, reported([report]).get((report.kind, report.target_id)))
        return getattr(report, TARGET)

    @admin.display(description=_("target"))
    def target(self, report: Report) -> str:
        label = f"{report.get_kind_display()} {report.target_id}"
        target = self._reported(report)
        if target is None:
            return format_html("{} ({})", label, gettext("deleted"))
        return format_html(
            '<a href="{}">{}</a>{} · <a href="{}" target="_blank" rel="noopener">{}</a>',
            target.admin_url,
            label,
            format_html(" ({})", gettext("hidden")) if target.hidden else "",
            target.site_url,
            gettext("on the site"),
        )

    @admin.display(description=_("reported text"))
    def excerpt(self, report: Report) -> str:
        target = self._reported(report)
        return "-" if target is None else target.excerpt

    @admin.display(description=_("author"))
    def author(self, report: Report) -> str:
        target = self._reported(report)
        if target is None or target.author is None:
            return "-"
        url = reverse("admin:accounts_user_change", args=[target.author.pk])
        return format_html('<a href="{}">{}</a>', url, target.author)

    def has_add_permission(self, request):
        return False  # reports come from users

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        # Every field is read-only: a report changes by a decision, never by a save.
        context.update(
            show_save=False,
            show_save_and_continue=False,
            show_save_and_add_another=False,
            reported=None if obj is None else self._reported(obj),
        )
        return super().render_change_form(request, context, add, change, form_url, obj)

    # --- Hide and Restore on a report's page ----------------------------------------

    def get_urls(self):
        decide = [
            path(
                "<int:report_id>/hide/",
                self.admin_site.admin_view(require_POST(self.hide_view)),
                name="blogs_report_hide",
            ),
            path(
                "<int:report_id>/restore/",
                self.admin_site.admin_view(require_POST(self.restore_view)),
                name="blogs_report_restore",
            ),
        ]
        return decide + super().get_urls()

    def _decide(self, request, report_id: int, *, hide: bool) -> HttpResponseRedirect:
        report = Report.objects.filter(pk=report_id).first()
        if report is None or not self.has_change_permission(request, report):
            raise Http404(gettext("No such report."))
        self._handle(request, Report.objects.filter(pk=report.pk), hide=hide)
        return HttpResponseRedirect(reverse("admin:blogs_report_change", args=[report.pk]))

    def hide_view(self, request, report_id: int) -> HttpResponseRedirect:
        return self._decide(request, report_id, hide=True)

    def restore_view(self, request, report_id: int) -> HttpResponseRedirect:
        return self._decide(request, report_id, hide=False)

    # --- the same as bulk actions on the queue --------------------------------------

    @admin.action(description=_("Hide the reported notes or comments"), permissions=["change"])
    def hide(self, request, queryset):
        self._handle(request, queryset, hide=True)

    @admin.action(
        description=_("Restore (keep) the reported notes or comments"), permissions=["change"]
    )
    def restore(self, request, queryset):
        self._handle(request, queryset, hide=False)

    def _handle(self, request, queryset, *, hide: bool) -> None:
        targets = set(queryset.values_list("kind", "target_id"))
        for kind, target_id in sorted(targets):
            services.moderate(kind=kind, target_id=target_id, hide=hide, by_user_id=request.user.id)
        self.message_user(
            request,
            gettext("%(count)d reported items handled.") % {"count": len(targets)},
            messages.SUCCESS,
        )
