from django.conf import settings
from django.contrib import admin
from django.urls import include, path, re_path
from django.views.i18n import JavaScriptCatalog
from drf_spectacular.views import SpectacularSwaggerSplitView

from accounts.admin_login import admin_login
from dianping import metrics, views
from notifications.urls import bell_urlpatterns
from signin import views as signin_views
from vouchers.urls import sale_urlpatterns

# Uploaded pictures on local storage (a proxy in front may serve MEDIA_ROOT itself).
MEDIA_URLS = (
    [path(f"{settings.MEDIA_URL.strip('/')}/<path:path>", views.media, name="media")]
    if settings.MEDIA_SERVE
    else []
)

# Django tries patterns in order, so the hottest API routes come first: the flash sale
# (the peaks'), then shop pages (every day's), then the bell's unread count (every
# signed-in client polls it) and inbox, and search (last, each spent 25-35 µs more
# finding its view). The sale's and the bell's are flat patterns, not includes to
# descend into, so a shop page pays one failed regex for the sale's (resolving takes
# 9.2 µs either way; the sale's fell from 13 to 5.5 µs). The benchmarks' baselines
# lead, so that no route order ever flatters a ratio to them.
urlpatterns = [
    path("api/ping", views.ping, name="ping"),
    path("api/ping/redis", views.ping_redis, name="ping-redis"),
    *sale_urlpatterns,
    path("api/", include("shops.urls")),
    *bell_urlpatterns,
    path("api/", include("search.urls")),
    path("api/", include("accounts.urls")),
    path("api/", include("vouchers.urls")),
    path("api/", include("blogs.urls")),
    path("api/", include("follows.urls")),
    path("api/", include("favourites.urls")),
    path("api/", include("rankings.urls")),
    path("api/", include("recommendations.urls")),
    path("api/", include("signin.urls")),
    path("api/", include("notifications.urls")),
    path("api/", include("merchants.urls")),
    path("api/uploads", views.UploadViewSet.as_view({"post": "create"}), name="uploads"),
    path("api/health", views.health, name="health"),
    path("api/schema/", views.SchemaView.as_view(), name="schema"),
    # The split view serves its script from a URL of its own: no inline script (the CSP).
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
    # Unknown API paths answer in the API's error shape, with DEBUG on too.
    re_path(r"^api/", views.api_not_found),
    path("metrics", metrics.metrics_view, name="metrics"),  # bearer METRICS_TOKEN only
    path("admin/signin/report/", signin_views.sign_report, name="sign-report"),
    path("admin/traffic/report/", signin_views.visits_report, name="visits-report"),
    path("admin/login/", admin_login, name="admin-login"),  # admin's own, rate limited
    path("admin/", admin.site.urls),
    *MEDIA_URLS,
    # The client's language: the switch posts to set_language, its strings come from here.
    path("i18n/", include("django.conf.urls.i18n")),
    path("jsi18n/", JavaScriptCatalog.as_view(packages=["dianping"]), name="javascript-catalog"),
    path("", views.home, name="home"),
]

handler400 = "dianping.views.bad_request"
handler404 = "dianping.views.not_found"
handler500 = "dianping.views.server_error"
