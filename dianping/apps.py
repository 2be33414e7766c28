from django.apps import AppConfig


class DianpingConfig(AppConfig):
    name = "dianping"
    verbose_name = "Dianping platform"

    def ready(self) -> None:
        from .api import converters

        converters.register()
