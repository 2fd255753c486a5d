"""Filesets on MinIO through the official Gravitino client, and the keys Cairn vends for them:
scoped to the fileset's location, read-only for readers, none for outsiders."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from conftest import BUCKET, ROOT_KEYS, basic, keys_under, s3_client, unique


def _auth_provider(header: str):
    from gravitino.auth.auth_data_provider import AuthDataProvider

    class HeaderAuth(AuthDataProvider):
        def has_token_data(self) -> bool:
            return True

        def get_token_data(self) -> bytes:
            return header.encode()

        def close(self):
            pass

    return HeaderAuth()


def client_as(server, metalake: str, user: str):
    from gravitino import GravitinoClient

    return GravitinoClient(uri=server.url, metalake_name=metalake,
                           auth_data_provider=_auth_provider(basic(user)))


def assert_denied(call):
    with pytest.raises(ClientError) as err:
        call()
    assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403
    assert err.value.response["Error"]["Code"] == "AccessDenied"


@pytest.fixture
def lake(server, admin, s3_endpoint):
    from gravitino import Catalog, Fileset, NameIdentifier

    ml = unique("ml")
    admin.ok("POST", "metalakes", {"name": ml, "properties": {}})
    root = unique("fs")
    client = client_as(server, ml, "admin")
    cat = client.create_catalog(
        "files", Catalog.Type.FILESET, "fileset", "", {
            "location": f"s3a://{BUCKET}/{root}", "s3-endpoint": s3_endpoint,
            "s3-region": "us-east-1", "credential-providers": "s3-token", **ROOT_KEYS})
    cat.as_schemas().create_schema("raw", "", {})
    fc = cat.as_fileset_catalog()
    fc.create_fileset(NameIdentifier.of("raw", "events"), "", Fileset.Type.MANAGED, None, {})
    fc.create_fileset(NameIdentifier.of("raw", "other"), "", Fileset.Type.MANAGED, None, {})
    return {"metalake": ml, "root": root, "client": client, "catalog": cat}


def test_fileset_keys_reach_only_the_fileset(server, admin, lake, s3, s3_endpoint):
    from gravitino import NameIdentifier
    from gravitino.api.credential.s3_token_credential import S3TokenCredential

    root = lake["root"]
    s3.put_object(Bucket=BUCKET, Key=f"{root}/raw/events/a.json", Body=b"{}")
    s3.put_object(Bucket=BUCKET, Key=f"{root}/raw/other/b.json", Body=b"{}")
    fc = lake["catalog"].as_fileset_catalog()
    fileset = fc.load_fileset(NameIdentifier.of("raw", "events"))
    [cred] = fileset.support_credentials().get_credentials()
    assert isinstance(cred, S3TokenCredential)
    mine = s3_client(s3_endpoint, cred.access_key_id(), cred.secret_access_key(), cred.session_token())
    assert mine.get_object(Bucket=BUCKET, Key=f"{root}/raw/events/a.json")["Body"].read() == b"{}"
    mine.put_object(Bucket=BUCKET, Key=f"{root}/raw/events/new.json", Body=b"1")
    assert_denied(lambda: mine.get_object(Bucket=BUCKET, Key=f"{root}/raw/other/b.json"))
    assert_denied(lambda: mine.put_object(Bucket=BUCKET, Key=f"{root}/raw/x.json", Body=b"1"))

    # Listing (the 1.3 Python client has no call for it) and the client's location call see
    # what was written with those keys.
    r = admin.api("GET", f"metalakes/{lake['metalake']}/catalogs/files/schemas/raw/filesets/events/files",
                  params={"sub_path": "/"})
    assert r.status_code == 200, r.text
    files = {f["name"]: f for f in r.json()["files"]}
    assert set(files) == {"a.json", "new.json"}
    assert files["a.json"]["size"] == 2 and files["a.json"]["isDir"] is False
    loc = fc.get_file_location(NameIdentifier.of("raw", "events"), "/new.json")
    assert loc == f"s3a://{BUCKET}/{root}/raw/events/new.json"

    # Dropping the managed fileset deletes its objects, and only its objects.
    assert fc.drop_fileset(NameIdentifier.of("raw", "events"))
    assert keys_under(s3, f"{root}/raw/events/") == []
    assert keys_under(s3, f"{root}/raw/other/") == [f"{root}/raw/other/b.json"]


def test_fileset_readers_get_read_only_keys_and_outsiders_none(server, admin, lake, s3, s3_endpoint):
    from gravitino import NameIdentifier
    from gravitino.exceptions.base import ForbiddenException

    ml, root = lake["metalake"], lake["root"]
    s3.put_object(Bucket=BUCKET, Key=f"{root}/raw/events/a.json", Body=b"{}")
    reader, outsider = unique("reader"), unique("outsider")
    for user in (reader, outsider):
        admin.ok("POST", f"metalakes/{ml}/users", {"name": user})
    role = unique("role")
    admin.ok("POST", f"metalakes/{ml}/roles", {"name": role, "properties": {}, "securableObjects": [
        {"fullName": "files", "type": "CATALOG", "privileges": [{"name": "USE_CATALOG", "condition": "ALLOW"}]},
        {"fullName": "files.raw", "type": "SCHEMA", "privileges": [{"name": "USE_SCHEMA", "condition": "ALLOW"}]},
        {"fullName": "files.raw.events", "type": "FILESET",
         "privileges": [{"name": "READ_FILESET", "condition": "ALLOW"}]}]})
    admin.ok("PUT", f"metalakes/{ml}/permissions/users/{reader}/grant", {"roleNames": [role]})

    fc = client_as(server, ml, reader).load_catalog("files").as_fileset_catalog()
    [cred] = fc.load_fileset(NameIdentifier.of("raw", "events")).support_credentials().get_credentials()
    ro = s3_client(s3_endpoint, cred.access_key_id(), cred.secret_access_key(), cred.session_token())
    assert ro.get_object(Bucket=BUCKET, Key=f"{root}/raw/events/a.json")["Body"].read() == b"{}"
    assert_denied(lambda: ro.put_object(Bucket=BUCKET, Key=f"{root}/raw/events/w.json", Body=b"1"))

    r = admin.api("GET", f"metalakes/{ml}/objects/fileset/files.raw.events/credentials")
    assert r.status_code == 200 and r.json()["credentials"][0]["credentialType"] == "s3-token"
    who = client_as(server, ml, outsider)
    with pytest.raises(ForbiddenException):
        who.load_catalog("files").as_fileset_catalog().load_fileset(NameIdentifier.of("raw", "events"))
    from conftest import Client
    denied = Client(server.url, outsider).api(
        "GET", f"metalakes/{ml}/objects/fileset/files.raw.events/credentials")
    assert denied.status_code == 403
