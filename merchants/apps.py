from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MerchantsConfig(AppConfig):
    name = "merchants"
    verbose_name = _("Merchants")

    def ready(self) -> None:
        from . import receivers

        receivers.connect()
