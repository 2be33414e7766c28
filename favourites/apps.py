from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FavouritesConfig(AppConfig):
    name = "favourites"
    verbose_name = _("Favourites")

    def ready(self) -> None:
        from . import receivers

        receivers.connect()
