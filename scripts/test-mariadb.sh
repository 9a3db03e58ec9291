#!/usr/bin/env bash
# Starts a throwaway MariaDB for the e2e suite (own data dir, port and socket; no system service needed)
# and prints the DATABASE_URL to use. Usage: scripts/test-mariadb.sh start|stop
set -euo pipefail

DIR=${TEST_MARIADB_DIR:-/tmp/toolflow-test-mariadb}
PORT=${TEST_MARIADB_PORT:-3307}
URL="mysql://toolflow:toolflow@127.0.0.1:${PORT}/toolflow"

server_bin() { command -v mariadbd || command -v mysqld || ls /usr/sbin/mariadbd /usr/sbin/mysqld 2>/dev/null | head -n1; }
client() { (command -v mariadb || command -v mysql) | head -n1; }

case "${1:-start}" in
  start)
    if [ -S "$DIR/mysqld.sock" ] && "$(client)" --socket="$DIR/mysqld.sock" -uroot -e 'SELECT 1' >/dev/null 2>&1; then
      echo "$URL"; exit 0
    fi
    BIN=$(server_bin)
    [ -n "$BIN" ] || { echo "MariaDB is not installed (apt-get install -y mariadb-server)" >&2; exit 1; }
    rm -rf "$DIR"; mkdir -p "$DIR/data"
    INSTALL=$(command -v mariadb-install-db || command -v mysql_install_db)
    "$INSTALL" --datadir="$DIR/data" --user="$(id -un)" --auth-root-authentication-method=socket \
      --skip-test-db >"$DIR/install.log" 2>&1
    "$BIN" --no-defaults --datadir="$DIR/data" --socket="$DIR/mysqld.sock" --port="$PORT" --bind-address=127.0.0.1 \
      --pid-file="$DIR/mysqld.pid" --user="$(id -un)" --log-error="$DIR/error.log" \
      --character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci --innodb-flush-log-at-trx-commit=2 \
      --max-connections=500 >/dev/null 2>&1 &
    for _ in $(seq 1 60); do
      "$(client)" --socket="$DIR/mysqld.sock" -uroot -e 'SELECT 1' >/dev/null 2>&1 && break
      sleep 0.5
    done
    "$(client)" --socket="$DIR/mysqld.sock" -uroot <<SQL
CREATE DATABASE IF NOT EXISTS toolflow CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE USER IF NOT EXISTS 'toolflow'@'127.0.0.1' IDENTIFIED BY 'toolflow';
CREATE USER IF NOT EXISTS 'toolflow'@'localhost' IDENTIFIED BY 'toolflow';
GRANT ALL PRIVILEGES ON *.* TO 'toolflow'@'127.0.0.1';
GRANT ALL PRIVILEGES ON *.* TO 'toolflow'@'localhost';
FLUSH PRIVILEGES;
SQL
    echo "$URL"
    ;;
  stop)
    [ -f "$DIR/mysqld.pid" ] && kill "$(cat "$DIR/mysqld.pid")" 2>/dev/null || true
    ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
