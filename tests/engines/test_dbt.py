"""dbt (dbt-core 1.11 with dbt-trino 1.11) building a project through Trino against Cairn, with
OpenLineage's `dbt-ol` wrapper sending the run's lineage to Cairn.

The project (tests/engines/dbt/project): a seed, a source table Trino fills, a view, an
incremental merge model, a table, and data tests. `dbt build` runs twice, with new and changed
source rows in between; the second run merges them into the incremental model without
duplicates. Cairn's lineage query then shows each model's upstreams.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import Lake, token
from test_trino import WRITER, TrinoCatalog

REPO = Path(__file__).resolve().parents[2]
PROJECT = Path(__file__).resolve().parent / "dbt" / "project"
DBT_VENV = Path(os.environ.get("CAIRN_DBT_VENV", REPO / ".venv-dbt"))


def dbt_ol(project: Path, lake: Lake, *args: str) -> subprocess.CompletedProcess:
    exe = DBT_VENV / "bin" / "dbt-ol"
    if not exe.is_file():
        pytest.fail(f"{exe} not found: tests/e2e/run.sh makes {DBT_VENV} from "
                    "tests/engines/dbt/requirements.txt")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DBT_", "OPENLINEAGE_"))}
    env.update({
        "PATH": f"{DBT_VENV / 'bin'}:{env.get('PATH', '')}",
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        # dbt-ol posts every event to Cairn's OpenLineage endpoint as principal `dbt`.
        "OPENLINEAGE_URL": lake.cairn.url,
        "OPENLINEAGE_ENDPOINT": "api/v1/lineage",
        "OPENLINEAGE_API_KEY": token("dbt"),
        "OPENLINEAGE_NAMESPACE": "dbt",
    })
    return subprocess.run([str(exe), *args, "--project-dir", str(project), "--profiles-dir",
                           str(project)], capture_output=True, text=True, env=env, cwd=project,
                          timeout=900)


def test_dbt_build_twice_with_lineage(trino_server, lake, tmp_path):
    lake.grant("dbt", WRITER)
    # The Trino catalog takes the Cairn catalog's name, so the datasets dbt-ol names
    # (trino://host:port, catalog.schema.table) map to Cairn's tables (docs/lineage.md).
    trino_cat = TrinoCatalog(trino_server, lake, "dbt", name=lake.catalog)
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project)
    (project / "profiles.yml").write_text(f"""cairn_shop:
  target: dev
  outputs:
    dev:
      type: trino
      method: none
      host: 127.0.0.1
      port: {trino_server.port}
      user: dbt
      catalog: {lake.catalog}
      schema: analytics
      threads: 2
""")
    try:
        c = trino_cat
        c.sql("CREATE SCHEMA raw")
        c.sql("CREATE TABLE raw.orders (id bigint, customer_id bigint, amount double, "
              "updated_at timestamp(6))")
        c.sql("INSERT INTO raw.orders VALUES "
              "(1, 1, 10.0, TIMESTAMP '2026-01-01 00:00:00'), "
              "(2, 2, 20.0, TIMESTAMP '2026-01-01 00:00:00'), "
              "(3, 1, 5.0, TIMESTAMP '2026-01-02 00:00:00')")

        first = dbt_ol(project, lake, "build")
        assert first.returncode == 0, first.stdout[-4000:] + first.stderr[-2000:]
        assert "Completed successfully" in first.stdout
        assert c.sql("SELECT customer, orders, total FROM analytics.customer_totals "
                     "ORDER BY customer") == [["Ada", 2, 15.0], ["Grace", 1, 20.0]]
        ice = lake.pyiceberg()
        assert ("analytics", "stg_orders") in ice.list_views("analytics")
        tables = {t[1] for t in ice.list_tables("analytics")}
        assert {"customers", "orders_latest", "customer_totals"} <= tables
        merged_before = len(ice.load_table("analytics.orders_latest").snapshots())

        # New and changed source rows; the incremental model merges them.
        c.sql("UPDATE raw.orders SET amount = 12.0, updated_at = TIMESTAMP '2026-01-03 00:00:00' "
              "WHERE id = 1")
        c.sql("INSERT INTO raw.orders VALUES (4, 3, 7.0, TIMESTAMP '2026-01-03 00:00:00')")
        second = dbt_ol(project, lake, "build")
        assert second.returncode == 0, second.stdout[-4000:] + second.stderr[-2000:]
        assert c.sql("SELECT id, amount FROM analytics.orders_latest ORDER BY id") == [
            [1, 12.0], [2, 20.0], [3, 5.0], [4, 7.0]]
        assert c.sql("SELECT customer, orders, total FROM analytics.customer_totals "
                     "ORDER BY customer") == [["Ada", 2, 17.0], ["Edsger", 1, 7.0],
                                              ["Grace", 1, 20.0]]
        assert len(ice.load_table("analytics.orders_latest").snapshots()) > merged_before

        # Lineage sent by dbt-ol, read back through Cairn's graph query.
        graph = lake.admin.ok("GET", "lineage/graph?" + "&".join([
            f"metalake={lake.metalake}", f"fullName={lake.catalog}.analytics.customer_totals",
            "direction=upstream", "depth=3"]))
        names = {n.get("name") for n in graph["nodes"] if n["type"] == "dataset"}
        # Models and sources; dbt-ol 1.54 names no seed as a model's input.
        assert names >= {f"{lake.catalog}.analytics.customer_totals",
                         f"{lake.catalog}.analytics.orders_latest",
                         f"{lake.catalog}.analytics.stg_orders",
                         f"{lake.catalog}.raw.orders"}, names
        cairn_tables = {n["object"]["fullName"] for n in graph["nodes"]
                        if n["type"] == "dataset" and n.get("object")}
        assert f"{lake.catalog}.analytics.orders_latest" in cairn_tables, graph["nodes"]
        jobs = {n["name"] for n in graph["nodes"] if n["type"] == "job"}
        assert any("customer_totals" in j for j in jobs), jobs
    finally:
        trino_cat.drop()
