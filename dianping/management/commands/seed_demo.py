"""Load demo data, idempotently: users, a staff account, shops, vouchers, blogs, follows,
sign-ins, a merchant with its shops' history, notifications."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts import demo as accounts_demo
from blogs import demo as blogs_demo
from blogs.models import Blog
from favourites import demo as favourites_demo
from merchants import demo as merchants_demo
from notifications import demo as notifications_demo
from notifications.selectors import unread_count
from rankings import services as rankings_services
from recommendations.store import recommendations_rebuild
from shops import demo as shops_demo
from signin import demo as signin_demo
from signin import services as signin_services
from toolkit import identity
from vouchers import demo as vouchers_demo


class Command(BaseCommand):
    help = "Create demo data (safe to re-run)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--force", action="store_true", help="Run even with DEBUG off (never in production)."
        )

    def handle(self, *args: Any, force: bool, **options: Any) -> None:
        if not settings.DEBUG and not force:
            raise CommandError(
                "seed_demo sets a well-known admin password; use --force to run it with DEBUG off."
            )
        try:  # never seed beside another database's Redis state (decision 292)
            identity.verify()
        except identity.RedisOfAnotherDatabase as refused:
            raise CommandError(str(refused)) from None
        users = accounts_demo.seed_users()
        types, shops = shops_demo.seed_shops()
        vouchers = vouchers_demo.seed_vouchers()["vouchers"]
        coupon_shop = vouchers_demo.demo_shops()[0]
        social = blogs_demo.seed_blogs(users)  # first: it writes only while no note exists
        city_reviews = blogs_demo.seed_second_city_reviews(users)
        signins = signin_demo.seed_signins(users)
        merchant = accounts_demo.seed_merchant()
        business = merchants_demo.seed_merchant(merchant, users)
        notified = notifications_demo.seed_notifications(users)
        unread = unread_count(recipient_id=users[0].id)  # what the bell will show
        favourites_demo.seed_favourites(users)  # demo user 1's saved shops, notes and sale
        recommendations_rebuild()  # "guess you like" learns the seeded (bulk) ratings and likes
        rankings_services.compute_all(force=True)  # last: from the reviews and saves above
        ok = self.style.SUCCESS
        self.stdout.write(ok(f"demo users: {len(users)} ({users[0].phone}..{users[-1].phone})"))
        self.stdout.write(
            ok(
                f"shop types: {types}, shops: {shops} (around People's Square, Shanghai, and "
                f"a few in Hangzhou, with {city_reviews} new reviews and a flash sale)"
            )
        )
        self.stdout.write(
            ok(
                f"vouchers: {vouchers} ({vouchers_demo.sales_summary()}; "
                f"cash, 满减 and 折扣 coupons at shop {coupon_shop.id})"
            )
        )
        notes = Blog.objects.filter(status=Blog.Status.VISIBLE).count()  # as hot and search count
        self.stdout.write(
            ok(
                f"notes: {notes} ({social['blogs']} new, {social['likes']} likes and "
                f"{social['follows']} follows new: the demo users' notes are written once)"
            )
        )
        run = signin_services.streak(user_id=users[0].id)  # as it stands now, not as seeded
        today = "signed today" if run.signed_today else "sign today to extend it"
        self.stdout.write(
            ok(f"sign-ins: {signins} new ({users[0].phone} has a {run.days}-day streak, {today})")
        )
        owned = ", ".join(str(shop.id) for shop in business["shops"]) or "none"
        self.stdout.write(
            ok(
                f"demo merchant: {merchant.phone} owns shops {owned}: "
                f"{business['reviews']} reviews ({business['replies']} replied), "
                f"{business['offers']} offers; visits of {business['days']} more days"
            )
        )
        self.stdout.write(
            ok(f"notifications: {notified} for {users[0].phone}, {unread} of them unread")
        )
        self._seed_admin()

    def _seed_admin(self) -> None:
        """Only with DEBUG on: a well-known password has no place on a production server
        (`--force` seeds shops and sales there for benchmarks, never an operator)."""
        ok = self.style.SUCCESS
        if not settings.DEBUG:
            self.stdout.write(ok("admin: not created with DEBUG off (use createsuperuser)"))
            return
        staff, created = accounts_demo.seed_admin()
        if created:
            password = accounts_demo.ADMIN_PASSWORD
            self.stdout.write(ok(f"admin login: username={staff.username} password={password}"))
        else:
            self.stdout.write(ok(f"admin login: username={staff.username} (password unchanged)"))
