from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DianpingConfig(AppConfig):
    name = "dianping"
    verbose_name = _("Dianping platform")

    def ready(self) -> None:
        from django.contrib import admin
        from django.db.models.signals import post_migrate

        from toolkit import identity
        from toolkit.api import converters

        converters.register()
        # Every migrated database has its identity (decision 291), a new one at once.
        post_migrate.connect(identity.ensure_after_migrate, sender=self)
        # The admin's own titles, in the operator's language like the rest of it.
        admin.site.site_header = _("Dianping operators' admin")
        admin.site.site_title = _("Dianping admin")
        admin.site.index_title = _("Platform data")
