#!/usr/bin/env bash
# `make run`: prepare everything, then run web + the notification stream + Celery worker
# + Celery beat until Ctrl-C, SIGTERM or SIGHUP (or until one of them dies), and stop
# everything it started, its Redis included.
#   scripts/run.sh            the whole thing
#   scripts/run.sh --check    only say whether another `make run` holds the checkout
#                             (exit 1 if so): make calls it before setting anything up
set -euo pipefail
cd "$(dirname "$0")/.."

PY=.venv/bin/python
HOST="${HOST:-127.0.0.1}"
PORT="${PORT:-8000}"
STREAM_PORT="${STREAM_PORT:-$((PORT + 1))}"  # the notification stream's own server
export DJANGO_SETTINGS_MODULE="${DJANGO_SETTINGS_MODULE:-dianping.settings.dev}"
LOCK=var/run.lock

# One `make run` per checkout: a second one would re-seed live data and fight over the
# port. The lock is an open file descriptor that no child inherits, so it goes with this
# process, however it ends.
mkdir -p var
exec 9>"$LOCK"
if ! flock -n 9; then
  echo "error: make run is already running in this checkout (var/run.lock is held)." >&2
  echo "       stop it first, or use its server on http://$HOST:$PORT/." >&2
  exit 1
fi
if [ "${1:-}" = --check ]; then
  exit 0
fi
if (exec 3<>"/dev/tcp/$HOST/$PORT") 2>/dev/null; then
  echo "error: something already listens on $HOST:$PORT; set PORT=… to use another port." >&2
  exit 1
fi
if (exec 3<>"/dev/tcp/$HOST/$STREAM_PORT") 2>/dev/null; then
  echo "error: something already listens on $HOST:$STREAM_PORT; set STREAM_PORT=… to use another port." >&2
  exit 1
fi

pids=()
declare -A redis=()  # purpose (run, sale) -> "starting", "started", "running", "external"
declare -A redis_pid=() redis_state=()
cleanup() {
  # Ignore further signals: a closing terminal often sends SIGHUP twice, and a second
  # Ctrl-C must not cut the cleanup short either.
  trap '' INT TERM HUP
  trap - EXIT
  # No `set -e` in here: after a hang-up the terminal is gone and every echo fails, and
  # the cleanup must still stop everything.
  set +e
  echo
  echo "==> stopping"
  # Each leader first, so Celery shuts down warm (its pool finishes the task in hand,
  # a drain within 10 s); then whatever is left of their process groups.
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for _ in $(seq 150); do
    alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -KILL -- "-$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  for purpose in "${!redis[@]}"; do
    if [ "${redis[$purpose]}" = starting ]; then
      # A signal came while this Redis was starting: let that start finish, then stop
      # what it started (and only that).
      wait "${redis_pid[$purpose]}" 2>/dev/null
      redis[$purpose]=$(cat "${redis_state[$purpose]}" 2>/dev/null)
      rm -f "${redis_state[$purpose]}"
    fi
    if [ "${redis[$purpose]}" = started ]; then scripts/redis.sh stop "$purpose"; fi
  done
}
trap cleanup EXIT
# Ctrl-C, a service manager's SIGTERM and a closed terminal's SIGHUP are how make run is
# meant to end: a clean stop, status 0 (make prints no error; GNU make itself still ends
# by the signal it got, as it always does). A process that dies on its own is exit 1 below.
trap 'exit 0' INT TERM HUP

# Started in the background and waited for, so a signal that arrives while Redis loads its
# data is handled at once, and the Redis it started is stopped too. The start ignores the
# signals itself, so one under way finishes and says what it started, which the cleanup
# then stops.
ensure_redis() {
  local purpose=$1
  redis_state[$purpose]=$(mktemp)
  redis[$purpose]=starting  # before the start: a signal from here on waits for it
  # RUN_LOCK_HELD: it may stop this checkout's Redis of another database (decision 294).
  (trap '' INT TERM HUP; RUN_LOCK_HELD=1 exec scripts/redis.sh ensure "$purpose") \
    >"${redis_state[$purpose]}" 9>&- &
  redis_pid[$purpose]=$!
  wait "${redis_pid[$purpose]}" || { unset "redis[$purpose]"; rm -f "${redis_state[$purpose]}"; exit 1; }
  redis[$purpose]=$(cat "${redis_state[$purpose]}")
  rm -f "${redis_state[$purpose]}"
}
ensure_redis run  # unless REDIS_URL is set
# The flash sale on a Redis of its own (fsync'd), the rest on one that is not: unless
# SECKILL_REDIS_URL or REDIS_URL says where they are (docs/operations.md).
ensure_redis sale
if [ "${redis[sale]}" != external ]; then
  export SECKILL_REDIS_URL="redis://127.0.0.1:${SALE_REDIS_PORT:-6392}/0"
fi

echo "==> migrating the database"
$PY manage.py migrate --noinput
# Each database keeps its own Redis data (scripts/redis.sh): a Redis that holds another
# database's (one made anew at this DATABASE_URL, or a REDIS_URL of another) is refused.
echo "==> checking that Redis holds this database's data"
status=0
$PY manage.py redis_identity || status=$?
if [ "$status" != 0 ]; then
  dirs=()
  for purpose in run sale; do
    if [ "${redis[$purpose]}" != external ]; then dirs+=("$(scripts/redis.sh dir "$purpose")"); fi
  done
  if [ "$status" = 3 ] && [ "${#dirs[@]}" -gt 0 ]; then
    echo "       make run keeps this database's Redis data in ${dirs[*]}. If the database was" >&2
    echo "       made anew at this DATABASE_URL, that data is the old one's: once make run has" >&2
    echo "       stopped, run \`make redis-stop; rm -rf ${dirs[*]}\` and start it again." >&2
  fi
  exit 1
fi
echo "==> loading demo data"
$PY manage.py seed_demo --force
echo "==> preloading the GEO index, Bloom filter, search index and flash-sale stock"
$PY manage.py load_shop_geo
$PY manage.py rebuild_search_index  # demo data is bulk-loaded, past the services' refreshes
$PY manage.py preload_stock
$PY manage.py reconcile_seckill --fix >/dev/null  # flash-sale shards verified (vouchers/sale/heal.py)

# Metrics (docs/operations.md "Metrics"): every process below writes its counters to one
# directory, emptied first (a past run's processes are gone), and /metrics sums them.
export PROMETHEUS_MULTIPROC_DIR="$PWD/var/metrics"
rm -rf "$PROMETHEUS_MULTIPROC_DIR"
mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
export METRICS_TOKEN="${METRICS_TOKEN:-$($PY -c 'import secrets; print(secrets.token_urlsafe(32))')}"

# Each process leads its own process group (setsid), so stopping it also stops
# its children (runserver's autoreloader, Celery's pool). Celery logs its routine at
# WARNING: what matters here (a failing task, the SMS codes) stays visible.
start() {
  local name=$1
  shift
  setsid "$@" > >(sed -u "s/^/[$name] /") 2>&1 9>&- &  # the lock is ours alone
  pids+=($!)
}
# The page opens its notification stream on this host at STREAM_PORT (decision 388): the
# stream's ASGI server, not runserver, whose threads would each hold a stream.
export NOTIFICATIONS_STREAM_URL=":$STREAM_PORT/api/notifications/stream"
start web $PY manage.py runserver "$HOST:$PORT"
start stream env HOST="$HOST" STREAM_PORT="$STREAM_PORT" scripts/stream.sh --log-level warning
start worker .venv/bin/celery --quiet -A dianping worker --loglevel WARNING --concurrency 2
start beat .venv/bin/celery --quiet -A dianping beat --loglevel WARNING --schedule var/celerybeat-schedule

cat <<MSG

  Dianping is running:
    web client    http://$HOST:$PORT/
    notifications http://$HOST:$STREAM_PORT/api/notifications/stream   (server-sent events; README)
    API docs      http://$HOST:$PORT/api/docs/
    admin         http://$HOST:$PORT/admin/   (credentials printed above)
    health        http://$HOST:$PORT/api/health
    metrics       curl -H "Authorization: Bearer $METRICS_TOKEN" http://$HOST:$PORT/metrics
  Log in: ask for a code first (the client's login page, or the README's POST /api/auth/code);
    the console SMS backend then prints it here, on a line of its own that starts
    "==> SMS to <phone>:". Or skip the SMS: .venv/bin/python manage.py issue_tokens --phone 13800000001
  Ctrl-C stops everything.

MSG
wait -n "${pids[@]}" || true
echo "==> a process exited; shutting the rest down"
exit 1
