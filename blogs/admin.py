"""Moderation: operators can read, hide comments, edit text and delete blogs."""

from __future__ import annotations

from django.contrib import admin
from django.db import transaction

from search import index as search_index

from . import likes, services
from .caches import blog_evict, hot_evict
from .models import Blog, BlogComment


@admin.register(Blog)
class BlogAdmin(admin.ModelAdmin):
    list_display = ["id", "title", "user", "shop", "liked", "comments", "created_at"]
    search_fields = ["title", "user__nick_name"]
    raw_id_fields = ["user", "shop"]
    readonly_fields = ["liked", "comments", "created_at", "updated_at"]
    list_select_related = ["user", "shop"]

    def save_model(self, request, obj, form, change):  # type: ignore[no-untyped-def]
        previous_author = form.initial.get("user") if change else None
        super().save_model(request, obj, form, change)
        transaction.on_commit(lambda: blog_evict(obj.pk), robust=True)
        if not change:
            transaction.on_commit(hot_evict, robust=True)
        for user_id in {obj.user_id, previous_author} - {None}:
            transaction.on_commit(lambda u=user_id: services.pages_changed(u), robust=True)
        search_index.refresh_on_commit("notes", obj.pk)  # an edit, or a hide or restore

    def delete_model(self, request, obj):  # type: ignore[no-untyped-def]
        self.delete_queryset(request, Blog.objects.filter(pk=obj.pk))

    def delete_queryset(self, request, queryset):  # type: ignore[no-untyped-def]
        """Bulk deletes too: like keys go, the authors' cached pages are rebuilt."""
        gone = list(queryset.values_list("id", "user_id"))
        super().delete_queryset(request, queryset)
        for blog_id, _ in gone:
            transaction.on_commit(lambda b=blog_id: likes.likes_forget(b), robust=True)
            search_index.refresh_on_commit("notes", blog_id)
        for user_id in {user_id for _, user_id in gone}:
            transaction.on_commit(lambda u=user_id: services.pages_changed(u), robust=True)


@admin.register(BlogComment)
class BlogCommentAdmin(admin.ModelAdmin):
    list_display = ["id", "blog", "user", "status", "created_at"]
    list_filter = ["status"]
    raw_id_fields = ["blog", "user", "parent"]
