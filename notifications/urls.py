from django.urls import path

from .views import (
    NotificationViewSet,
    SaleWatchViewSet,
    StreamTicketViewSet,
    StreamViewSet,
    inbox_view,
    unread_count_view,
)

# The bell's reads (every signed-in client polls the unread count): dianping/urls.py lists
# these routes at its top level (no include to descend into), right after the shop pages.
bell_urlpatterns = [
    path("api/notifications/unread-count", unread_count_view, name="notifications-unread"),
    path("api/notifications", inbox_view, name="notifications"),
]

urlpatterns = [
    path(
        "notifications/read",
        NotificationViewSet.as_view({"post": "mark_read"}),
        name="notifications-read",
    ),
    path(
        "notifications/stream-ticket",
        StreamTicketViewSet.as_view({"post": "create"}),
        name="notifications-stream-ticket",
    ),
    # Served by the stream process (scripts/stream.sh); here for the schema, and to say so.
    path(
        "notifications/stream",
        StreamViewSet.as_view({"get": "retrieve"}),
        name="notifications-stream",
    ),
    path("vouchers/watched", SaleWatchViewSet.as_view({"get": "list"}), name="vouchers-watched"),
    path(
        "vouchers/<id:voucher_id>/watch",
        SaleWatchViewSet.as_view({"put": "update", "delete": "destroy"}),
        name="voucher-watch",
    ),
]
