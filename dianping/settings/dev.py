"""Local development (`make run`): DEBUG on, codes printed to the console."""

from .base import *  # noqa: F403
from .base import env

DEBUG = env.bool("DEBUG", default=True)
