"""Moderation: operators can read, hide comments, edit text and delete blogs."""

from __future__ import annotations

from django.contrib import admin
from django.db import transaction

from . import likes, services
from .models import Blog, BlogComment


@admin.register(Blog)
class BlogAdmin(admin.ModelAdmin):
    list_display = ["id", "title", "user", "shop", "liked", "comments", "created_at"]
    search_fields = ["title", "user__nick_name"]
    raw_id_fields = ["user", "shop"]
    readonly_fields = ["liked", "comments", "created_at", "updated_at"]
    list_select_related = ["user", "shop"]

    def save_model(self, request, obj, form, change):  # type: ignore[no-untyped-def]
        super().save_model(request, obj, form, change)
        user_id = obj.user_id
        transaction.on_commit(lambda: services.pages_changed(user_id), robust=True)

    def delete_model(self, request, obj):  # type: ignore[no-untyped-def]
        blog_id, user_id = obj.id, obj.user_id
        super().delete_model(request, obj)
        transaction.on_commit(lambda: likes.likes_forget(blog_id), robust=True)
        transaction.on_commit(lambda: services.pages_changed(user_id), robust=True)


@admin.register(BlogComment)
class BlogCommentAdmin(admin.ModelAdmin):
    list_display = ["id", "blog", "user", "status", "created_at"]
    list_filter = ["status"]
    raw_id_fields = ["blog", "user", "parent"]
