from django.apps import AppConfig


class BlogsConfig(AppConfig):
    name = "blogs"

    def ready(self) -> None:
        from . import receivers

        receivers.connect()
