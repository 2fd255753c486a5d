#!/usr/bin/env bash
# End-to-end test entry point (called by the Makefile).
#
#   tests/e2e/run.sh [PYTEST_ARGS...] [-- CMD [ARGS...]]
#
# 1. Creates/updates the venv .venv (repo root) from tests/e2e/requirements.txt (and, without
#    their declared dependencies, requirements-nodeps.txt); a hash stamp
#    skips the reinstall when the requirements did not change.
# 2. Starts one throwaway PostgreSQL (tests/harness/pg.sh) for the whole run and exports its
#    URL as CAIRN_TEST_PG_URL, and one MinIO (tests/harness/minio.py; S3 + STS, root keys
#    admin/password, bucket `warehouse`) exported as CAIRN_TEST_S3_ENDPOINT (CAIRN_TEST_S3=0
#    skips it), and one Kafka broker in KRaft mode (tests/harness/kafka_broker.py, jars from Maven
#    Central) exported as CAIRN_TEST_KAFKA_BOOTSTRAP and CAIRN_TEST_KAFKA_DIR
#    (CAIRN_TEST_KAFKA=0 skips it), and one Hive standalone metastore (tests/harness/
#    hive_metastore.py, jars from Maven Central) exported as CAIRN_TEST_HIVE_URI and
#    CAIRN_TEST_HIVE_DIR (CAIRN_TEST_HIVE=0 skips it); stops them on exit.
# 3. If `-- CMD ...` is given, runs CMD first (e.g. `-- build/cairn_unit_tests`) with
#    CAIRN_TEST_PG_URL set, so unit tests share the same PostgreSQL lifetime.
# 4. Runs pytest on tests/e2e once per store in CAIRN_E2E_STORES (default "sqlite postgres
#    mysql"; mysql is a database on the run's MariaDB).
# 5. Then, per store, the suites named in CAIRN_ICEBERG_SUITES (default
#    "pytest rck upstream security storage federation jdbc schemathesis engines ui"): tests/iceberg
#    (pytest + PyIceberg),
#    tests/rck/run.sh (Iceberg's REST Compatibility Kit, needs mvn + a JDK 17),
#    tests/iceberg/pyiceberg_upstream/run.py (PyIceberg's own test_catalog.py), tests/security
#    (authentication, the authorization access matrix, audit), tests/storage (S3 warehouses,
#    credential vending, storage faults), tests/federation (catalogs fronting a remote Iceberg
#    REST catalog: a second cairn and Iceberg's Java reference server, needs java; it runs with
#    the first store only, its remotes keep their own state) and tests/jdbc (jdbc-postgresql /
#    jdbc-mysql catalogs against the shared PostgreSQL and one throwaway MariaDB,
#    tests/harness/mariadb.sh, started once for the run and exported as
#    CAIRN_TEST_MYSQL_{HOST,PORT,USER,PASSWORD,SOCKET}) and tests/schemathesis/run.py
#    (generated requests over Cairn's descriptions of /api, /iceberg and /lance, bounded to about 4
#    minutes; no 5xx allowed; once per run, with the first store, like federation) and
#    tests/engines (one Trino 483 per run, tests/harness/trino_server.py, jars from Maven
#    Central, on the Temurin 25 JDK, against a Cairn with authorization on and the run's MinIO,
#    dbt-trino with dbt-ol from a venv of their own, .venv-dbt, Spark 3.5 (pyspark, Iceberg's
#    runtime jars from Maven Central), and DataHub's CLI with integrations/datahub in
#    .venv-datahub; once per run, with the first store) and tests/ui (the web UI in Debian's
#    Chromium driven by Playwright; once per run, with the first store).
#    Skipped when test paths were named on the command line.
#
# Environment: CAIRN_BIN (default build/cairn), CAIRN_E2E_STORES, CAIRN_ICEBERG_SUITES, PYTHON
# (venv creator, default python3). Exits non-zero when any step fails (all steps still run).
set -uo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VENV="$REPO/.venv"
REQ="$REPO/tests/e2e/requirements.txt"
REQ_NODEPS="$REPO/tests/e2e/requirements-nodeps.txt"
PG_SH="$REPO/tests/harness/pg.sh"
MARIADB_SH="$REPO/tests/harness/mariadb.sh"
STORES="${CAIRN_E2E_STORES:-sqlite postgres mysql}"

pytest_args=()
pre_cmd=()
while [[ $# -gt 0 ]]; do
  if [[ "$1" == "--" ]]; then
    shift
    pre_cmd=("$@")
    break
  fi
  pytest_args+=("$1")
  shift
done

log() { echo "run.sh: $*" >&2; }

# side_venv DIR REQUIREMENTS EXE [PACKAGE_DIR]: a venv of its own for tools whose pins clash with
# the main venv's, with PACKAGE_DIR (a package of this repository) installed into it; made again
# when the requirements or the package's sources change.
side_venv() {
  local dir="$1" req="$2" exe="$3" pkg="${4:-}" hash
  hash="$({ cat "$req"
            if [[ -n "$pkg" ]]; then
              find "$pkg" -type f \( -name '*.py' -o -name '*.toml' \) -not -path '*/build/*' \
                -print0 | sort -z | xargs -0 cat
            fi; } | sha256sum | cut -d' ' -f1)"
  if [[ -x "$dir/bin/$exe" && "$(cat "$dir/.requirements.sha256" 2>/dev/null)" == "$hash" ]]; then
    return 0
  fi
  log "installing $req${pkg:+ and $pkg} into $dir"
  { "${PYTHON:-python3}" -m venv "$dir" &&
    "$dir/bin/python" -m pip install --disable-pip-version-check -q -r "$req" &&
    { [[ -z "$pkg" ]] ||
      "$dir/bin/python" -m pip install --disable-pip-version-check -q --no-deps \
        --no-build-isolation --force-reinstall "$pkg"; } &&
    echo "$hash" >"$dir/.requirements.sha256"; } || log "install into $dir failed"
}

# --- venv -------------------------------------------------------------------------------------
want_hash="$(cat "$REQ" "$REQ_NODEPS" | sha256sum | cut -d' ' -f1)"
stamp="$VENV/.requirements.sha256"
if [[ ! -x "$VENV/bin/python" || "$(cat "$stamp" 2>/dev/null)" != "$want_hash" ]]; then
  log "installing test requirements into $VENV"
  if [[ ! -x "$VENV/bin/python" ]]; then
    "${PYTHON:-python3}" -m venv "$VENV" || { log "cannot create venv"; exit 1; }
  fi
  "$VENV/bin/python" -m pip install --disable-pip-version-check -q -r "$REQ" ||
    { log "pip install failed"; exit 1; }
  "$VENV/bin/python" -m pip install --disable-pip-version-check -q --no-deps -r "$REQ_NODEPS" ||
    { log "pip install (--no-deps) failed"; exit 1; }
  echo "$want_hash" >"$stamp"
fi

# Run the whole suite unless the caller named test files/ids itself.
default_paths=(tests/e2e)
for a in "${pytest_args[@]}"; do
  if [[ "$a" != -* && -e "$REPO/${a%%::*}" ]]; then
    default_paths=()
    break
  fi
done
ICEBERG_SUITES="${CAIRN_ICEBERG_SUITES:-pytest rck upstream security storage federation jdbc schemathesis engines ui}"
if [[ ${#default_paths[@]} -eq 0 ]]; then
  log "test paths given: Iceberg REST suites skipped"
  ICEBERG_SUITES=""
fi
need_mariadb=0
[[ " $ICEBERG_SUITES " == *" jdbc "* ]] && need_mariadb=1
for a in "${pytest_args[@]}"; do
  [[ "$a" == tests/jdbc* ]] && need_mariadb=1  # jdbc tests named on the command line
done
[[ " $STORES " == *" mysql "* ]] && need_mariadb=1  # the MySQL metadata store
[[ ${#pre_cmd[@]} -gt 0 ]] && need_mariadb=1       # the unit tests' MySQL store backend

# --- PostgreSQL -------------------------------------------------------------------------------
need_pg=0
[[ ${#pre_cmd[@]} -gt 0 ]] && need_pg=1
[[ " $STORES " == *" postgres "* ]] && need_pg=1
[[ $need_mariadb -eq 1 ]] && need_pg=1  # the jdbc-postgresql catalogs' source
pg_dir=""
minio_dir=""
mariadb_dir=""
kafka_dir=""
hive_dir=""
cleanup() {
  if [[ -n "$hive_dir" ]]; then
    python3 "$REPO/tests/harness/hive_metastore.py" stop "$hive_dir" || true
    rm -rf "$hive_dir"
  fi
  if [[ -n "$kafka_dir" ]]; then
    python3 "$REPO/tests/harness/kafka_broker.py" stop "$kafka_dir" || true
    rm -rf "$kafka_dir"
  fi
  if [[ -n "$pg_dir" ]]; then
    "$PG_SH" stop "$pg_dir" || true
    rm -rf "$pg_dir"
  fi
  if [[ -n "$minio_dir" ]]; then
    python3 "$REPO/tests/harness/minio.py" stop "$minio_dir" || true
    rm -rf "$minio_dir"
  fi
  if [[ -n "$mariadb_dir" ]]; then
    "$MARIADB_SH" stop "$mariadb_dir" || true
    rm -rf "$mariadb_dir"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [[ $need_pg -eq 1 ]]; then
  pg_dir="$(mktemp -d /tmp/cairn-pg.XXXXXX)"
  if ! CAIRN_TEST_PG_URL="$("$PG_SH" start "$pg_dir")"; then
    log "could not start PostgreSQL"
    exit 1
  fi
  export CAIRN_TEST_PG_URL
  log "PostgreSQL at $CAIRN_TEST_PG_URL"
fi

# --- MinIO (S3 with STS), shared by every suite ------------------------------------------------
if [[ "${CAIRN_TEST_S3:-1}" == "1" ]]; then
  minio_dir="$(mktemp -d /tmp/cairn-minio.XXXXXX)"
  if ! CAIRN_TEST_S3_ENDPOINT="$(python3 "$REPO/tests/harness/minio.py" start "$minio_dir")"; then
    log "could not start MinIO"
    exit 1
  fi
  export CAIRN_TEST_S3_ENDPOINT
  log "MinIO at $CAIRN_TEST_S3_ENDPOINT"
  # A 900 s token minted by the unit suite, checked at the end of the run once expired
  # (CAIRN_TEST_EXPIRY=0 skips the wait).
  if [[ "${CAIRN_TEST_EXPIRY:-1}" == "1" && ${#pre_cmd[@]} -gt 0 ]]; then
    export CAIRN_TEST_EXPIRY_FILE="$minio_dir/expiring-token.json"
  fi
fi

# --- Kafka (one KRaft broker), for the topic tests of every suite ------------------------------
if [[ "${CAIRN_TEST_KAFKA:-1}" == "1" ]]; then
  kafka_dir="$(mktemp -d /tmp/cairn-kafka.XXXXXX)"
  if ! CAIRN_TEST_KAFKA_BOOTSTRAP="$(python3 "$REPO/tests/harness/kafka_broker.py" start "$kafka_dir")"; then
    log "could not start Kafka"
    exit 1
  fi
  export CAIRN_TEST_KAFKA_BOOTSTRAP CAIRN_TEST_KAFKA_DIR="$kafka_dir"
  log "Kafka at $CAIRN_TEST_KAFKA_BOOTSTRAP"
fi

# --- Hive Metastore (standalone, embedded Derby), for the hive catalog tests ------------------
if [[ "${CAIRN_TEST_HIVE:-1}" == "1" ]]; then
  hive_dir="$(mktemp -d /tmp/cairn-hive.XXXXXX)"
  if ! CAIRN_TEST_HIVE_URI="$(python3 "$REPO/tests/harness/hive_metastore.py" start "$hive_dir")"; then
    log "could not start the Hive metastore"
    exit 1
  fi
  export CAIRN_TEST_HIVE_URI CAIRN_TEST_HIVE_DIR="$hive_dir"
  log "Hive metastore at $CAIRN_TEST_HIVE_URI"
fi

# --- MariaDB (jdbc suite) ---------------------------------------------------------------------
if [[ $need_mariadb -eq 1 ]]; then
  mariadb_dir="$(mktemp -d /tmp/cairn-mariadb.XXXXXX)"
  if conn="$("$MARIADB_SH" start "$mariadb_dir")"; then
    read -r CAIRN_TEST_MYSQL_HOST CAIRN_TEST_MYSQL_PORT CAIRN_TEST_MYSQL_USER \
      CAIRN_TEST_MYSQL_PASSWORD CAIRN_TEST_MYSQL_SOCKET <<<"$conn"
    export CAIRN_TEST_MYSQL_HOST CAIRN_TEST_MYSQL_PORT CAIRN_TEST_MYSQL_USER \
      CAIRN_TEST_MYSQL_PASSWORD CAIRN_TEST_MYSQL_SOCKET
    log "MariaDB at $CAIRN_TEST_MYSQL_HOST:$CAIRN_TEST_MYSQL_PORT"
  else
    log "could not start MariaDB: the jdbc suite will fail"
  fi
fi

rc=0
summary=()

# --- optional pre-command (e.g. unit tests) ---------------------------------------------------
if [[ ${#pre_cmd[@]} -gt 0 ]]; then
  log "running: ${pre_cmd[*]}"
  started=$SECONDS
  if (cd "$REPO" && "${pre_cmd[@]}"); then
    summary+=("ok     ${pre_cmd[0]##*/} ($((SECONDS - started)) s)")
  else
    log "FAILED: ${pre_cmd[*]}"
    summary+=("FAILED ${pre_cmd[0]##*/} ($((SECONDS - started)) s)")
    rc=1
  fi
fi

# --- pytest, once per store -------------------------------------------------------------------

for store in $STORES; do
  log "e2e with store=$store"
  extra_env=(CAIRN_E2E_STORE="$store")
  [[ "$store" == "postgres" ]] && extra_env+=(CAIRN_E2E_PG_URL="$CAIRN_TEST_PG_URL")
  started=$SECONDS
  if (cd "$REPO" && env "${extra_env[@]}" "$VENV/bin/python" -m pytest "${default_paths[@]}" \
    -p no:cacheprovider "${pytest_args[@]}"); then
    summary+=("ok     e2e store=$store ($((SECONDS - started)) s)")
  else
    log "FAILED: e2e store=$store"
    summary+=("FAILED e2e store=$store ($((SECONDS - started)) s)")
    rc=1
  fi
done

# --- Iceberg REST suites, once per store --------------------------------------------------------
for store in $STORES; do
  extra_env=(CAIRN_E2E_STORE="$store" PATH="$VENV/bin:$PATH")
  [[ "$store" == "postgres" ]] && extra_env+=(CAIRN_E2E_PG_URL="$CAIRN_TEST_PG_URL")
  suites="$ICEBERG_SUITES"
  # The MySQL store runs the Iceberg REST pytest suite; the suites about engines, storage and
  # protocols run on the first store and on PostgreSQL, whose behaviour the store does not change.
  [[ "$store" == "mysql" ]] && suites="$(tr ' ' '\n' <<<"$ICEBERG_SUITES" | grep -x pytest || true)"
  for suite in $suites; do
    log "suite $suite with store=$store"
    started=$SECONDS
    src=0
    case "$suite" in
      pytest)
        (cd "$REPO" && env "${extra_env[@]}" "$VENV/bin/python" -m pytest tests/iceberg \
          -p no:cacheprovider "${pytest_args[@]}")
        src=$?
        # pytest's 5 = nothing selected (e.g. a -k filter meant for tests/e2e)
        [[ $src -eq 5 && ${#pytest_args[@]} -gt 0 ]] && src=0
        ;;
      rck)
        if ! command -v mvn >/dev/null || ! command -v java >/dev/null; then
          log "mvn/java not installed: cannot run the Iceberg REST Compatibility Kit"
          src=1
        else
          (cd "$REPO" && env "${extra_env[@]}" tests/rck/run.sh)
          src=$?
        fi
        ;;
      upstream)
        (cd "$REPO" && env "${extra_env[@]}" "$VENV/bin/python" \
          tests/iceberg/pyiceberg_upstream/run.py)
        src=$?
        ;;
      security)
        # -s: the access matrix prints its case count, the audit check its request count
        (cd "$REPO" && env "${extra_env[@]}" "$VENV/bin/python" -m pytest tests/security \
          -p no:cacheprovider -s "${pytest_args[@]}")
        src=$?
        [[ $src -eq 5 && ${#pytest_args[@]} -gt 0 ]] && src=0
        ;;
      storage)
        # S3 warehouses, vended credentials and storage faults, on the run's MinIO
        (cd "$REPO" && env "${extra_env[@]}" "$VENV/bin/python" -m pytest tests/storage \
          -p no:cacheprovider "${pytest_args[@]}")
        src=$?
        [[ $src -eq 5 && ${#pytest_args[@]} -gt 0 ]] && src=0
        ;;
      federation)
        # Once per run: the suite starts its own remotes (and the Java reference server once).
        if [[ "$store" != "${STORES%% *}" ]]; then
          log "suite federation already ran with store=${STORES%% *}"
          continue
        fi
        if ! command -v java >/dev/null; then
          log "java not installed: cannot run Iceberg's reference REST server for tests/federation"
          src=1
        else
          (cd "$REPO" && env "${extra_env[@]}" "$VENV/bin/python" -m pytest tests/federation \
            -p no:cacheprovider "${pytest_args[@]}")
          src=$?
          [[ $src -eq 5 && ${#pytest_args[@]} -gt 0 ]] && src=0
        fi
        ;;
      jdbc)
        (cd "$REPO" && env "${extra_env[@]}" CAIRN_TEST_PG_URL="${CAIRN_TEST_PG_URL:-}" \
          "$VENV/bin/python" -m pytest tests/jdbc -p no:cacheprovider "${pytest_args[@]}")
        src=$?
        [[ $src -eq 5 && ${#pytest_args[@]} -gt 0 ]] && src=0
        ;;
      ui)
        # Once per run: the web UI in Debian's Chromium, against a server on the first store.
        if [[ "$store" != "${STORES%% *}" ]]; then
          log "suite ui already ran with store=${STORES%% *}"
          continue
        fi
        (cd "$REPO" && env "${extra_env[@]}" "$VENV/bin/python" -m pytest tests/ui \
          -p no:cacheprovider "${pytest_args[@]}")
        src=$?
        [[ $src -eq 5 && ${#pytest_args[@]} -gt 0 ]] && src=0
        ;;
      schemathesis)
        # Once per run: a fuzzing budget, not a per-store behaviour check.
        if [[ "$store" != "${STORES%% *}" ]]; then
          log "suite schemathesis already ran with store=${STORES%% *}"
          continue
        fi
        (cd "$REPO" && env "${extra_env[@]}" "$VENV/bin/python" tests/schemathesis/run.py)
        src=$?
        ;;
      engines)
        # Once per run: one Trino for every scenario.
        if [[ "$store" != "${STORES%% *}" ]]; then
          log "suite engines already ran with store=${STORES%% *}"
          continue
        fi
        # dbt (dbt-core, dbt-trino, dbt-ol) and DataHub's CLI pin what the main venv does not
        # take (acryl-datahub: pyiceberg<0.12): a venv each. DataHub's gets the Cairn source.
        side_venv "$REPO/.venv-dbt" "$REPO/tests/engines/dbt/requirements.txt" dbt-ol
        side_venv "$REPO/.venv-datahub" "$REPO/tests/engines/datahub/requirements.txt" datahub \
          "$REPO/integrations/datahub"
        (cd "$REPO" && env "${extra_env[@]}" CAIRN_DBT_VENV="$REPO/.venv-dbt" \
          CAIRN_DATAHUB_VENV="$REPO/.venv-datahub" \
          "$VENV/bin/python" -m pytest tests/engines \
          -p no:cacheprovider -s "${pytest_args[@]}")
        src=$?
        [[ $src -eq 5 && ${#pytest_args[@]} -gt 0 ]] && src=0
        ;;
      *)
        log "unknown suite '$suite' in CAIRN_ICEBERG_SUITES (pytest rck upstream security storage federation jdbc schemathesis engines ui)"
        src=1
        ;;
    esac
    if [[ $src -ne 0 ]]; then
      log "FAILED: $suite store=$store (exit $src)"
      summary+=("FAILED $suite store=$store ($((SECONDS - started)) s)")
      rc=1
    else
      summary+=("ok     $suite store=$store ($((SECONDS - started)) s)")
    fi
  done
done
if [[ -n "${CAIRN_TEST_EXPIRY_FILE:-}" ]]; then
  if [[ -f "$CAIRN_TEST_EXPIRY_FILE" ]]; then
    if "$VENV/bin/python" "$REPO/tests/storage/check_expired.py" "$CAIRN_TEST_EXPIRY_FILE" \
        "$CAIRN_TEST_S3_ENDPOINT"; then
      summary+=("ok     expired vended token refused")
    else
      summary+=("FAILED expired vended token refused")
      rc=1
    fi
  else
    summary+=("FAILED expired vended token refused (no token was minted)")
    rc=1
  fi
fi
for line in "${summary[@]}"; do log "$line"; done

exit $rc
