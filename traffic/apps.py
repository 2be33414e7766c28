from django.apps import AppConfig


class TrafficConfig(AppConfig):
    """Site traffic: unique visitors and page views per subject per day (no models)."""

    name = "traffic"

    def ready(self) -> None:
        # The UV/PV flusher registers with toolkit.runtime when its module is imported;
        # importing it here puts it among the parts runtime.start() starts, without the
        # toolkit importing this app.
        from . import visits  # noqa: F401
