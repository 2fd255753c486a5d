#!/usr/bin/env bash
# Runs Apache Iceberg's REST Compatibility Kit (RCK) against Cairn's Iceberg REST service.
#
#   tests/rck/run.sh [EXTRA_MAVEN_ARGS...]
#   e.g. tests/rck/run.sh -Drck.select.catalog='RESTCompatibilityKitCatalogTests#testRenameTable' \
#                         -Drck.select.views=none
#
# 1. Starts a throwaway `cairn serve` (a copy of CAIRN_BIN, default build/cairn; store from
#    CAIRN_E2E_STORE / CAIRN_E2E_PG_URL like the e2e suite, default sqlite), or uses the running
#    server at CAIRN_URL.
# 2. Creates a metalake and two lakehouse-iceberg catalogs (warehouses = local temp dirs) through
#    /api, one per RCK class; the RCK connects to <server>/iceberg with
#    warehouse=<metalake>.<catalog>.
# 3. Runs the kit with Maven (module tests/rck/pom.xml). The first run resolves the dependencies
#    from Maven Central into ~/.m2; later runs are offline (-o) while the pom is unchanged.
# 4. Prints a summary from the Surefire reports and exits non-zero when a test failed or the
#    kit could not run. Excluded tests: see tests/rck/EXCLUDED.md.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
CAIRN_BIN="${CAIRN_BIN:-$REPO/build/cairn}"
[[ "$CAIRN_BIN" == /* ]] || CAIRN_BIN="$REPO/$CAIRN_BIN"
STORE="${CAIRN_E2E_STORE:-sqlite}"
M2_REPO="${CAIRN_RCK_M2:-$HOME/.m2/repository}"

log() { echo "rck: $*" >&2; }

work="$(mktemp -d /tmp/cairn-rck.XXXXXX)"
server_pid=""
pg_db=""
cleanup() {
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null
    for _ in $(seq 1 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$server_pid" 2>/dev/null || true
  fi
  if [[ -n "$pg_db" ]]; then
    psql -X -q -d "$pg_admin" -c "DROP DATABASE IF EXISTS $pg_db WITH (FORCE)" >/dev/null 2>&1 || true
  fi
  [[ "${CAIRN_RCK_KEEP:-0}" == 1 ]] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# --- server ------------------------------------------------------------------------------------
if [[ -n "${CAIRN_URL:-}" ]]; then
  url="${CAIRN_URL%/}"
else
  [[ -x "$CAIRN_BIN" ]] || { log "server binary $CAIRN_BIN not found; run make build first"; exit 1; }
  cp "$CAIRN_BIN" "$work/cairn"
  env_args=(CAIRN_STORE_TYPE="$STORE")
  if [[ "$STORE" == "postgres" ]]; then
    [[ -n "${CAIRN_E2E_PG_URL:-}" ]] || { log "CAIRN_E2E_STORE=postgres needs CAIRN_E2E_PG_URL"; exit 1; }
    pg_db="cairn_rck_$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
    pg_admin="$(python3 - "$CAIRN_E2E_PG_URL" postgres <<'PY'
import sys
from urllib.parse import urlsplit, urlunsplit
url, db = sys.argv[1], sys.argv[2]
if "://" in url:
    p = urlsplit(url); print(urlunsplit((p.scheme, p.netloc, "/" + db, p.query, p.fragment)))
else:
    print(" ".join([x for x in url.split() if not x.startswith("dbname=")] + ["dbname=" + db]))
PY
)"
    pg_url="$(python3 - "$CAIRN_E2E_PG_URL" "$pg_db" <<'PY'
import sys
from urllib.parse import urlsplit, urlunsplit
url, db = sys.argv[1], sys.argv[2]
if "://" in url:
    p = urlsplit(url); print(urlunsplit((p.scheme, p.netloc, "/" + db, p.query, p.fragment)))
else:
    print(" ".join([x for x in url.split() if not x.startswith("dbname=")] + ["dbname=" + db]))
PY
)"
    psql -X -q -v ON_ERROR_STOP=1 -d "$pg_admin" -c "CREATE DATABASE $pg_db" >/dev/null ||
      { log "cannot create database $pg_db"; pg_db=""; exit 1; }
    env_args+=(CAIRN_STORE_POSTGRES_URL="$pg_url")
  fi
  started=0
  for _attempt in 1 2 3; do
    port="$(free_port)"
    mkdir -p "$work/data"
    env $(env | grep -o '^CAIRN_[A-Za-z0-9_]*' | sed 's/^/-u /') "${env_args[@]}" \
      CAIRN_LOG_LEVEL="${CAIRN_LOG_LEVEL:-warn}" \
      "$work/cairn" serve --host 127.0.0.1 --port "$port" --data-dir "$work/data" \
      >>"$work/cairn.log" 2>&1 </dev/null &
    server_pid=$!
    for _ in $(seq 1 300); do
      if ! kill -0 "$server_pid" 2>/dev/null; then break; fi
      if [[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/api/version")" == 200 ]]; then
        started=1; break
      fi
      sleep 0.1
    done
    [[ $started == 1 ]] && break
    kill -KILL "$server_pid" 2>/dev/null; server_pid=""
  done
  if [[ $started != 1 ]]; then
    log "could not start cairn; log:"; tail -40 "$work/cairn.log" >&2; exit 1
  fi
  url="http://127.0.0.1:$port"
fi
log "server $url"

# --- metalake + catalog -----------------------------------------------------------------------
suffix="$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')"
metalake="rck_$suffix"
catalog="rck"
warehouse_dir="$work/warehouse"
# The kit asks for tables and views placed by hand under /tmp (`file:/tmp/ns/table`, its JUnit
# temporary directories): the catalogs allow that besides their warehouses.
RCK_LOCATIONS="file:/tmp"
api() {
  curl -s -o "$work/api.out" -w '%{http_code}' -X "$1" "$url/api/$2" \
    -H 'Content-Type: application/json' -H 'Accept: application/vnd.gravitino.v1+json' \
    ${3:+-d "$3"}
}
code="$(api POST metalakes "{\"name\":\"$metalake\",\"comment\":\"RCK\",\"properties\":{}}")"
[[ "$code" == 200 ]] || { log "create metalake: HTTP $code $(cat "$work/api.out")"; exit 1; }
create_catalog() {  # create_catalog NAME WAREHOUSE_DIR
  mkdir -p "$2"
  code="$(api POST "metalakes/$metalake/catalogs" "{\"name\":\"$1\",\"type\":\"relational\",\"provider\":\"lakehouse-iceberg\",\"comment\":\"RCK\",\"properties\":{\"catalog-backend\":\"managed\",\"warehouse\":\"$2\",\"allowed-locations\":\"$2,$RCK_LOCATIONS\"}}")"
  [[ "$code" == 200 ]] || { log "create catalog $1: HTTP $code $(cat "$work/api.out")"; exit 1; }
}
# One catalog per RCK class: each class insists on starting without its test namespaces.
create_catalog "$catalog" "$warehouse_dir"
create_catalog "${catalog}_views" "$work/warehouse_views"
warehouse="$metalake.$catalog"
warehouse_views="$metalake.${catalog}_views"
code="$(curl -s -o "$work/config.out" -w '%{http_code}' "$url/iceberg/v1/config?warehouse=$warehouse")"
if [[ "$code" != 200 ]]; then
  log "GET /iceberg/v1/config?warehouse=$warehouse answered $code: $(head -c 300 "$work/config.out")"
  log "the Iceberg REST service is not available; RCK not run"
  exit 1
fi

# --- maven ------------------------------------------------------------------------------------
pom_hash="$(sha256sum "$HERE/pom.xml" | cut -c1-16)"
stamp="$M2_REPO/.cairn-rck-$pom_hash"
reports="$HERE/target/surefire-reports"
run_mvn() {  # run_mvn OFFLINE(0|1) EXTRA_ARGS...
  local offline="$1"; shift
  local args=(-B -f "$HERE/pom.xml" "-Dmaven.repo.local=$M2_REPO")
  [[ "$offline" == 1 ]] && args+=(-o)
  [[ "${CAIRN_RCK_VERBOSE:-0}" == 1 ]] || args+=(-q)
  rm -rf "$reports"
  log "mvn ${args[*]} test (uri=$url/iceberg warehouse=$warehouse)"
  # failure.ignore: the second execution (views) runs even when the first has failures; the
  # verdict comes from the reports below.
  (cd "$HERE" && mvn "${args[@]}" test "-Drck.uri=$url/iceberg" "-Drck.warehouse=$warehouse" \
    "-Drck.warehouse.views=$warehouse_views" -Dmaven.test.failure.ignore=true \
    -Dsurefire.failIfNoSpecifiedTests=false "$@") >"$work/mvn.log" 2>&1
}
if [[ -f "$stamp" ]]; then
  run_mvn 1 "$@"
  mvn_rc=$?
  if [[ $mvn_rc -ne 0 ]] && ! ls "$reports"/TEST-*.xml >/dev/null 2>&1; then
    log "offline run failed before any test (exit $mvn_rc); retrying online"
    rm -f "$stamp"
    run_mvn 0 "$@"
    mvn_rc=$?
  fi
else
  run_mvn 0 "$@"
  mvn_rc=$?
fi
if ! ls "$reports"/TEST-*.xml >/dev/null 2>&1; then
  log "maven ran no test (exit $mvn_rc); log tail:"
  tail -60 "$work/mvn.log" >&2
  exit 1
fi
touch "$stamp"

mkdir -p "$HERE/target"
cp "$work/mvn.log" "$HERE/target/mvn.log" 2>/dev/null
[[ -f "$work/cairn.log" ]] && cp "$work/cairn.log" "$HERE/target/cairn.log"

# --- summary ----------------------------------------------------------------------------------
python3 - "$reports" <<'PY'
import glob, sys, xml.etree.ElementTree as ET
tot = fail = skip = 0
failures = []
for f in sorted(glob.glob(sys.argv[1] + "/TEST-*.xml")):
    root = ET.parse(f).getroot()
    for tc in root.iter("testcase"):
        tot += 1
        cls = tc.get("classname", "").rsplit(".", 1)[-1]
        name = f"{cls}#{tc.get('name') or '(class setup)'}"
        bad = tc.find("failure")
        if bad is None:
            bad = tc.find("error")
        if bad is not None:
            fail += 1
            msg = " ".join((bad.get("message") or bad.text or bad.get("type", "")).split())
            failures.append((name, msg[:300]))
        elif tc.find("skipped") is not None:
            skip += 1
for name, msg in failures:
    print(f"FAILED {name}: {msg}")
print(f"RCK: {tot - fail - skip} passed, {fail} failed, {skip} skipped")
sys.exit(1 if fail or tot == 0 else 0)
PY
summary_rc=$?
if [[ $mvn_rc -ne 0 || $summary_rc -ne 0 ]]; then
  [[ $mvn_rc -ne 0 ]] && { grep -E "ERROR\]" "$work/mvn.log" | head -5 >&2; }
  log "FAILED (maven exit $mvn_rc); reports in $reports, logs in $HERE/target/{mvn,cairn}.log"
  exit 1
fi
log "OK"
