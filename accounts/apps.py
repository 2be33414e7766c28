from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = _("Accounts")

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from search.documents import register

        from . import signals
        from .models import User
        from .search import UserSource

        register(UserSource())

        post_delete.connect(
            signals.user_deleted, sender=User, dispatch_uid="accounts.revoke-tokens-on-delete"
        )
        post_save.connect(
            signals.user_saved, sender=User, dispatch_uid="accounts.revoke-tokens-on-disable"
        )
