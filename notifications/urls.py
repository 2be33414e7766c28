from django.urls import path

from .views import NotificationViewSet, SaleWatchViewSet

urlpatterns = [
    path("notifications", NotificationViewSet.as_view({"get": "list"}), name="notifications"),
    path(
        "notifications/unread-count",
        NotificationViewSet.as_view({"get": "unread_count"}),
        name="notifications-unread",
    ),
    path(
        "notifications/read",
        NotificationViewSet.as_view({"post": "mark_read"}),
        name="notifications-read",
    ),
    path("vouchers/watched", SaleWatchViewSet.as_view({"get": "list"}), name="vouchers-watched"),
    path(
        "vouchers/<id:voucher_id>/watch",
        SaleWatchViewSet.as_view({"put": "update", "delete": "destroy"}),
        name="voucher-watch",
    ),
]
