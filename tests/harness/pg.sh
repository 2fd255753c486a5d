#!/usr/bin/env bash
# Throwaway PostgreSQL 15 cluster for tests.
#
#   pg.sh start DIR   start (or reuse) a cluster in DIR; prints its libpq URL and writes it
#                     to DIR/url. Listens on 127.0.0.1:<free port> and on a unix socket in
#                     DIR/sock. Creates the database `cairn_test`. Auth: trust (loopback only).
#   pg.sh stop DIR    stop the cluster in DIR (no-op when it is not running).
#   pg.sh url DIR     print the URL of a running cluster.
#   pg.sh restart DIR [MODE]
#                     restart a running cluster on the same port (pg_ctl restart with the options
#                     it was started with); MODE is pg_ctl's shutdown mode: fast (default) or
#                     immediate (a crash: no checkpoint, every connection cut at once).
#
# The cluster trades durability for speed (fsync and synchronous_commit off), as a throwaway test
# cluster may; with PG_DURABLE=1 it keeps PostgreSQL's defaults, so a commit it acknowledged
# survives a crash (`restart DIR immediate`).
#
# With PG_TLS_CERT and PG_TLS_KEY (PEM files) set, `start` also serves TLS with that certificate
# (copied into DIR/tls); clients choose with sslmode as usual.
#
# When run as root, initdb/postgres run as the `postgres` OS user (via runuser) and DIR is
# chowned to it. Everything is idempotent: `start` on a running cluster just prints the URL.
set -euo pipefail

PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
DB_NAME="cairn_test"

die() { echo "pg.sh: $*" >&2; exit 1; }

usage() { die "usage: pg.sh {start|stop|url|restart} DIR [MODE]"; }

[[ $# -ge 2 && $# -le 3 ]] || usage
cmd="$1"
dir="$2"
mode="${3:-fast}"

[[ -x "$PG_BIN/initdb" ]] || die "PostgreSQL binaries not found in $PG_BIN (install postgresql-15)"

# as_pg CMD...: run a command as the cluster owner.
if [[ "$(id -u)" -eq 0 ]]; then
  id postgres >/dev/null 2>&1 || die "running as root but there is no 'postgres' user"
  as_pg() { runuser -u postgres -- "$@"; }
else
  as_pg() { "$@"; }
fi

free_port() {
  python3 - <<'EOF'
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()
EOF
}

is_running() {
  [[ -f "$dir/data/postmaster.pid" ]] && as_pg "$PG_BIN/pg_ctl" -D "$dir/data" status >/dev/null 2>&1
}

url_of() { echo "postgresql://postgres@127.0.0.1:$(cat "$dir/port")/$DB_NAME"; }

psql_admin() {
  as_pg "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$(cat "$dir/port")" \
    -U postgres -d postgres "$@"
}

ensure_db() {
  local exists
  exists="$(psql_admin -At -c "SELECT 1 FROM pg_database WHERE datname = '$DB_NAME'")"
  if [[ "$exists" != "1" ]]; then
    psql_admin -c "CREATE DATABASE $DB_NAME"
  fi
}

do_start() {
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  if [[ "$(id -u)" -eq 0 ]]; then
    chown -R postgres: "$dir"
    runuser -u postgres -- test -w "$dir" ||
      die "user postgres cannot write $dir (a parent directory is not traversable?)"
  fi

  if is_running && [[ -f "$dir/port" ]]; then
    ensure_db
    url_of | tee "$dir/url"
    return 0
  fi

  if [[ ! -f "$dir/data/PG_VERSION" ]]; then
    rm -rf "$dir/data"
    as_pg "$PG_BIN/initdb" -D "$dir/data" -U postgres --auth=trust --no-sync \
      --encoding=UTF8 --locale=C >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; die "initdb failed"; }
  fi
  as_pg mkdir -p "$dir/sock"

  local tls_opts=""
  if [[ -n "${PG_TLS_CERT:-}" && -n "${PG_TLS_KEY:-}" ]]; then
    mkdir -p "$dir/tls"
    cp "$PG_TLS_CERT" "$dir/tls/server.crt"
    cp "$PG_TLS_KEY" "$dir/tls/server.key"
    chmod 600 "$dir/tls/server.key"
    [[ "$(id -u)" -eq 0 ]] && chown -R postgres: "$dir/tls"
    tls_opts="-c ssl=on -c ssl_cert_file=$dir/tls/server.crt -c ssl_key_file=$dir/tls/server.key"
  fi

  local durability="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  [[ "${PG_DURABLE:-0}" == "1" ]] && durability=""

  local attempt port
  for attempt in 1 2 3 4 5; do
    port="$(free_port)"
    # Stale pid file from a killed cluster: pg_ctl handles it, but remove a dead one early.
    if [[ -f "$dir/data/postmaster.pid" ]] && ! is_running; then
      rm -f "$dir/data/postmaster.pid"
    fi
    if as_pg "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $dir/sock $durability \
          -c max_connections=200 $tls_opts" \
      start >/dev/null 2>&1; then
      echo "$port" >"$dir/port"
      [[ "$(id -u)" -eq 0 ]] && chown postgres: "$dir/port"
      ensure_db
      url_of | tee "$dir/url"
      return 0
    fi
    echo "pg.sh: start attempt $attempt on port $port failed, retrying" >&2
  done
  tail -n 30 "$dir/postgres.log" >&2 || true
  die "could not start PostgreSQL in $dir"
}

do_stop() {
  [[ -d "$dir/data" ]] || return 0
  if is_running; then
    as_pg "$PG_BIN/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >/dev/null 2>&1 ||
      as_pg "$PG_BIN/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -f "$dir/url"
}

do_restart() {
  is_running || die "no cluster running in $dir"
  [[ "$mode" == fast || "$mode" == immediate ]] || die "restart mode must be fast or immediate"
  as_pg "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -m "$mode" -w -t 60 restart \
    >/dev/null 2>&1 || { tail -n 30 "$dir/postgres.log" >&2; die "could not restart $dir"; }
}

case "$cmd" in
  start) do_start ;;
  restart) do_restart ;;
  stop) do_stop ;;
  url)
    is_running || die "no cluster running in $dir"
    url_of
    ;;
  *) usage ;;
esac
