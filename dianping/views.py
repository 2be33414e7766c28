"""Project-level views: health, picture uploads, and JSON error pages for /api/ paths."""

from __future__ import annotations

import functools
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.response import HttpResponseBase
from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.module_loading import import_string
from django.utils.translation import gettext
from django.views import csrf, defaults, static
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularAPIView
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import api_view
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from pictures import imagework, uploads
from toolkit.api.exceptions import domain_error_json, json_error
from toolkit.api.schema import api_errors
from toolkit.api.throttles import WriteLimited
from toolkit.errors import Code, Forbidden, MethodNotAllowed, NotFound, PayloadTooLarge
from toolkit.redis.client import get_redis
from toolkit.redis.outage import OUTAGE_ERRORS


@extend_schema(responses={200: dict, 503: dict})
@api_view(["GET"])
@never_cache
def health(request: Request) -> Response:
    """`status` "ok": the database and Redis answer and each of settings.HEALTH_CHECKS
    passes (beat and the workers alive, the flash-sale drain keeping up). "degraded" (still
    200): Redis cannot be reached, so public reads come from the database and whatever
    needs Redis answers 503; taking every web server out of rotation for it would turn
    that into a full outage. "failing" (503): the database is down or a check failed.

    A DRF view like every API endpoint, so a token it carries is refreshed too.
    """
    checks: dict[str, Any] = {}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        checks["database"] = "ok"
    except Exception as exc:  # report, do not crash: this endpoint exists for outages
        checks["database"] = f"error: {type(exc).__name__}"
    try:
        get_redis().ping()
        checks["redis"] = "ok"
    except Exception as exc:
        checks["redis"] = f"error: {type(exc).__name__}"
    passed, degraded = checks["database"] == "ok", checks["redis"] != "ok"
    if not degraded:
        for path in settings.HEALTH_CHECKS:
            try:
                fields, check_passed = import_string(path)()
            except Exception as exc:  # report, do not crash
                fields = {path.rsplit(".", 1)[1]: f"error: {type(exc).__name__}"}
                # A Redis that cannot be reached (the sale's own, say) degrades; else it fails.
                check_passed = isinstance(exc, OUTAGE_ERRORS)
                degraded = degraded or check_passed
            checks |= fields
            passed = passed and check_passed
    checks["status"] = "failing" if not passed else "degraded" if degraded else "ok"
    return Response(checks, status=200 if passed else 503)


def _get_only(view):
    """The plain baseline views answer GET (and HEAD); any other method is a JSON 405,
    never Django's CSRF page (they read no cookie, so CSRF does not apply)."""

    @csrf_exempt
    @functools.wraps(view)
    def wrapped(request: HttpRequest) -> HttpResponse:
        if request.method not in ("GET", "HEAD"):
            return domain_error_json(MethodNotAllowed(request.method, ("GET", "HEAD")))
        return view(request)

    return wrapped


@_get_only
def ping(request: HttpRequest) -> JsonResponse:
    """The benchmark baseline: a bare Django JSON view behind the same middleware."""
    return JsonResponse({"pong": True})


@_get_only
def ping_redis(request: HttpRequest) -> JsonResponse:
    """The floor of any Redis-backed endpoint: `ping` plus one Redis round trip (PING).
    Benchmarks compare against it to separate our code's cost from the network's."""
    return JsonResponse({"pong": bool(get_redis().ping())})


# (language, time zone, stream URL) -> the page, its CSRF slot empty
_pages: dict[tuple[str, str, str], str] = {}
_CSRF_SLOT = "\x00csrf-token\x00"


def home(request: HttpRequest) -> HttpResponse:
    """The web client's one page, rendered once per language and time zone in each
    process: between requests only its CSRF token (for the language switch) differs, put
    in as the page goes out. With DEBUG on it is rendered every time (templates change)."""
    stream_url = settings.NOTIFICATIONS_STREAM_URL  # "": no stream, the bell polls
    key = (translation.get_language(), timezone.get_current_timezone_name(), stream_url)
    page = _pages.get(key)
    if page is None:
        page = render_to_string("index.html", {"csrf_token": _CSRF_SLOT, "stream_url": stream_url})
        if not settings.DEBUG:
            _pages[key] = page
    response = HttpResponse(page.replace(_CSRF_SLOT, get_token(request)))
    stream_origin = _stream_origin(stream_url)
    if stream_origin:  # the page may open its stream there (GuardMiddleware keeps this one)
        response["Content-Security-Policy"] = settings.CONTENT_SECURITY_POLICY.replace(
            "connect-src 'self'", f"connect-src 'self' {stream_origin}"
        )
    return response


def _stream_origin(stream_url: str) -> str:
    """Where the notification stream is, when not on this origin: `:<port>/…` (this host
    on another port, `make run`) allows that port on any host, since the page's host name
    is the browser's to choose (decision 388); a full URL allows its origin."""
    if stream_url.startswith(":"):
        port = stream_url[1:].split("/", 1)[0]
        return f"http://*:{port} https://*:{port}"
    if "://" in stream_url:
        parts = urlsplit(stream_url)
        return f"{parts.scheme}://{parts.netloc}"
    return ""


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


@csrf_exempt  # any method: a POST to an unknown path is a 404 too, not a CSRF page
def api_not_found(request: HttpRequest) -> JsonResponse:
    return domain_error_json(NotFound())


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW: the API never uses cookies, so a CSRF refusal there can only
    come from a view that forgot its exemption; answer in the API's shape anyway."""
    if _is_api(request):
        return domain_error_json(
            Forbidden(gettext("CSRF verification failed."), code=Code.CSRF_FAILED)
        )
    return csrf.csrf_failure(request, reason)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        return api_not_found(request)
    return defaults.page_not_found(request, exception)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        if isinstance(exception, RequestDataTooBig):  # read by a middleware or plain view
            return domain_error_json(PayloadTooLarge())
        body = {"detail": gettext("Bad request."), "code": Code.BAD_REQUEST}
        return json_error(body, 400)
    return defaults.bad_request(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    if _is_api(request):
        body = {"detail": gettext("Server error."), "code": Code.SERVER_ERROR}
        return json_error(body, 500)
    return defaults.server_error(request)


def media(request: HttpRequest, path: str) -> HttpResponseBase:
    """An uploaded picture from local storage (MEDIA_SERVE): their names are random and
    their content re-encoded by us, so serving them as files is safe."""
    return static.serve(request, path, document_root=settings.MEDIA_ROOT)


class UploadRequestSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="A JPEG, PNG or WebP picture, at most 5 MB.")


class UploadedImageSerializer(serializers.Serializer):
    url = serializers.CharField()
    thumbnail_url = serializers.CharField()
    width = serializers.IntegerField()
    height = serializers.IntegerField()


class SchemaView(SpectacularAPIView):
    """The OpenAPI schema, in English whatever the reader's language: model help texts are
    translated for the admin, and docstrings and serializer help are not, so a schema in
    the request's language would come out half Chinese, half English."""

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        with translation.override("en"):
            response = super().dispatch(request, *args, **kwargs)
            assert isinstance(response, Response)  # the schema, or DRF's error answer
            response.render()  # now: lazy texts in the document resolve in English
        response["Content-Language"] = "en"
        return response


class UploadViewSet(WriteLimited, viewsets.ViewSet):
    permission_classes = [IsAuthenticated]
    parser_classes = [MultiPartParser]
    write_limits = {"create": "upload_user"}

    @extend_schema(
        request={"multipart/form-data": UploadRequestSerializer},
        responses={201: UploadedImageSerializer},
    )
    @api_errors(503)  # busy: the process's picture queue is full (Retry-After)
    def create(self, request: Request) -> Response:
        """Upload a picture for a blog or an avatar: re-encoded (EXIF stripped), stored,
        with a thumbnail. 413 over 5 MB; 400 for anything but a JPEG, PNG or WebP of at
        most 25 megapixels whose file is not far too small for its pixels (a decompression
        bomb); 503 `busy` with Retry-After while other pictures fill the queue."""
        # A place in the picture queue before the body is parsed (GuardMiddleware refused
        # a body over the upload limit unread): a busy process parses no more uploads.
        with imagework.slot():
            form = UploadRequestSerializer(data=request.data)
            form.is_valid(raise_exception=True)
            stored = uploads.image_upload(raw=form.validated_data["file"].read())
        # As the storage spells them: a path on this site for local media (like the demo
        # pictures), an https URL for an S3 store; either is what `images` and `icon` take.
        body = {
            "url": stored.url,
            "thumbnail_url": stored.thumbnail_url,
            "width": stored.width,
            "height": stored.height,
        }
        return Response(body, status=status.HTTP_201_CREATED)
