from django.apps import AppConfig


class DianpingConfig(AppConfig):
    name = "dianping"
    verbose_name = "Dianping platform"
