"""Cairn's Gravitino-compatible REST API (`/api`), as much of it as the source reads."""

from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional
from urllib.parse import quote

import requests


class CairnError(Exception):
    """A call Cairn answered with an error (or not at all)."""

    def __init__(self, status: int, message: str):
        super().__init__(f"{status}: {message}")
        self.status = status


def _segment(name: str) -> str:
    return quote(name, safe="")


class CairnClient:
    def __init__(self, server: str, *, username: Optional[str] = None,
                 password: Optional[str] = None, token: Optional[str] = None,
                 timeout_s: float = 30.0, verify: Any = True):
        self.base = server.rstrip("/") + "/api"
        self.session = requests.Session()
        self.session.headers["Accept"] = "application/vnd.gravitino.v1+json"
        if token:
            self.session.headers["Authorization"] = f"Bearer {token}"
        elif username:
            self.session.auth = (username, password or "")
        self.session.verify = verify
        self.timeout_s = timeout_s

    def get(self, path: str, params: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        try:
            r = self.session.get(f"{self.base}/{path}", params=params, timeout=self.timeout_s)
        except requests.RequestException as e:
            raise CairnError(0, f"GET {path}: {e}") from e
        try:
            body = r.json()
        except ValueError:
            body = {}
        if r.status_code != 200 or not isinstance(body, dict) or body.get("code", 0) != 0:
            message = body.get("message") if isinstance(body, dict) else None
            raise CairnError(r.status_code, f"GET {path}: {message or r.text[:200]}")
        return body

    # ---- the object tree ----

    def metalakes(self) -> List[Dict[str, Any]]:
        return self.get("metalakes").get("metalakes") or []

    def catalogs(self, metalake: str) -> List[Dict[str, Any]]:
        return self.get(f"metalakes/{_segment(metalake)}/catalogs",
                        {"details": "true"}).get("catalogs") or []

    def _catalog_path(self, metalake: str, catalog: str) -> str:
        return f"metalakes/{_segment(metalake)}/catalogs/{_segment(catalog)}"

    def schemas(self, metalake: str, catalog: str) -> List[str]:
        body = self.get(f"{self._catalog_path(metalake, catalog)}/schemas")
        return [i["name"] for i in body.get("identifiers") or []]

    def schema(self, metalake: str, catalog: str, schema: str) -> Dict[str, Any]:
        return self.get(f"{self._catalog_path(metalake, catalog)}/schemas/"
                        f"{_segment(schema)}").get("schema") or {}

    def names(self, metalake: str, catalog: str, schema: str, kind: str) -> List[str]:
        """The names of one kind of object in a schema: tables, views, filesets, topics, models."""
        body = self.get(f"{self._catalog_path(metalake, catalog)}/schemas/{_segment(schema)}/"
                        f"{kind}")
        return [i["name"] for i in body.get("identifiers") or []]

    def load(self, metalake: str, catalog: str, schema: str, kind: str, name: str,
             member: str) -> Dict[str, Any]:
        body = self.get(f"{self._catalog_path(metalake, catalog)}/schemas/{_segment(schema)}/"
                        f"{kind}/{_segment(name)}")
        return body.get(member) or {}

    def model_versions(self, metalake: str, catalog: str, schema: str,
                       model: str) -> Iterator[Dict[str, Any]]:
        base = (f"{self._catalog_path(metalake, catalog)}/schemas/{_segment(schema)}/models/"
                f"{_segment(model)}/versions")
        for version in self.get(base).get("versions") or []:
            yield self.get(f"{base}/{version}").get("modelVersion") or {}

    # ---- governance ----

    def owner(self, metalake: str, object_type: str, full_name: str) -> Optional[Dict[str, Any]]:
        body = self.get(f"metalakes/{_segment(metalake)}/owners/{object_type}/"
                        f"{_segment(full_name)}")
        return body.get("owner")

    def tags(self, metalake: str, object_type: str, full_name: str) -> List[Dict[str, Any]]:
        body = self.get(f"metalakes/{_segment(metalake)}/objects/{object_type}/"
                        f"{_segment(full_name)}/tags", {"details": "true"})
        return body.get("tags") or []

    def upstream_graph(self, metalake: str, full_name: str) -> Iterator[Dict[str, Any]]:
        """The pages of the lineage graph one job upstream of a table."""
        params: Dict[str, Any] = {"metalake": metalake, "fullName": full_name,
                                  "direction": "upstream", "depth": 1, "pageSize": 1000}
        while True:
            page = self.get("lineage/graph", params)
            yield page
            token = page.get("nextPageToken")
            if not token:
                return
            params["pageToken"] = token
