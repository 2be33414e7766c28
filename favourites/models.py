"""What a user saved for later: a row per user, kind and target. The Redis set per user
and kind (keys.favourites) mirrors these rows; the `favourites` count of a shop or a note
moves with them, in their transaction."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from toolkit import clock


class Favourite(models.Model):
    class Kind(models.TextChoices):
        SHOP = "shop", _("shop")
        BLOG = "blog", _("note")
        VOUCHER = "voucher", _("voucher")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", verbose_name=_("user")
    )
    kind = models.CharField(_("kind"), max_length=8, choices=Kind.choices)
    # No foreign key: one column for three tables. A target's deletion deletes its rows
    # (favourites.receivers); an insert never share-locks a hot voucher's row.
    object_id = models.PositiveBigIntegerField(_("saved item"))
    created_at = models.DateTimeField(_("saved at"), default=clock.now)
    # A voucher's: saving it made the sale's reminder (notifications.SaleWatch), so
    # unsaving it takes the reminder back; a reminder asked for apart is left alone.
    made_watch = models.BooleanField(_("made the sale's reminder"), default=False)
    # Not a column: favourites.services sets it on a row it deletes (and counts itself),
    # so that the post_delete receiver counts only deletions made past the services.
    counted: bool

    class Meta:
        verbose_name = _("favourite")
        verbose_name_plural = _("favourites")
        constraints = [
            models.UniqueConstraint(fields=["user", "kind", "object_id"], name="favourite_once")
        ]
        indexes = [
            # "My favourites" of a kind: newest first, scrolled by id.
            models.Index(fields=["user", "kind", "-id"], name="favourite_newest"),
            # A target's savers: its deletion, its recount.
            models.Index(fields=["kind", "object_id"], name="favourite_target"),
        ]

    def __str__(self) -> str:
        return f"user {self.user_id} saved {self.kind} {self.object_id}"
