"""Concurrent alters of one table: no lost updates."""

import threading

from helpers import (
    column,
    latest_metadata,
    metadata_files,
    ok_json,
    seq_of,
    table_body,
    table_path,
)

THREADS = 8
ROUNDS = 5


def test_concurrent_set_property_no_lost_update(base_url, api, metalake_name, catalog,
                                                catalog_name, schema_name, warehouse):
    from helpers import Api

    path = table_path(metalake_name, catalog_name, schema_name, "hot")
    ok_json(api.post(table_path(metalake_name, catalog_name, schema_name),
                     table_body("hot", [column("a", "integer")])))

    results: dict[str, tuple[int, dict]] = {}
    lock = threading.Lock()
    barrier = threading.Barrier(THREADS)

    def worker(i: int) -> None:
        local = Api(base_url)  # one HTTP session per thread
        barrier.wait()
        for j in range(ROUNDS):
            key = f"t{i}_r{j}"
            r = local.put(path, {"updates": [
                {"@type": "setProperty", "property": key, "value": f"v{i}.{j}"}]})
            try:
                body = r.json()
            except ValueError:
                body = {"raw": r.text[:200]}
            with lock:
                results[key] = (r.status_code, body)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "alter requests hung"
    assert len(results) == THREADS * ROUNDS

    succeeded = []
    for key, (status, body) in results.items():
        if status == 200:
            assert body["code"] == 0
            assert body["table"]["properties"][key].startswith("v"), body
            succeeded.append(key)
        else:
            # A clean conflict is acceptable; anything else is not.
            assert status == 409, (key, status, body)
            assert body.get("code") in (1004, 1010, 1009) or body.get("type"), body
    assert succeeded, "no concurrent alter succeeded at all"

    final = ok_json(api.get(path))["table"]["properties"]
    lost = [k for k in succeeded if final.get(k) != f"v{k[1:].replace('_r', '.')}"]
    assert not lost, f"lost updates: {lost}"

    # On disk: the current metadata file carries every successful property, and every
    # successful alter wrote its own metadata file with a distinct sequence number.
    md = latest_metadata(warehouse, schema_name, "hot")
    assert all(md["properties"].get(k) == final[k] for k in succeeded)
    files = metadata_files(warehouse, schema_name, "hot")
    assert len(files) >= 1 + len(succeeded)
    assert len(md["metadata-log"]) == len(succeeded)
    # The history chain (metadata-log + current file) has strictly increasing sequence numbers
    # and every file in it exists.
    by_name = {f.name: f for f in files}
    chain = [e["metadata-file"].rsplit("/", 1)[-1] for e in md["metadata-log"]]
    chain.append(files[-1].name)
    assert all(n in by_name for n in chain), chain
    seqs = [seq_of(by_name[n]) for n in chain]
    assert seqs == sorted(set(seqs)), seqs


def test_concurrent_creates_same_name(base_url, api, metalake_name, catalog, catalog_name,
                                      schema_name):
    """Eight clients create the same table at once: exactly one wins, the rest get 409."""
    from helpers import Api

    barrier = threading.Barrier(THREADS)
    statuses = []
    lock = threading.Lock()

    def worker() -> None:
        local = Api(base_url)
        barrier.wait()
        r = local.post(table_path(metalake_name, catalog_name, schema_name),
                       table_body("race", [column("a", "integer")]))
        with lock:
            statuses.append((r.status_code, r.json().get("code")))

    threads = [threading.Thread(target=worker) for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert sorted(statuses) == [(200, 0)] + [(409, 1004)] * (THREADS - 1), statuses
    ids = ok_json(api.get(table_path(metalake_name, catalog_name, schema_name)))["identifiers"]
    assert [i["name"] for i in ids] == ["race"]
