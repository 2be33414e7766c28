#!/usr/bin/env bash
# The production web server: granian with the flags docs/operations.md explains. Every
# production-shaped run here starts it this way (the smoke test, the probe, the
# benchmarks' servers, tests/test_production_server.py).
#
#   scripts/web.sh [more granian flags]
#   HOST (0.0.0.0), PORT (8000), WEB_WORKERS (2), WEB_THREADS (4), GRANIAN (its path)
#
# A worker that dies (a segfault, the OOM killer, kill -9) is started again after
# WEB_RESPAWN_SECONDS (1); without --respawn-failed-workers granian would exit instead.
#
# PROMETHEUS_MULTIPROC_DIR, when set, is created here, never emptied: the host's Celery
# worker may already write its counters there; whoever starts the host's processes empties
# it before any of them (docs/operations.md "Metrics").
set -euo pipefail
cd "$(dirname "$0")/.."
granian="${GRANIAN:-}"
if [ -z "$granian" ]; then
  if [ -x .venv/bin/granian ]; then granian=.venv/bin/granian; else granian=granian; fi
fi
if [ -n "${PROMETHEUS_MULTIPROC_DIR:-}" ]; then mkdir -p "$PROMETHEUS_MULTIPROC_DIR"; fi
exec "$granian" --interface wsgi --no-ws \
  --workers "${WEB_WORKERS:-2}" --blocking-threads "${WEB_THREADS:-4}" \
  --respawn-failed-workers --respawn-interval "${WEB_RESPAWN_SECONDS:-1}" \
  --host "${HOST:-0.0.0.0}" --port "${PORT:-8000}" "$@" dianping.wsgi:application
