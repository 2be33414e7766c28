"""ASGI entry point. Production servers set DJANGO_SETTINGS_MODULE explicitly."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dianping.settings.production")

application = get_asgi_application()

# A Redis that holds another database's data is not served from (decision 292).
from toolkit import identity  # noqa: E402 (needs the configured settings)

identity.verify_at_start("web")
