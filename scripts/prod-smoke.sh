#!/usr/bin/env bash
# A production install, proved (CI runs this): a virtualenv built from requirements.txt
# alone runs granian, a Celery worker and Celery beat under the production settings, and
# the product's main flows work end to end over HTTP: log in by SMS code, a shop's
# detail, the flash sale with its order persisted by the worker's drain, a like, a follow
# and the feed, a notification pushed down the notification stream (its own ASGI
# process), a sign-in, and UV/PV for staff.
#   scripts/prod-smoke.sh                 on a Redis of its own (port $SMOKE_REDIS_PORT)
#   SMOKE_CLUSTER=1 scripts/prod-smoke.sh on the local Redis Cluster (scripts/redis-cluster.sh),
#                                         that single Redis then being Celery's broker
# State under var/smoke, SQLite.
set -euo pipefail
cd "$(dirname "$0")/.."

dir="$PWD/var/smoke"
venv="$dir/venv"
redis_port="${SMOKE_REDIS_PORT:-6393}"
web_port="${SMOKE_WEB_PORT:-8093}"
stream_port="${SMOKE_STREAM_PORT:-8094}"
pids=()
stream_reader=""

cleanup() {
  if [ -n "$stream_reader" ]; then kill "$stream_reader" 2>/dev/null || true; fi
  for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  redis-cli -p "$redis_port" shutdown nosave >/dev/null 2>&1 || true
  if [ -n "${SMOKE_CLUSTER:-}" ]; then scripts/redis-cluster.sh stop || true; fi
}
trap cleanup EXIT

rm -rf "$dir" && mkdir -p "$dir"
echo "==> a virtualenv from requirements.txt alone"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet -r requirements.txt

redis-server --port "$redis_port" --bind 127.0.0.1 --dir "$dir" --save "" --daemonize yes \
  --appendonly yes --appendfsync always \
  --logfile "$dir/redis.log" >/dev/null
export DJANGO_SETTINGS_MODULE=dianping.settings.production
export SECRET_KEY="smoke-$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export ALLOWED_HOSTS=127.0.0.1 SECURE_SSL_REDIRECT=false LOG_LEVEL=WARNING
export DATABASE_URL="sqlite:///$dir/db.sqlite3" SMS_BACKEND=file SMS_FILE_PATH="$dir/sms"
if [ -n "${SMOKE_CLUSTER:-}" ]; then
  echo "==> on the Redis Cluster"
  export REDIS_CLUSTER=true REDIS_URL="$(scripts/redis-cluster.sh start)"
  export REDIS_CLUSTER_NODES="$(scripts/redis-cluster.sh nodes)"
  export CELERY_BROKER_URL="redis://127.0.0.1:$redis_port/0"
  export SECKILL_DURABILITY=replica  # every master has a replica that confirms each order
else
  export REDIS_URL="redis://127.0.0.1:$redis_port/0"
fi
py="$venv/bin/python"

echo "==> migrate, demo data (a sale on now), stock"
$py manage.py migrate --noinput -v0
$py manage.py collectstatic --noinput -v0
$py manage.py seed_demo --force >/dev/null
$py manage.py load_shop_geo >/dev/null 2>&1
$py manage.py preload_stock >/dev/null
$py manage.py reconcile_seckill --fix >/dev/null  # flash-sale shards verified (vouchers/sale/heal.py)

echo "==> granian, the notification stream's granian, a worker and beat"
start() { setsid "$@" >>"$dir/processes.log" 2>&1 & pids+=($!); }
start env GRANIAN="$venv/bin/granian" WEB_WORKERS=1 WEB_THREADS=2 HOST=127.0.0.1 \
  PORT="$web_port" scripts/web.sh
start env GRANIAN="$venv/bin/granian" HOST=127.0.0.1 STREAM_PORT="$stream_port" scripts/stream.sh
start "$venv/bin/celery" -A dianping worker --loglevel WARNING --concurrency 2
start "$venv/bin/celery" -A dianping beat --loglevel WARNING --schedule "$dir/beat-schedule"

api="http://127.0.0.1:$web_port/api"
for _ in $(seq 150); do curl -fsS "$api/health" >/dev/null 2>&1 && break; sleep 0.2; done
fail() {
  echo "error: $*" >&2
  tail -30 "$dir/processes.log" >&2
  exit 1
}
json() { python3 -c "import json, sys; data = json.load(sys.stdin); print($1)"; }
call() { curl -fsS -H "Authorization: Bearer ${token:-none}" "$@"; }

echo "==> log in by SMS code"
phone=13800000001
curl -fsS -X POST "$api/auth/code" -H 'Content-Type: application/json' -d "{\"phone\":\"$phone\"}" >/dev/null
# The text is in the request's language (Chinese here): the code is its six-digit number.
code=$(grep -hoE '(^|[^0-9])[0-9]{6}([^0-9]|$)' "$dir"/sms/*"$phone"* | tail -1 | grep -oE '[0-9]{6}')
token=$(curl -fsS -X POST "$api/auth/login" -H 'Content-Type: application/json' \
  -d "{\"phone\":\"$phone\",\"code\":\"$code\"}" | json 'data["token"]')
[ "$(call "$api/users/me" | json 'data["phone"][:3]')" = 138 ] || fail "login"

echo "==> a shop"
shop=$(curl -fsS "$api/shops?name=%E5%B0%8F%E6%9D%A8" | json 'data["results"][0]["id"]')
call "$api/shops/$shop" | json 'data["name"]' >/dev/null || fail "shop detail"

echo "==> the flash sale (its challenge answered), drained by the worker"
read -r sale guarded < <(curl -fsS "$api/vouchers/activities" \
  | json 'data[0]["id"], data[0]["challenge"]')
body='{}'
if [ "$guarded" = True ]; then  # the demo's biggest sale asks its question first
  call "$api/vouchers/$sale/challenge" | json 'data["image"]' | grep -q '^data:image/png;base64,' \
    || fail "the challenge's picture"
  echo "$token" >"$dir/tokens"  # the answer, as only the server's shell can read it
  $py manage.py issue_challenges --voucher "$sale" --tokens "$dir/tokens" --out "$dir/answers" 2>/dev/null
  read -r _ challenge answer <"$dir/answers"
  body="{\"challenge\":{\"id\":\"$challenge\",\"answer\":\"$answer\"}}"
fi
order=$(call -X POST "$api/vouchers/$sale/seckill" -H 'Content-Type: application/json' -d "$body" \
  | json 'data["order_id"]')
for _ in $(seq 60); do  # beat starts a drain every 10 s
  status=$(call "$api/voucher-orders/$order" | json 'data["status"]')
  [ "$status" != pending ] && break
  sleep 1
done
[ "$status" = unpaid ] || fail "order $order is '$status', not persisted"
[ "$(call -X POST "$api/voucher-orders/$order/pay" | json 'data["status"]')" = paid ] || fail "pay"

echo "==> a like, a follow, the feed"
me=$(call "$api/users/me" | json 'data["id"]')
read -r blog author < <(curl -fsS "$api/blogs/hot" \
  | json "next(f'{b[\"id\"]} {b[\"user\"][\"id\"]}' for b in data['results'] if b['user']['id'] != $me)")
[ "$(call -X POST "$api/blogs/$blog/like" | json 'data["is_liked"]')" = True ] || fail "like"
[ "$(call -X PUT "$api/follows/$author" | json 'data["following"]')" = True ] || fail "follow"
for _ in $(seq 60); do  # the follow's backfill runs after its commit
  items=$(call "$api/feed" | json 'len(data["results"])')
  [ "$items" -gt 0 ] && break
  sleep 0.5
done
[ "$items" -gt 0 ] || fail "the feed is empty after a follow"

echo "==> the notification stream: a new follower, pushed as it happens"
stream_url="http://127.0.0.1:$stream_port/api/notifications/stream"
for _ in $(seq 150); do  # the stream's process answers (401 without a token) once it is up
  [ "$(curl -s -o /dev/null -w '%{http_code}' "$stream_url")" = 401 ] && break
  sleep 0.2
done
curl -sN --max-time 90 -H "Authorization: Bearer $token" "$stream_url" >"$dir/stream.txt" 2>&1 &
stream_reader=$!
for _ in $(seq 150); do grep -q '^event: unread' "$dir/stream.txt" && break; sleep 0.2; done
grep -q '^event: unread' "$dir/stream.txt" || fail "the stream sent no unread count"
follower=$($py manage.py issue_tokens --count 1)
[ "$(curl -fsS -X PUT "$api/follows/$me" -H "Authorization: Bearer $follower" | json 'data["following"]')" = True ] \
  || fail "a follow of the smoke user"
for _ in $(seq 150); do  # the worker's task writes it, its commit pokes the stream
  grep -q '"kind":"followed"' "$dir/stream.txt" && break
  sleep 0.2
done
kill "$stream_reader" 2>/dev/null || true
grep -q '"kind":"followed"' "$dir/stream.txt" || fail "the follow was not pushed down the stream"

echo "==> a sign-in, and UV for staff"
[ "$(call -X POST "$api/sign" | json 'data["signed"]')" = True ] || fail "sign-in"
token=$($py manage.py issue_tokens --count 1 --staff)
[ "$(call "$api/stats/uv?days=7" | json 'data["pv"] >= 1')" = True ] || fail "UV/PV"
durability=$(curl -fsS "$api/health" | json 'data["sale_durability"]') || fail "health is not 200"
[ "$durability" = "${SECKILL_DURABILITY:-fsync}" ] || fail "sale durability: $durability"

echo "==> ok: a production install serves the product end to end"
