#!/usr/bin/env bash
# The production web server: granian with the flags docs/operations.md explains. Every
# production-shaped run here starts it this way (the smoke test, the probe, the
# benchmarks' servers, tests/platform/test_production_server.py).
#
#   scripts/web.sh [more granian flags]
#   HOST (0.0.0.0), PORT (8000), WEB_WORKERS (one per core this process may use),
#   WEB_THREADS (1), WEB_SWITCH_INTERVAL (unset: Python's 5 ms), GRANIAN (its path)
#
# One blocking thread per worker and one worker per core (decision 299): with several
# threads, the thread that holds the GIL takes the next request and the GIL again before a
# waiting thread wakes, so a request another thread already took waits until the queue
# empties (p99 0.55-1.4 s at saturation with 4 threads, 6-17 ms with 1). docs/operations.md
# "Sizing the web tier" says when to set more.
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
workers="${WEB_WORKERS:-}"
if [ -z "$workers" ]; then
  # The cores this process may run on (taskset, cpusets); OpenMP's variables would bend nproc.
  workers=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc 2>/dev/null || echo 2)
fi
exec "$granian" --interface wsgi --no-ws \
  --workers "$workers" --blocking-threads "${WEB_THREADS:-1}" \
  --respawn-failed-workers --respawn-interval "${WEB_RESPAWN_SECONDS:-1}" \
  --host "${HOST:-0.0.0.0}" --port "${PORT:-8000}" "$@" dianping.wsgi:application
