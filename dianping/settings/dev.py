"""Local development (`make run`): DEBUG on, codes printed to the console."""

from .base import *  # noqa: F403
from .base import VAR_DIR, env

VAR_DIR.mkdir(exist_ok=True)  # the SQLite database, SMS outbox and beat schedule live there

DEBUG = env.bool("DEBUG", default=True)
