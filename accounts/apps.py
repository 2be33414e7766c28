from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from . import signals
        from .models import User

        post_delete.connect(
            signals.user_deleted, sender=User, dispatch_uid="accounts.revoke-tokens-on-delete"
        )
        post_save.connect(
            signals.user_saved, sender=User, dispatch_uid="accounts.revoke-tokens-on-disable"
        )
