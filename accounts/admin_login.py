"""Admin's username/password login, with failed attempts limited per client address and
per username from that address: a guesser on one address is slowed down whichever
usernames it tries, and guessing one username from one address stops sooner.

No limit counts a username across addresses: that one would let anybody lock the
operators out by failing with their usernames, and the real operator could not sign in
from anywhere. Guessing spread over many addresses meets Django's password validators
instead (docs/security.md).

Every attempt is counted when it comes in and taken back when it succeeds, so only
failures use up the budget, and a refused attempt never reaches the password check.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.utils.html import format_html
from django.utils.translation import gettext, ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect

from toolkit.api.clients import client_ip
from toolkit.redis.ratelimit import Decision, SlidingWindowLimiter


def _limiters() -> list[SlidingWindowLimiter]:
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    return [
        SlidingWindowLimiter.for_rate(scope, rates[scope])
        for scope in ("admin_login_ip", "admin_login_user_ip")
    ]


@never_cache
@csrf_protect
def admin_login(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        return admin.site.login(request)
    username = request.POST.get("username", "")[:150].strip().lower()
    address = client_ip(request)
    subjects = [f"ip:{address}", f"user:{username}|ip:{address}"]
    counted: list[tuple[SlidingWindowLimiter, str, Decision]] = []
    for limiter, subject in zip(_limiters(), subjects, strict=True):
        decision = limiter.hit(subject)
        if not decision.allowed:
            for earlier, earlier_subject, taken in counted:  # this attempt never ran
                earlier.refund(earlier_subject, taken)
            return _too_many(decision.retry_after)
        counted.append((limiter, subject, decision))
    response = admin.site.login(request)
    if request.user.is_authenticated:  # logged in: the attempt costs nothing
        for limiter, subject, decision in counted:
            limiter.refund(subject, decision)
    return response


def _too_many(retry_after: float) -> HttpResponse:
    wait = max(1, int(retry_after + 0.999))
    body = format_html(
        "<!doctype html><title>{}</title><h1>{}</h1><p>{}</p>",
        gettext("Too many attempts"),
        gettext("Too many failed sign-ins"),
        ngettext("Try again in %(seconds)s second.", "Try again in %(seconds)s seconds.", wait)
        % {"seconds": wait},
    )
    return HttpResponse(body, status=429, headers={"Retry-After": str(wait)})
