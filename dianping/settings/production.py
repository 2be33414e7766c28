"""Production: secrets must come from the environment; HTTPS everywhere."""

import copy

from .base import *  # noqa: F403
from .base import LOGGING, MIDDLEWARE, REST_FRAMEWORK, STORAGES, env

# Static files (admin, API docs) served by the app itself, compressed and cache-busted.
# Right after SecurityMiddleware (whitenoise's rule), so static files get its headers.
_security = MIDDLEWARE.index("django.middleware.security.SecurityMiddleware") + 1
MIDDLEWARE = [
    *MIDDLEWARE[:_security],
    "whitenoise.middleware.WhiteNoiseMiddleware",
    *MIDDLEWARE[_security:],
]

# One JSON object per line, for the log collector (docs/operations.md "Logs").
LOGGING = copy.deepcopy(LOGGING)
LOGGING["handlers"]["console"]["formatter"] = env.str("LOG_FORMAT", default="json")

DEBUG = False
SECRET_KEY = env.str("SECRET_KEY")  # no default: refuse to start without a real key
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS")

STORAGES = {
    **STORAGES,  # the uploads' store, as base chose it
    # whitenoise's compressed, hashed names, the web client's module imports rewritten to them
    "staticfiles": {"BACKEND": "dianping.staticfiles.StaticFilesStorage"},
}

SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=60 * 60 * 24 * 365)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
LANGUAGE_COOKIE_SECURE = True
SMS_BACKEND = env.str("SMS_BACKEND", default="file")
# NUM_PROXIES (base settings, default 0) says how many proxies of ours stand in front.
# Only behind one do the X-Forwarded-* headers come from us: trusted then, ignored else.
if REST_FRAMEWORK["NUM_PROXIES"]:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
