#!/usr/bin/env bash
# A throwaway MariaDB for tests on 127.0.0.1:${MARIADB_PORT:-3307}.
#   scripts/mariadb.sh start   prints the DATABASE_URL to use
#   scripts/mariadb.sh stop
# Its files live under /var/tmp (not the checkout): the server runs as the
# `mysql` user, which may not be allowed into a checkout under /root.
set -euo pipefail

port="${MARIADB_PORT:-3307}"
dir="${MARIADB_DIR:-/var/tmp/dianping-mariadb-$port}"
sock="$dir/mysqld.sock"
url="mysql://dianping:dianping@127.0.0.1:$port/dianping"

alive() { mariadb-admin --socket="$sock" -uroot ping >/dev/null 2>&1; }

case "${1:-}" in
  start)
    if ! alive; then
      command -v mariadbd >/dev/null 2>&1 || {
        echo "error: mariadb-server is not installed (apt-get install mariadb-server)" >&2
        exit 1
      }
      if [ ! -d "$dir/data/mysql" ]; then
        mkdir -p "$dir/data"
        chown -R mysql:mysql "$dir"
        mariadb-install-db --datadir="$dir/data" --user=mysql \
          --auth-root-authentication-method=socket >"$dir/install.log" 2>&1
      fi
      # mariadbd refuses to run as root unless told which user to become. Its
      # output goes to the log so a caller's $(...) does not wait on it.
      mariadbd --datadir="$dir/data" --port="$port" --bind-address=127.0.0.1 \
        --socket="$sock" --pid-file="$dir/mysqld.pid" --skip-name-resolve --user=mysql \
        --innodb-flush-log-at-trx-commit=2 --max-connections=500 \
        --log-error="$dir/error.log" >>"$dir/error.log" 2>&1 </dev/null &
      for _ in $(seq 300); do alive && break; sleep 0.1; done
      alive || { echo "error: mariadb did not start; see $dir/error.log" >&2; exit 1; }
      # With --skip-name-resolve the '%' grant applies to 127.0.0.1; the anonymous
      # accounts would otherwise shadow it, so drop them.
      mariadb --socket="$sock" -uroot <<'SQL'
DELETE FROM mysql.global_priv WHERE User='';
CREATE USER IF NOT EXISTS 'dianping'@'%' IDENTIFIED BY 'dianping';
GRANT ALL PRIVILEGES ON *.* TO 'dianping'@'%';
CREATE DATABASE IF NOT EXISTS dianping CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
FLUSH PRIVILEGES;
SQL
      # Django's date lookups in TIME_ZONE (admin's date hierarchy) need the zone tables.
      mariadb-tzinfo-to-sql /usr/share/zoneinfo 2>/dev/null | mariadb --socket="$sock" -uroot mysql
    fi
    echo "$url"
    ;;
  stop)
    if alive; then
      mariadb-admin --socket="$sock" -uroot shutdown
    fi
    ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
