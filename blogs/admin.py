"""Moderation: operators can read, hide comments, edit text and delete blogs."""

from __future__ import annotations

from django.contrib import admin
from django.db import transaction

from . import likes, reviews, services
from .caches import blog_evict, hot_evict
from .models import Blog, BlogComment


@admin.register(Blog)
class BlogAdmin(admin.ModelAdmin):
    list_display = ["id", "title", "user", "shop", "liked", "comments", "created_at"]
    search_fields = ["title", "user__nick_name"]
    raw_id_fields = ["user", "shop"]
    # The rating is the author's; visibility is the moderation actions'.
    readonly_fields = ["rating", "status", "liked", "comments", "created_at", "updated_at"]
    list_select_related = ["user", "shop"]

    def save_model(self, request, obj, form, change):  # type: ignore[no-untyped-def]
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
            transaction.on_commit(lambda u=user_id: services.pages_changed(u), robust=True)

    def delete_model(self, request, obj):  # type: ignore[no-untyped-def]
        self.delete_queryset(request, Blog.objects.filter(pk=obj.pk))

    def delete_queryset(self, request, queryset):  # type: ignore[no-untyped-def]
        """Bulk deletes too: like keys go, the authors' cached pages are rebuilt."""
        gone = list(queryset.values_list("id", "user_id"))
        super().delete_queryset(request, queryset)
        for blog_id, _ in gone:
            transaction.on_commit(lambda b=blog_id: likes.likes_forget(b), robust=True)
        for user_id in {user_id for _, user_id in gone}:
            transaction.on_commit(lambda u=user_id: services.pages_changed(u), robust=True)


@admin.register(BlogComment)
class BlogCommentAdmin(admin.ModelAdmin):
    list_display = ["id", "blog", "user", "status", "created_at"]
    list_filter = ["status"]
    raw_id_fields = ["blog", "user", "parent"]
