from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FollowsConfig(AppConfig):
    name = "follows"
    verbose_name = _("Follows")
