#!/usr/bin/env bash
# Starts a throwaway Redis for the queue-mode tests (own port and dir, no persistence, no system service needed)
# and prints the REDIS_URL to use. Usage: scripts/test-redis.sh start|stop
set -euo pipefail

DIR=${TEST_REDIS_DIR:-/tmp/toolflow-test-redis}
PORT=${TEST_REDIS_PORT:-6390}
URL="redis://127.0.0.1:${PORT}"

case "${1:-start}" in
  start)
    if redis-cli -p "$PORT" ping >/dev/null 2>&1; then echo "$URL"; exit 0; fi
    command -v redis-server >/dev/null || { echo "Redis is not installed (apt-get install -y redis-server)" >&2; exit 1; }
    rm -rf "$DIR"; mkdir -p "$DIR"
    redis-server --port "$PORT" --bind 127.0.0.1 --dir "$DIR" --save '' --appendonly no --daemonize yes \
      --pidfile "$DIR/redis.pid" --logfile "$DIR/redis.log" >/dev/null
    for _ in $(seq 1 40); do
      redis-cli -p "$PORT" ping >/dev/null 2>&1 && break
      sleep 0.25
    done
    echo "$URL"
    ;;
  stop)
    [ -f "$DIR/redis.pid" ] && kill "$(cat "$DIR/redis.pid")" 2>/dev/null || true
    ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
