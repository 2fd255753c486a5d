#!/usr/bin/env bash
# Throwaway MariaDB server for tests (the jdbc-mysql catalog's source).
#
#   mariadb.sh start DIR   initialize a datadir in DIR (mariadb-install-db) and start mariadbd as
#                          the current user on 127.0.0.1:<free port>, socket DIR/mysqld.sock.
#                          Creates the user `cairn` (password `cairn-test-pw`, all privileges,
#                          from 127.0.0.1 and localhost) and prints
#                          "127.0.0.1 <port> cairn cairn-test-pw DIR/mysqld.sock"; writes the
#                          same line to DIR/conn. Idempotent: prints the line when running.
#   mariadb.sh stop DIR    stop the server in DIR (no-op when it is not running).
#
# With MARIADB_TLS_CERT and MARIADB_TLS_KEY (PEM files) set, `start` also serves TLS with that
# certificate, and creates the user `cairn_tls` (same password) that may only connect over TLS.
#
# Runs as the current user (`--user=$(id -un)`, also as root), so no service account is needed.
set -euo pipefail

die() { echo "mariadb.sh: $*" >&2; exit 1; }
[[ $# -eq 2 ]] || die "usage: mariadb.sh {start|stop} DIR"
cmd="$1"
dir="$2"
USER_NAME="cairn"
USER_PW="cairn-test-pw"
me="$(id -un)"

MARIADBD="$(command -v mariadbd || echo /usr/sbin/mariadbd)"
INSTALL_DB="$(command -v mariadb-install-db || echo /usr/bin/mariadb-install-db)"
CLIENT="$(command -v mariadb || command -v mysql || true)"

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

is_running() {
  [[ -f "$dir/mysqld.pid" ]] && kill -0 "$(cat "$dir/mysqld.pid")" 2>/dev/null
}

sock_client() { "$CLIENT" --no-defaults -S "$dir/mysqld.sock" -u "$me" "$@"; }

do_start() {
  [[ -x "$MARIADBD" ]] || die "mariadbd not found (install mariadb-server)"
  [[ -n "$CLIENT" ]] || die "mariadb client not found (install mariadb-client)"
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  if is_running && [[ -f "$dir/conn" ]]; then
    cat "$dir/conn"
    return 0
  fi
  if [[ ! -d "$dir/data/mysql" ]]; then
    rm -rf "$dir/data"
    "$INSTALL_DB" --no-defaults --user="$me" --datadir="$dir/data" --auth-root-authentication-method=socket \
      --skip-test-db >"$dir/install.log" 2>&1 || { cat "$dir/install.log" >&2; die "mariadb-install-db failed"; }
  fi
  local tls_opts=() tls_user=""
  if [[ -n "${MARIADB_TLS_CERT:-}" && -n "${MARIADB_TLS_KEY:-}" ]]; then
    tls_opts=(--ssl-cert="$MARIADB_TLS_CERT" --ssl-key="$MARIADB_TLS_KEY")
    tls_user="CREATE USER IF NOT EXISTS '${USER_NAME}_tls'@'127.0.0.1' IDENTIFIED BY '$USER_PW' REQUIRE SSL;
      GRANT ALL PRIVILEGES ON *.* TO '${USER_NAME}_tls'@'127.0.0.1';"
  fi
  local attempt port
  for attempt in 1 2 3 4 5; do
    port="$(free_port)"
    rm -f "$dir/mysqld.sock" "$dir/mysqld.pid"
    "$MARIADBD" --no-defaults --user="$me" --datadir="$dir/data" --bind-address=127.0.0.1 \
      --port="$port" --socket="$dir/mysqld.sock" --pid-file="$dir/mysqld.pid" \
      --log-error="$dir/mysqld.err" --skip-name-resolve --innodb-buffer-pool-size=32M \
      --innodb-log-file-size=16M --innodb-flush-log-at-trx-commit=0 --max-connections=300 \
      --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci "${tls_opts[@]}" \
      >/dev/null 2>&1 &
    local i
    for i in $(seq 1 100); do
      if sock_client -e "SELECT 1" >/dev/null 2>&1; then
        sock_client -e "CREATE USER IF NOT EXISTS '$USER_NAME'@'127.0.0.1' IDENTIFIED BY '$USER_PW';
          CREATE USER IF NOT EXISTS '$USER_NAME'@'localhost' IDENTIFIED BY '$USER_PW';
          GRANT ALL PRIVILEGES ON *.* TO '$USER_NAME'@'127.0.0.1' WITH GRANT OPTION;
          GRANT ALL PRIVILEGES ON *.* TO '$USER_NAME'@'localhost' WITH GRANT OPTION;
          $tls_user" ||
          die "cannot create the test user"
        echo "127.0.0.1 $port $USER_NAME $USER_PW $dir/mysqld.sock" | tee "$dir/conn"
        return 0
      fi
      if ! jobs -r %% >/dev/null 2>&1 && ! is_running && [[ $i -gt 10 ]]; then break; fi
      sleep 0.2
    done
    echo "mariadb.sh: start attempt $attempt on port $port failed, retrying" >&2
    is_running && kill "$(cat "$dir/mysqld.pid")" 2>/dev/null || true
    sleep 0.5
  done
  tail -n 30 "$dir/mysqld.err" >&2 || true
  die "could not start MariaDB in $dir"
}

do_stop() {
  is_running || return 0
  local pid
  pid="$(cat "$dir/mysqld.pid")"
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || { rm -f "$dir/conn"; return 0; }
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$dir/conn"
}

case "$cmd" in
  start) do_start ;;
  stop) do_stop ;;
  *) die "usage: mariadb.sh {start|stop} DIR" ;;
esac
