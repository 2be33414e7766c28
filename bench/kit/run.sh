#!/usr/bin/env bash
# bench/kit/run.sh: bench/latency.py on a machine with no network, from the kit that
# bench/kit/build.sh laid out beside this file (docs/benchmarks.md "Latency at a fixed
# arrival rate" has the 16-core run it made).
#
#   OUT=/results bash KIT/run.sh       the remote run (Python 3.12, x86-64)
#   LOCAL=1 OUT=/tmp/x bash KIT/run.sh the small proof here (PYTHON=.venv/bin/python, K6=...)
#
# It unpacks the packages, starts make run's two Redis servers (everysec, and the sale's
# own at `always`) on SERVER_CPUS, migrates SQLite, and runs bench/latency.py over SHAPES
# with the generator on LOAD_CPUS; the steps land in $OUT/steps.jsonl as they are
# measured, the tables in $OUT/results.md. Everything it started is stopped by
# HARD_LIMIT_S. Knobs: SHAPES, ENDPOINTS, LEVELS, STEP, GAP, PEAK, WARM, SERVER_CPUS,
# LOAD_CPUS, TOKENS, BUDGET_S, HARD_LIMIT_S, PYTHON, WORK_DIR.
set -euo pipefail
export PYTHONUNBUFFERED=1 LC_ALL=C.UTF-8 LANG=C.UTF-8
KIT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
T0=$(date +%s)
LOCAL="${LOCAL:-0}"
OUT="${OUT:?OUT must name the folder for the results}"
if [ "$LOCAL" = 1 ]; then
  PY="${PYTHON:?LOCAL=1 needs PYTHON (a virtualenv with the packages)}"
  WORK="${WORK_DIR:-/tmp/latency-kit-local}"
  REDIS_PORT="${REDIS_PORT:-6547}"; SALE_PORT="${SALE_PORT:-6548}"; WEB_PORT="${WEB_PORT:-8597}"
  SHAPES="${SHAPES:-1x4,1x1}"; ENDPOINTS="${ENDPOINTS:-bare,sale}"; LEVELS="${LEVELS:-30,70}"
  STEP="${STEP:-1}"; PEAK="${PEAK:-1}"; WARM="${WARM:-0.5}"; TOKENS="${TOKENS:-2000}"
  SERVER_CPUS="${SERVER_CPUS:-0}"; LOAD_CPUS="${LOAD_CPUS:-1}"
else
  PY="${PYTHON:-python3}"
  WORK="${WORK_DIR:-/tmp/latency-kit}"
  REDIS_PORT="${REDIS_PORT:-6379}"; SALE_PORT="${SALE_PORT:-6380}"; WEB_PORT="${WEB_PORT:-8000}"
  SHAPES="${SHAPES:-2x4,2x1,8x4,8x1}"; ENDPOINTS="${ENDPOINTS:-bare,shop,sale}"
  LEVELS="${LEVELS:-30,50,70,90}"; STEP="${STEP:-3}"; PEAK="${PEAK:-2}"; WARM="${WARM:-1}"
  TOKENS="${TOKENS:-20000}"; SERVER_CPUS="${SERVER_CPUS:-0-8}"; LOAD_CPUS="${LOAD_CPUS:-9-15}"
fi
GAP="${GAP:-0.3}"; BUDGET_S="${BUDGET_S:-470}"; HARD_LIMIT_S="${HARD_LIMIT_S:-510}"
PY="$(command -v "$PY")"
mkdir -p "$OUT"
exec > >(tee -a "$OUT/run.log") 2>&1
log() { printf '[%s +%3ds] %s\n' "$(date +%H:%M:%S)" $(( $(date +%s) - T0 )) "$*"; }

REDIS_PIDS=()
finish() {
  local rc=$?
  set +e
  for pid in "${REDIS_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for pid in "${REDIS_PIDS[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
  done
  { echo "== after: $(cat /proc/loadavg)"; } >> "$OUT/machine.txt"
  log "done (exit $rc) in $(( $(date +%s) - T0 ))s; results: $(cd "$OUT" && ls | tr '\n' ' ')"
  exit "$rc"
}
trap finish EXIT
trap 'log "stopped by a signal"; exit 143' INT TERM

{
  echo "machine: $(nproc) cores ($(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -srm)"
  echo "os: $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")"
  echo "python: $("$PY" -VV 2>&1)"
  echo "project: $(cat "$KIT/PROJECT_COMMIT" 2>/dev/null || echo '?')"
  echo "server cpus $SERVER_CPUS, load cpus $LOAD_CPUS; shapes $SHAPES; endpoints $ENDPOINTS; levels $LEVELS; step ${STEP}s"
  echo "== before: $(cat /proc/loadavg)"
} > "$OUT/machine.txt"
cat "$OUT/machine.txt"
case "$KIT/" in "$WORK"/*) log "WORK_DIR $WORK would hold the kit"; exit 1;; esac
rm -rf "$WORK"; mkdir -p "$WORK/bin"
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

# --- 1. Python packages and k6 (Python's own tarfile and lzma: no xz needed) -----------
if [ "$LOCAL" != 1 ]; then
  "$PY" - "$KIT" "$WORK" <<'EOF'
import lzma, os, shutil, sys, tarfile
kit, work = sys.argv[1:3]
with tarfile.open(os.path.join(kit, "site.tar.xz")) as tar:
    tar.extractall(os.path.join(work, "site"))
with lzma.open(os.path.join(kit, "k6.xz")) as src, open(os.path.join(work, "bin", "k6"), "wb") as dst:
    shutil.copyfileobj(src, dst)
os.chmod(os.path.join(work, "bin", "k6"), 0o755)
EOF
  export PYTHONPATH="$WORK/site" K6="$WORK/bin/k6"
fi
"$PY" -c 'import django, granian, redis, hiredis, orjson, rjieba, prometheus_client; print("imports ok: django", django.__version__, "granian", granian.__version__)'
"${K6:?K6 names the k6 binary}" version

# --- 2. redis-server, redis-cli, wrk from the .debs ---------------------------------------
ROOT="$WORK/root"; FALLBACK="$WORK/fallback"; LIB="$WORK/lib"
mkdir -p "$ROOT" "$FALLBACK" "$LIB"
extract() {
  if command -v dpkg >/dev/null 2>&1; then dpkg -x "$1" "$2"; return; fi
  "$PY" - "$1" "$2" <<'EOF'
import io, sys, tarfile
data = open(sys.argv[1], "rb").read(); pos = 8
while pos + 60 <= len(data):
    name, size = data[pos:pos + 16].decode().strip().rstrip("/"), int(data[pos + 48:pos + 58])
    if name.startswith("data.tar"):
        tarfile.open(fileobj=io.BytesIO(data[pos + 60:pos + 60 + size])).extractall(sys.argv[2])
    pos += 60 + size + size % 2
EOF
}
for d in "$KIT"/debs/main/*.deb; do extract "$d" "$ROOT"; done
for d in "$KIT"/debs/fallback/*.deb; do extract "$d" "$FALLBACK"; done
for f in "$ROOT"/usr/lib/x86_64-linux-gnu/*.so* "$ROOT"/lib/x86_64-linux-gnu/*.so*; do
  if [ -e "$f" ]; then ln -sf "$f" "$LIB/"; fi
done
for _ in 1 2 3 4 5 6; do  # a library this system lacks comes from bookworm's, one soname at a time
  missing=$(for b in redis-server redis-cli wrk; do LD_LIBRARY_PATH="$LIB" ldd "$ROOT/usr/bin/$b" 2>/dev/null; done | awk '/not found/ {print $1}' | sort -u)
  [ -n "$missing" ] || break
  for so in $missing; do
    f=$(find "$FALLBACK" -name "$so" \( -type f -o -type l \) | head -n 1)
    [ -n "$f" ] || { log "no $so in debs/fallback"; exit 1; }
    log "system lacks $so: using bookworm's"; ln -sf "$f" "$LIB/$so"
  done
done
for b in redis-server redis-cli wrk; do
  printf '#!/bin/sh\nLD_LIBRARY_PATH="%s" exec "%s" "$@"\n' "$LIB" "$ROOT/usr/bin/$b" > "$WORK/bin/$b"
  chmod +x "$WORK/bin/$b"
done
export PATH="$WORK/bin:$PATH"
redis-server --version; wrk -v 2>&1 | head -n 1 || true
command -v taskset >/dev/null || { log "taskset is missing"; exit 1; }

# --- 3. the project, with a .venv that is this Python ---------------------------------------
PROJ="$WORK/project"
mkdir -p "$PROJ/var" "$PROJ/.venv/bin" && tar -xzf "$KIT/project.tar.gz" -C "$PROJ"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$PY" > "$PROJ/.venv/bin/python"
printf '#!/bin/sh\nexec "%s" -m granian "$@"\n' "$PY" > "$PROJ/.venv/bin/granian"
chmod +x "$PROJ/.venv/bin/python" "$PROJ/.venv/bin/granian" "$PROJ"/scripts/*.sh

# --- 4. Redis: the main one at everysec, the sale's own at always (make run's shape) -------
start_redis() {  # NAME PORT APPENDFSYNC
  local dir="$WORK/redis-$1"
  mkdir -p "$dir"
  taskset -c "$SERVER_CPUS" redis-server --bind 127.0.0.1 --port "$2" --dir "$dir" --daemonize yes \
    --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" --appendonly yes --appendfsync "$3" \
    --save "" --maxclients 10000
  for _ in $(seq 100); do [ "$(redis-cli -p "$2" ping 2>/dev/null)" = PONG ] && break; sleep 0.1; done
  REDIS_PIDS+=("$(cat "$dir/redis.pid")")
  log "redis $1 on $2 (appendfsync $3), pid $(cat "$dir/redis.pid")"
}
start_redis main "$REDIS_PORT" everysec
start_redis sale "$SALE_PORT" always

export REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0" CELERY_BROKER_URL="redis://127.0.0.1:$REDIS_PORT/1"
export BENCH_SALE_REDIS_URL="redis://127.0.0.1:$SALE_PORT/0" DATABASE_URL="sqlite:///$PROJ/var/db.sqlite3"
log "setup done"

# --- 5. the measurements ----------------------------------------------------------------------
cd "$PROJ/bench"
left=$(( HARD_LIMIT_S - ($(date +%s) - T0) ))
timeout -k 5 "$left" "$PY" latency.py --shapes "$SHAPES" --endpoints "$ENDPOINTS" --levels "$LEVELS" \
  --step "$STEP" --gap "$GAP" --peak "$PEAK" --warm "$WARM" --tokens "$TOKENS" --port "$WEB_PORT" \
  --server-cpus "$SERVER_CPUS" --load-cpus "$LOAD_CPUS" --budget $(( BUDGET_S - ($(date +%s) - T0) )) \
  --json "$OUT/steps.jsonl" --md "$OUT/results.md" > "$OUT/latency.log" 2>&1 || log "latency.py exited $?"
tail -n 60 "$OUT/latency.log"
