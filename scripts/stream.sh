#!/usr/bin/env bash
# The notification stream's server: granian serving dianping.stream_asgi (ASGI), the one
# path GET /api/notifications/stream; a reverse proxy routes that path here and the rest
# to scripts/web.sh (docs/operations.md "Notification stream"). `make run` starts it too.
#
#   scripts/stream.sh [more granian flags]
#   HOST (0.0.0.0), STREAM_PORT (8001), STREAM_WORKERS (1), STREAM_MAX_CONNECTIONS
#   (10000 per worker), STREAM_STOP_SECONDS (2), GRANIAN (its path)
#
# One worker holds thousands of streams: each is a coroutine, not a thread (decision 384);
# more workers use more cores, each with its own Redis connection per node. Granian lets
# a worker finish its requests before it stops, and a stream never finishes: after
# STREAM_STOP_SECONDS it is killed, and its clients reconnect (to another process, or to
# this one once it is back) and catch up from Last-Event-ID.
set -euo pipefail
cd "$(dirname "$0")/.."
granian="${GRANIAN:-}"
if [ -z "$granian" ]; then
  if [ -x .venv/bin/granian ]; then granian=.venv/bin/granian; else granian=granian; fi
fi
if [ -n "${PROMETHEUS_MULTIPROC_DIR:-}" ]; then mkdir -p "$PROMETHEUS_MULTIPROC_DIR"; fi
# --backpressure: granian's default admits backlog/workers (1024) requests at once per
# worker, every open stream being one; --backlog is for connections not yet accepted.
exec "$granian" --interface asgi --no-ws \
  --workers "${STREAM_WORKERS:-1}" \
  --backlog 2048 --backpressure "${STREAM_MAX_CONNECTIONS:-10000}" \
  --workers-kill-timeout "${STREAM_STOP_SECONDS:-2}" \
  --respawn-failed-workers --respawn-interval 1 \
  --host "${HOST:-0.0.0.0}" --port "${STREAM_PORT:-8001}" "$@" dianping.stream_asgi:application
