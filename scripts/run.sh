#!/usr/bin/env bash
# `make run`: prepare everything, then run web + Celery worker + Celery beat
# until Ctrl-C (or until one of them dies), and stop everything it started.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=.venv/bin/python
HOST="${HOST:-127.0.0.1}"
PORT="${PORT:-8000}"
export DJANGO_SETTINGS_MODULE="${DJANGO_SETTINGS_MODULE:-dianping.settings.dev}"

pids=()
redis=""
cleanup() {
  trap - EXIT INT TERM
  echo
  echo "==> stopping"
  for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ "$redis" = started ]; then scripts/redis.sh stop; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

redis=$(scripts/redis.sh ensure run)  # unless REDIS_URL is set; waits for it to load its data

echo "==> migrating the database"
$PY manage.py migrate --noinput
echo "==> loading demo data"
$PY manage.py seed_demo --force
echo "==> preloading the GEO index, Bloom filter and flash-sale stock"
$PY manage.py load_shop_geo
$PY manage.py preload_stock

# Each process leads its own process group (setsid), so stopping it also stops
# its children (runserver's autoreloader, Celery's pool).
start() {
  local name=$1
  shift
  setsid "$@" > >(sed -u "s/^/[$name] /") 2>&1 &
  pids+=($!)
}
start web $PY manage.py runserver "$HOST:$PORT"
start worker .venv/bin/celery -A dianping worker --loglevel INFO --concurrency 2
start beat .venv/bin/celery -A dianping beat --loglevel INFO --schedule var/celerybeat-schedule

cat <<MSG

  Dianping is running:
    web client    http://$HOST:$PORT/
    API docs      http://$HOST:$PORT/api/docs/
    admin         http://$HOST:$PORT/admin/   (credentials printed above)
    health        http://$HOST:$PORT/api/health
  Login codes are printed here by the console SMS backend. Ctrl-C stops everything.

MSG
wait -n "${pids[@]}" || true
echo "==> a process exited; shutting the rest down"
