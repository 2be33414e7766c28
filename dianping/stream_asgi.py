"""The notification stream's process: `granian --interface asgi dianping.stream_asgi:application`
(scripts/stream.sh). Production servers set DJANGO_SETTINGS_MODULE explicitly."""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dianping.settings.production")
django.setup()

# A Redis that holds another database's data is not served from (decision 292).
from toolkit import identity  # noqa: E402 (needs the configured settings)

identity.verify_at_start("stream")

from dianping.streaming import application  # noqa: E402

__all__ = ["application"]
