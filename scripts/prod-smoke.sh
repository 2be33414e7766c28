#!/usr/bin/env bash
# A production install, proved (CI runs this): a virtualenv built from requirements.txt
# alone runs granian, a Celery worker and Celery beat under the production settings, and
# an order the flash sale accepts over HTTP is persisted by the worker's drain.
# Its own Redis (port $SMOKE_REDIS_PORT, default 6393) and SQLite file, under var/smoke.
set -euo pipefail
cd "$(dirname "$0")/.."

dir="$PWD/var/smoke"
venv="$dir/venv"
redis_port="${SMOKE_REDIS_PORT:-6393}"
web_port="${SMOKE_WEB_PORT:-8093}"
pids=()

cleanup() {
  for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  redis-cli -p "$redis_port" shutdown nosave >/dev/null 2>&1 || true
}
trap cleanup EXIT

rm -rf "$dir" && mkdir -p "$dir"
echo "==> a virtualenv from requirements.txt alone"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet -r requirements.txt

redis-server --port "$redis_port" --bind 127.0.0.1 --dir "$dir" --save "" --daemonize yes \
  --logfile "$dir/redis.log" >/dev/null
export DJANGO_SETTINGS_MODULE=dianping.settings.production
export SECRET_KEY="smoke-$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export ALLOWED_HOSTS=127.0.0.1 SECURE_SSL_REDIRECT=false LOG_LEVEL=WARNING
export REDIS_URL="redis://127.0.0.1:$redis_port/0" DATABASE_URL="sqlite:///$dir/db.sqlite3"
py="$venv/bin/python"

echo "==> migrate, demo data (a sale on now), stock"
$py manage.py migrate --noinput -v0
$py manage.py collectstatic --noinput -v0
$py manage.py seed_demo --force >/dev/null
$py manage.py preload_stock >/dev/null

echo "==> granian, a worker and beat"
start() { setsid "$@" >>"$dir/processes.log" 2>&1 & pids+=($!); }
start "$venv/bin/granian" --interface wsgi --workers 1 --blocking-threads 2 \
  --host 127.0.0.1 --port "$web_port" --no-ws dianping.wsgi:application
start "$venv/bin/celery" -A dianping worker --loglevel WARNING --concurrency 2
start "$venv/bin/celery" -A dianping beat --loglevel WARNING --schedule "$dir/beat-schedule"

api="http://127.0.0.1:$web_port/api"
for _ in $(seq 150); do curl -fsS "$api/health" >/dev/null 2>&1 && break; sleep 0.2; done
json() { python3 -c "import json, sys; print($1)"; }
token=$($py manage.py issue_tokens --count 1)
sale=$(curl -fsS "$api/vouchers/activities" | json 'json.load(sys.stdin)[0]["id"]')
order=$(curl -fsS -X POST "$api/vouchers/$sale/seckill" -H "Authorization: Bearer $token" \
  | json 'json.load(sys.stdin)["order_id"]')
echo "==> order $order accepted; waiting for the worker's drain to persist it"
for _ in $(seq 60); do  # beat starts a drain every 10 s
  status=$(curl -fsS "$api/voucher-orders/$order" -H "Authorization: Bearer $token" \
    | json 'json.load(sys.stdin)["status"]')
  [ "$status" != pending ] && break
  sleep 1
done
if [ "$status" != unpaid ]; then
  echo "error: order $order is '$status', not persisted (see $dir/processes.log)" >&2
  tail -30 "$dir/processes.log" >&2
  exit 1
fi
echo "==> ok: a production install persists flash-sale orders"
