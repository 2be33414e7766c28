from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class BlogsConfig(AppConfig):
    name = "blogs"
    verbose_name = _("Blogs")

    def ready(self) -> None:
        from search.documents import register

        from .search import NoteSource

        register(NoteSource())

        from . import receivers

        receivers.connect()
