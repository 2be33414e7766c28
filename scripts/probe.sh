#!/usr/bin/env bash
# `make probe`: the attacker's schema check against a live server. The production
# settings under granian (with a Celery worker and beat), with demo data, a Redis of its
# own and the database that DATABASE_URL names (a SQLite file under var/probe by default;
# CI gives it MariaDB); then schemathesis with every check (scripts/schemathesis.toml), as
# a user and as staff. Any failure fails the run; the reports stay in var/probe/report-*.
#   PROBE_EXAMPLES=N   examples per operation and phase (default 20)
#   PROBE_SECONDS=S    time budget of the user's and the staff's runs, each (default 240)
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

dir="$root/var/probe"
redis_port="${PROBE_REDIS_PORT:-6395}"
web_port="${PROBE_WEB_PORT:-8095}"
py="$root/.venv/bin/python"
pids=()

cleanup() {
  for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  redis-cli -p "$redis_port" shutdown nosave >/dev/null 2>&1 || true
}
trap cleanup EXIT

rm -rf "$dir" && mkdir -p "$dir/media"
redis-cli -p "$redis_port" shutdown nosave >/dev/null 2>&1 || true  # a run killed earlier
redis-server --port "$redis_port" --bind 127.0.0.1 --dir "$dir" --save "" --daemonize yes \
  --appendonly yes --appendfsync always \
  --logfile "$dir/redis.log" >/dev/null
export DJANGO_SETTINGS_MODULE=dianping.settings.production
export SECRET_KEY="probe-$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export ALLOWED_HOSTS=127.0.0.1 SECURE_SSL_REDIRECT=false LOG_LEVEL=WARNING
export REDIS_URL="redis://127.0.0.1:$redis_port/0" MEDIA_ROOT="$dir/media"
export DATABASE_URL="${DATABASE_URL:-sqlite:///$dir/db.sqlite3}" SMS_BACKEND=file \
  SMS_FILE_PATH="$dir/sms"
# The probe asks for the schema's truth, not for the rate limits (tests/platform/test_limits.py
# proves those): thousands of generated writes a minute must not all answer 429.
for name in BLOG COMMENT LIKE FOLLOW CLAIM CHECKOUT REDEEM REDEEM_MISS UPLOAD SEARCH; do
  export "THROTTLE_${name}_USER=100000/minute"
done
export THROTTLE_SMS_IP=100000/minute THROTTLE_LOGIN_IP=100000/minute THROTTLE_SEARCH_IP=100000/minute

echo "==> migrate, demo data, GEO and stock"
if [[ "$DATABASE_URL" == mysql://* ]]; then
  # A database of its own on that server, made afresh: the suite's lives beside it.
  "$py" - <<'PY'
import os, urllib.parse, MySQLdb
url = urllib.parse.urlparse(os.environ["DATABASE_URL"])
db = MySQLdb.connect(host=url.hostname, port=url.port or 3306, user=url.username,
                     passwd=url.password or "")
cursor = db.cursor()
cursor.execute("DROP DATABASE IF EXISTS dianping_probe")
cursor.execute("CREATE DATABASE dianping_probe CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci")
PY
  DATABASE_URL="${DATABASE_URL%/*}/dianping_probe"
fi
"$py" manage.py migrate --noinput -v0
"$py" manage.py collectstatic --noinput -v0
"$py" manage.py seed_demo --force >/dev/null
"$py" manage.py load_shop_geo >/dev/null 2>&1
"$py" manage.py preload_stock >/dev/null
"$py" manage.py reconcile_seckill --fix >/dev/null  # flash-sale shards verified (vouchers/sale/heal.py)
user_token=$("$py" manage.py issue_tokens --count 1)
staff_token=$("$py" manage.py issue_tokens --count 1 --staff)

echo "==> granian (production settings) on 127.0.0.1:$web_port"
WEB_WORKERS=1 WEB_THREADS=4 HOST=127.0.0.1 PORT="$web_port" setsid "$root/scripts/web.sh" \
  >>"$dir/server.log" 2>&1 &
pids+=($!)
for _ in $(seq 150); do curl -fsS "http://127.0.0.1:$web_port/api/ping" >/dev/null 2>&1 && break; sleep 0.2; done
curl -fsS "http://127.0.0.1:$web_port/api/ping" >/dev/null || {
  echo "error: granian did not come up (var/probe/server.log):" >&2
  tail -30 "$dir/server.log" >&2
  exit 1
}

# The deployment is whole, as in production: a worker drains the orders the probe's sale
# accepts and beat runs the heartbeat (without them /api/health rightly answers 503 a
# minute after the first order, which schemathesis reports as a server error).
echo "==> Celery worker and beat"
setsid "$root/.venv/bin/celery" -A dianping worker --pool solo --loglevel WARNING \
  --without-heartbeat --without-mingle --without-gossip >>"$dir/worker.log" 2>&1 &
pids+=($!)
setsid "$root/.venv/bin/celery" -A dianping beat --loglevel WARNING \
  --schedule "$dir/beat-schedule" >>"$dir/beat.log" 2>&1 &
pids+=($!)

status=0
# One worker: hypothesis reads its strategies' lambda sources with `ast`, whose recursion
# bookkeeping Python 3.11 can trip across threads ("AST constructor recursion depth
# mismatch", cpython#106905), a tool error that fails the run on an operation at random.
probe() {
  local who=$1 token=$2
  shift 2
  echo "==> schemathesis, every check (scripts/schemathesis.toml), as $who"
  "$root/.venv/bin/schemathesis" --config-file "$root/scripts/schemathesis.toml" run "http://127.0.0.1:$web_port/api/schema/?format=json" \
    --header "Authorization: Bearer $token" \
    --max-examples "${PROBE_EXAMPLES:-20}" --max-time "${PROBE_SECONDS:-240}" \
    --workers 1 --seed 1 --generation-deterministic --suppress-health-check all \
    --request-timeout 10 --no-color --output-truncate true \
    --report junit --report-dir "$dir/report-$who" "$@" || status=1
}
# Logging out ends the token the run signs its requests with: that operation is probed
# on its own, with a token of its own, after the others.
probe user "$user_token" --exclude-path /api/auth/logout
probe staff "$staff_token" --exclude-path /api/auth/logout
PROBE_SECONDS=30 probe logout "$("$py" manage.py issue_tokens --count 2 | tail -1)" \
  --include-path /api/auth/logout
if grep -q "Traceback" "$dir/server.log"; then
  echo "error: the server logged a traceback (var/probe/server.log)" >&2
  grep -B2 -A20 "Traceback" "$dir/server.log" | head -60 >&2
  status=1
fi
exit "$status"
