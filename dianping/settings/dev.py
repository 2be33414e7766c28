"""Local development (`make run`): DEBUG on, codes printed to the console."""

from .base import *  # noqa: F403
from .base import VAR_DIR, env

VAR_DIR.mkdir(exist_ok=True)  # the SQLite database, SMS outbox and beat schedule live there

DEBUG = env.bool("DEBUG", default=True)
# The notification stream's server is another process: `make run` starts it and says
# where (scripts/run.sh); a bare `manage.py runserver` has none, and the bell polls.
NOTIFICATIONS_STREAM_URL = env.str("NOTIFICATIONS_STREAM_URL", default="")
