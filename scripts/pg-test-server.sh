#!/usr/bin/env bash
# A throwaway PostgreSQL for the test suites: `start` installs PostgreSQL from the Debian packages
# if it is missing, creates a trust-auth cluster once, starts it on 127.0.0.1:5433 and creates the
# database usp_test, then prints its URL; `stop` stops it (fast shutdown: sessions are cut);
# `restart` restarts it the same way (what an upgrade or a failover does to clients); `url` prints
# the URL. Idempotent. USP_PG_PORT and USP_PG_DATA pick another cluster (the fault suite uses its own).
# As root the cluster runs as the `postgres` user (initdb refuses root); otherwise as the caller.
set -euo pipefail

PORT="${USP_PG_PORT:-5433}"
DATA="${USP_PG_DATA:-/tmp/usp-pgdata}"
SOCK="${USP_PG_SOCKET_DIR:-/tmp}"
DB="${USP_PG_DB:-usp_test}"
URL="postgres://postgres@127.0.0.1:${PORT}/${DB}"

pg_bin() {
  local d
  for d in /usr/lib/postgresql/*/bin; do
    if [ -x "$d/initdb" ]; then echo "$d"; return 0; fi
  done
  if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; return 0; fi
  return 1
}

install_pg() {
  if pg_bin >/dev/null; then return 0; fi
  echo "installing PostgreSQL from the Debian packages..." >&2
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >&2
  pg_bin >/dev/null || { echo "PostgreSQL binaries not found after install" >&2; exit 1; }
}

# Run a command as the cluster owner.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

running() {
  local bin; bin="$(pg_bin)" || return 1
  [ -f "$DATA/PG_VERSION" ] && as_owner "$bin/pg_ctl" -D "$DATA" status >/dev/null 2>&1
}

start() {
  install_pg
  local bin; bin="$(pg_bin)"
  if [ ! -f "$DATA/PG_VERSION" ]; then
    mkdir -p "$DATA"
    if [ "$(id -u)" -eq 0 ]; then chown postgres:postgres "$DATA"; fi
    chmod 700 "$DATA"
    as_owner "$bin/initdb" -D "$DATA" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  fi
  if ! running; then
    as_owner "$bin/pg_ctl" -D "$DATA" -l "$DATA/server.log" -w -t 60 \
      -o "-k $SOCK -p $PORT -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
      start >/dev/null
  fi
  local psql=("$bin/psql" -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 -qAt)
  for _ in $(seq 1 50); do
    if "${psql[@]}" -c 'SELECT 1' >/dev/null 2>&1; then break; fi
    sleep 0.2
  done
  if [ "$("${psql[@]}" -c "SELECT 1 FROM pg_database WHERE datname = '$DB'")" != "1" ]; then
    "${psql[@]}" -c "CREATE DATABASE $DB" >/dev/null
  fi
  echo "$URL"
}

stop() {
  local bin
  bin="$(pg_bin)" || return 0
  if running; then as_owner "$bin/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null; fi
}

restart() {
  local bin; bin="$(pg_bin)"
  if ! running; then start >/dev/null; return 0; fi
  as_owner "$bin/pg_ctl" -D "$DATA" -m fast -w -t 60 restart >/dev/null
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  restart) restart ;;
  url) echo "$URL" ;;
  *) echo "usage: $0 start|stop|restart|url" >&2; exit 2 ;;
esac
