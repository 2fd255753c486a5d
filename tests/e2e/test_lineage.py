"""Lineage through the official OpenLineage client (openlineage-python's HttpTransport): START and
COMPLETE events with inputs, outputs and column lineage, on Gravitino's path and on the client's
default one; then Cairn's graph query returns them, with Cairn tables named as objects and
datasets Cairn does not have as external ones (docs/lineage.md)."""

import time
import uuid

import pytest
from openlineage.client import OpenLineageClient
from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
from openlineage.client.facet_v2 import column_lineage_dataset as cl
from openlineage.client.transport.http import HttpConfig, HttpTransport

from gravitino import NameIdentifier
from gravitino.api.rel.column import Column
from gravitino.api.rel.types.types import Types

from helpers import unique

PRODUCER = "https://github.com/OpenLineage/OpenLineage/tree/1.54.0/client/python"


def client_for(base_url: str, endpoint: str) -> OpenLineageClient:
    return OpenLineageClient(transport=HttpTransport(HttpConfig(url=base_url, endpoint=endpoint)))


def event(state, run_id, job_name, inputs, outputs):
    return RunEvent(eventType=state, eventTime=time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
                    run=Run(runId=run_id), job=Job(namespace="etl", name=job_name),
                    producer=PRODUCER, inputs=inputs, outputs=outputs)


def graph(api, params, want):
    """The graph query, polled until `want(body)` holds (events are written behind the 201)."""
    deadline = time.time() + 10
    while True:
        r = api.get("lineage/graph", params=params)
        assert r.status_code == 200, r.text
        body = r.json()
        if want(body) or time.time() > deadline:
            return body
        time.sleep(0.05)


@pytest.fixture
def lake(tables, schema_name, catalog, metalake_name):
    for name in ("orders", "daily"):
        tables.create_table(NameIdentifier.of(schema_name, name),
                            [Column.of("id", Types.LongType.get()),
                             Column.of("amount", Types.DoubleType.get())])
    return f"{catalog.name()}.{schema_name}"


def test_events_from_the_client_become_a_graph(api, base_url, metalake_name, lake):
    job = unique("daily_job")
    run_id = str(uuid.uuid4())
    orders = InputDataset(namespace=metalake_name, name=f"{lake}.orders")
    rates = InputDataset(namespace="s3://fx-bucket", name="rates/2026")
    daily = OutputDataset(namespace=metalake_name, name=f"{lake}.daily", facets={
        "columnLineage": cl.ColumnLineageDatasetFacet(fields={
            "amount": cl.Fields(inputFields=[
                cl.InputField(namespace=metalake_name, name=f"{lake}.orders", field="amount"),
                cl.InputField(namespace="s3://fx-bucket", name="rates/2026", field="rate")])})})
    # START on Gravitino's endpoint, COMPLETE on the client's default one.
    client_for(base_url, "api/lineage").emit(event(RunState.START, run_id, job, [orders, rates], [daily]))
    client_for(base_url, "api/v1/lineage").emit(event(RunState.COMPLETE, run_id, job, [orders, rates],
                                                      [daily]))

    def complete(body):
        jobs = [n for n in body["nodes"] if n["type"] == "job"]
        return jobs and jobs[0].get("latestRun", {}).get("state") == "COMPLETE"

    body = graph(api, {"metalake": metalake_name, "fullName": f"{lake}.daily",
                       "direction": "upstream", "depth": 2}, complete)
    nodes = {n["id"]: n for n in body["nodes"]}
    datasets = {n.get("name"): n for n in body["nodes"] if n["type"] == "dataset"}
    jobs = [n for n in body["nodes"] if n["type"] == "job"]
    assert [j["name"] for j in jobs] == [job] and jobs[0]["namespace"] == "etl"
    assert jobs[0]["latestRun"]["runId"] == run_id and jobs[0]["latestRun"]["state"] == "COMPLETE"
    assert set(datasets) == {f"{lake}.daily", f"{lake}.orders", "rates/2026"}
    assert datasets[f"{lake}.daily"]["depth"] == 0
    assert datasets[f"{lake}.orders"]["source"] == "cairn"
    assert datasets[f"{lake}.orders"]["object"] == {"metalake": metalake_name, "type": "table",
                                                     "fullName": f"{lake}.orders"}
    assert datasets["rates/2026"]["source"] == "external"
    edges = {(nodes[e["from"]].get("name"), nodes[e["to"]].get("name")) for e in body["edges"]}
    assert edges == {(f"{lake}.orders", job), ("rates/2026", job), (job, f"{lake}.daily")}
    columns = datasets[f"{lake}.daily"]["columnLineage"]
    assert [c["field"] for c in columns] == ["amount"]
    assert sorted((i["name"], i["field"]) for i in columns[0]["inputFields"]) == [
        (f"{lake}.orders", "amount"), ("rates/2026", "rate")]
    assert body["total"] == len(body["nodes"]) and body["truncated"] is False

    # Downstream of the input table, and the external dataset by its own name.
    down = graph(api, {"metalake": metalake_name, "fullName": f"{lake}.orders",
                       "direction": "downstream", "depth": 1},
                 lambda b: any(n.get("name") == f"{lake}.daily" for n in b["nodes"]))
    assert {n.get("name") for n in down["nodes"]} == {f"{lake}.orders", job, f"{lake}.daily"}
    ext = api.get("lineage/graph", params={"namespace": "s3://fx-bucket", "name": "rates/2026",
                                           "direction": "downstream"})
    assert ext.status_code == 200 and any(n.get("name") == job for n in ext.json()["nodes"])
    # Both events of the run are kept, as sent.
    runs = api.get(f"lineage/runs/{run_id}")
    assert runs.status_code == 200, runs.text
    assert [e["eventType"] for e in runs.json()["events"]] == ["START", "COMPLETE"]


def test_paged_graph_lists_every_node_once(api, base_url, metalake_name, lake):
    client = client_for(base_url, "api/v1/lineage")
    job = unique("fan_out")
    outputs = [OutputDataset(namespace="s3://out", name=f"part-{i}") for i in range(7)]
    client.emit(event(RunState.COMPLETE, str(uuid.uuid4()), job,
                      [InputDataset(namespace=metalake_name, name=f"{lake}.orders")], outputs))
    params = {"metalake": metalake_name, "fullName": f"{lake}.orders", "direction": "downstream",
              "depth": 1}
    first = graph(api, params, lambda b: b["total"] == 9)
    assert first["total"] == 9  # the table, the job, 7 outputs
    seen, edges, token = [], 0, None
    while True:
        page = api.get("lineage/graph", params={**params, "pageSize": 2,
                                                **({"pageToken": token} if token else {})}).json()
        assert len(page["nodes"]) <= 2
        seen += [n["id"] for n in page["nodes"]]
        edges += len(page["edges"])
        token = page.get("nextPageToken")
        if not token:
            break
    assert len(seen) == len(set(seen)) == 9 and edges == 8


def test_bad_events_are_400_naming_the_field(api):
    good = {"eventType": "START", "eventTime": "2026-12-02T10:00:00Z", "producer": PRODUCER,
            "run": {"runId": str(uuid.uuid4())}, "job": {"namespace": "etl", "name": "j"},
            "inputs": [], "outputs": []}
    cases = [({**good, "run": {"runId": "not-a-uuid"}}, "run.runId"),
             ({**good, "job": {"namespace": "etl"}}, "job.name"),
             ({**good, "eventType": "EXPLODED"}, "eventType"),
             ({**good, "inputs": [{"namespace": "x"}]}, "inputs[0].name"),
             ({k: v for k, v in good.items() if k != "eventTime"}, "eventTime")]
    for body, field in cases:
        r = api.post("lineage", body)
        assert r.status_code == 400, (field, r.text)
        assert r.json()["code"] == 1001 and field in r.json()["message"], (field, r.text)
    deep = '{"a":' * 1000000 + "1" + "}" * 1000000
    assert api.request("POST", "lineage", data=deep).status_code == 400
    assert api.request("POST", "v1/lineage", data="[1, 2").status_code == 400
    r = api.get("lineage/graph", params={"namespace": "nowhere", "name": "nothing"})
    assert r.status_code == 404, r.text
    r = api.get("lineage/graph", params={"namespace": "s3://x", "name": "y", "depth": 99})
    assert r.status_code == 400 and "depth" in r.text
