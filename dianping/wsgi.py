"""WSGI entry point. Production servers set DJANGO_SETTINGS_MODULE explicitly."""

import os
import sys

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dianping.settings.production")

# WEB_SWITCH_INTERVAL (seconds): how long a thread waiting for the GIL waits before it asks
# the running one to let go (Python's default 0.005). Only matters with several blocking
# threads per worker (docs/operations.md "Sizing the web tier", decision 300).
if os.environ.get("WEB_SWITCH_INTERVAL"):
    sys.setswitchinterval(float(os.environ["WEB_SWITCH_INTERVAL"]))

application = get_wsgi_application()

# A Redis that holds another database's data is not served from (decision 292): the
# worker ends here, with the reason, before it answers anything.
from toolkit import identity  # noqa: E402 (needs the configured settings)

identity.verify_at_start("web")

# The near cache's listener and the UV/PV flusher start now rather than on the first
# requests (a worker forked after this starts its own, see toolkit.runtime).
from toolkit import runtime  # noqa: E402 (needs the configured settings)
from toolkit.redis import cache, lock, nearcache  # noqa: E402, F401 (their parts register)

runtime.start()

# The segmenter's dictionary (about 0.1 s) loads in a web process now, not in the first
# search; commands and workers load it when they first need it.
from search import tokenizer  # noqa: E402

tokenizer.warm_up()
