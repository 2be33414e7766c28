"""ASGI entry point. Production servers set DJANGO_SETTINGS_MODULE explicitly."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dianping.settings.production")

application = get_asgi_application()
