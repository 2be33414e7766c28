"""WSGI entry point. Production servers set DJANGO_SETTINGS_MODULE explicitly."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dianping.settings.production")

application = get_wsgi_application()
