from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class VouchersConfig(AppConfig):
    name = "vouchers"
    verbose_name = _("Vouchers")

    def ready(self) -> None:
        from . import receivers

        receivers.connect()
