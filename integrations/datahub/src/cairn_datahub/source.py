"""The `cairn` source of `datahub ingest`: Cairn's objects, as the ingesting principal may see
them through Cairn's REST API, as DataHub entities.

| Cairn | DataHub |
|---|---|
| catalog, schema | container (subtypes `Catalog`, `Schema`), nested |
| table, view, fileset, topic | dataset (subtypes `Table`, `View`, `Fileset`, `Topic`) in its schema |
| model, model version | mlModelGroup, mlModel (a member of its group) |
| comment, properties, audit times | datasetProperties / containerProperties / ml*Properties |
| columns | schemaMetadata (struct members as `parent.child`; partition columns marked) |
| owner (user or group) | ownership |
| tags attached to the object | globalTags, and tagProperties for each tag |
| lineage (OpenLineage events kept by Cairn) | upstreamLineage with column-level lineage |

A dataset's platform is its catalog's provider (`platform_map`); its name is
`catalog.schema.object`, and by default the metalake is its platform instance, so two metalakes
never name one dataset.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

from pydantic import Field, SecretStr

from datahub.configuration.common import AllowDenyPattern, ConfigModel
from datahub.emitter.mce_builder import (
    make_data_platform_urn,
    make_dataplatform_instance_urn,
    make_dataset_urn_with_platform_instance,
    make_group_urn,
    make_ml_model_group_urn,
    make_ml_model_urn,
    make_schema_field_urn,
    make_tag_urn,
    make_user_urn,
)
from datahub.emitter.mcp import MetadataChangeProposalWrapper
from datahub.emitter.mcp_builder import (
    ContainerKey,
    add_dataset_to_container,
    add_entity_to_container,
    gen_containers,
)
from datahub.ingestion.api.common import PipelineContext
from datahub.ingestion.api.decorators import (
    SupportStatus,
    config_class,
    platform_name,
    support_status,
)
from datahub.ingestion.api.source import Source, SourceReport
from datahub.ingestion.api.workunit import MetadataWorkUnit
from datahub.metadata.schema_classes import (
    DataPlatformInstanceClass,
    DatasetLineageTypeClass,
    DatasetPropertiesClass,
    FineGrainedLineageClass,
    FineGrainedLineageDownstreamTypeClass,
    FineGrainedLineageUpstreamTypeClass,
    GlobalTagsClass,
    MLModelGroupPropertiesClass,
    MLModelPropertiesClass,
    OtherSchemaClass,
    OwnerClass,
    OwnershipClass,
    OwnershipTypeClass,
    SchemaMetadataClass,
    SubTypesClass,
    TagAssociationClass,
    TagPropertiesClass,
    TimeStampClass,
    UpstreamClass,
    UpstreamLineageClass,
    VersionTagClass,
    ViewPropertiesClass,
)

from cairn_datahub.client import CairnClient, CairnError
from cairn_datahub.column_types import schema_fields

logger = logging.getLogger(__name__)

DEFAULT_PLATFORMS = {
    "lakehouse-iceberg": "iceberg",
    "lakehouse-generic": "lance",
    "lakehouse-paimon": "paimon",
    "lakehouse-hudi": "hudi",
    "jdbc-postgresql": "postgres",
    "jdbc-mysql": "mysql",
    "hive": "hive",
    "kafka": "kafka",
}

# OpenLineage namespace schemes to DataHub platforms, for datasets Cairn does not have.
_SCHEMES = {"s3": "s3", "s3a": "s3", "s3n": "s3", "gs": "gcs", "abfss": "adls", "wasbs": "adls",
            "file": "file", "hdfs": "hdfs", "postgres": "postgres", "postgresql": "postgres",
            "mysql": "mysql", "trino": "trino", "kafka": "kafka", "hive": "hive",
            "bigquery": "bigquery", "snowflake": "snowflake", "redshift": "redshift"}
_OBJECT_STORES = {"s3", "gcs", "adls", "hdfs"}


class CairnSourceConfig(ConfigModel):
    server: str = Field(description="Cairn's base URL, e.g. http://cairn:8090.")
    username: Optional[str] = Field(default=None, description="Basic authentication: the user.")
    password: Optional[SecretStr] = Field(default=None, description="Basic authentication.")
    token: Optional[SecretStr] = Field(
        default=None, description="An OAuth2 bearer token (instead of username/password).")
    timeout_s: float = Field(default=30.0, description="Per request, connect and answer.")
    verify_ssl: Any = Field(default=True,
                            description="Verify Cairn's certificate (or a CA bundle's path).")
    metalake_pattern: AllowDenyPattern = Field(default=AllowDenyPattern.allow_all())
    catalog_pattern: AllowDenyPattern = Field(default=AllowDenyPattern.allow_all())
    schema_pattern: AllowDenyPattern = Field(
        default=AllowDenyPattern.allow_all(), description="Matched against `catalog.schema`.")
    object_pattern: AllowDenyPattern = Field(
        default=AllowDenyPattern.allow_all(),
        description="Matched against `catalog.schema.object` (tables, views, filesets, topics, "
                    "models).")
    env: str = Field(default="PROD", description="The DataHub environment of every entity.")
    platform_instance: Optional[str] = Field(
        default=None, description="One platform instance for every entity (else see below).")
    metalake_as_platform_instance: bool = Field(
        default=True, description="Without platform_instance, each metalake is the platform "
                                  "instance of what it holds.")
    platform_map: Dict[str, str] = Field(
        default_factory=dict,
        description="Catalog provider to DataHub platform, over the defaults (lakehouse-iceberg: "
                    "iceberg, jdbc-postgresql: postgres, kafka: kafka, ...); providers in neither "
                    "are platform `cairn`.")
    include_owners: bool = True
    include_tags: bool = True
    include_column_tags: bool = Field(
        default=True, description="Tags of each table column, one request per column.")
    include_lineage: bool = True
    include_column_lineage: bool = True
    ownership_type: str = Field(default=OwnershipTypeClass.TECHNICAL_OWNER,
                                description="The DataHub ownership type of Cairn's owners.")


@dataclass
class CairnSourceReport(SourceReport):
    metalakes: int = 0
    catalogs: int = 0
    schemas: int = 0
    objects: Dict[str, int] = field(default_factory=dict)
    filtered: int = 0
    upstream_edges: int = 0
    hidden_upstreams: int = 0

    def count(self, kind: str) -> None:
        self.objects[kind] = self.objects.get(kind, 0) + 1


class CairnCatalogKey(ContainerKey):
    metalake: str
    catalog: str


class CairnSchemaKey(CairnCatalogKey):
    schema_name: str


def _millis(audit: Optional[dict], key: str) -> Optional[int]:
    text = (audit or {}).get(key)
    if not text:
        return None
    try:
        return int(datetime.fromisoformat(str(text).replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return None


def _strings(properties: Optional[dict]) -> Dict[str, str]:
    return {str(k): "" if v is None else str(v) for k, v in (properties or {}).items()}


@dataclass
class _Catalog:
    metalake: str
    name: str
    type: str
    provider: str
    platform: str
    instance: Optional[str]
    details: Dict[str, Any] = field(default_factory=dict)


@platform_name("Cairn", id="cairn")
@config_class(CairnSourceConfig)
@support_status(SupportStatus.ALPHA)
class CairnSource(Source):
    """Catalogs, schemas, tables, views, filesets, topics and models of a Cairn server, with
    their schemas, owners, tags and lineage."""

    def __init__(self, config: CairnSourceConfig, ctx: PipelineContext):
        super().__init__(ctx)
        self.config = config
        self.report = CairnSourceReport()
        self.client = CairnClient(
            config.server, username=config.username,
            password=config.password.get_secret_value() if config.password else None,
            token=config.token.get_secret_value() if config.token else None,
            timeout_s=config.timeout_s, verify=config.verify_ssl)
        self._catalogs: Dict[Tuple[str, str], _Catalog] = {}
        self._loaded_metalakes: Set[str] = set()
        self._tags_seen: Set[str] = set()
        self._no_owners: Set[str] = set()

    @classmethod
    def create(cls, config_dict: dict, ctx: PipelineContext) -> "CairnSource":
        return cls(CairnSourceConfig.model_validate(config_dict), ctx)

    def get_report(self) -> CairnSourceReport:
        return self.report

    # ---- naming ----

    def _instance(self, metalake: str) -> Optional[str]:
        if self.config.platform_instance:
            return self.config.platform_instance
        return metalake if self.config.metalake_as_platform_instance else None

    def _platform(self, provider: str) -> str:
        return (self.config.platform_map.get(provider) or DEFAULT_PLATFORMS.get(provider)
                or "cairn")

    def _catalogs_of(self, metalake: str) -> List[_Catalog]:
        if metalake not in self._loaded_metalakes:
            self._loaded_metalakes.add(metalake)
            for c in self.client.catalogs(metalake):
                provider = str(c.get("provider") or "")
                self._catalogs[(metalake, c["name"])] = _Catalog(
                    metalake, c["name"], str(c.get("type") or "").lower(), provider,
                    self._platform(provider), self._instance(metalake), c)
        return [c for (m, _), c in self._catalogs.items() if m == metalake]

    def _dataset_urn(self, catalog: _Catalog, schema: str, name: str) -> str:
        return make_dataset_urn_with_platform_instance(
            catalog.platform, f"{catalog.name}.{schema}.{name}", catalog.instance,
            self.config.env)

    def _cairn_table_urn(self, metalake: str, full_name: str) -> Optional[str]:
        parts = full_name.split(".")
        if len(parts) < 3:
            return None
        try:
            self._catalogs_of(metalake)
        except CairnError:
            pass
        catalog = self._catalogs.get((metalake, parts[0])) or _Catalog(
            metalake, parts[0], "relational", "", "cairn", self._instance(metalake))
        return self._dataset_urn(catalog, ".".join(parts[1:-1]), parts[-1])

    def _external_urn(self, namespace: str, name: str) -> str:
        scheme, sep, rest = namespace.partition("://")
        if not sep:
            return make_dataset_urn_with_platform_instance(
                "openlineage", f"{namespace}.{name}", None, self.config.env)
        platform = _SCHEMES.get(scheme.lower(), scheme.lower())
        if platform in _OBJECT_STORES:
            name = f"{rest.strip('/')}/{name.lstrip('/')}"
        return make_dataset_urn_with_platform_instance(platform, name, None, self.config.env)

    # ---- the walk ----

    def get_workunits_internal(self) -> Iterable[MetadataWorkUnit]:
        try:
            metalakes = [m["name"] for m in self.client.metalakes()]
        except CairnError as e:
            self.report.failure(message="Cannot list Cairn's metalakes", context=str(e), exc=e)
            return
        for metalake in metalakes:
            if not self.config.metalake_pattern.allowed(metalake):
                self.report.filtered += 1
                continue
            self.report.metalakes += 1
            try:
                catalogs = self._catalogs_of(metalake)
            except CairnError as e:
                self.report.warning(message="Cannot list a metalake's catalogs",
                                    context=f"{metalake}: {e}", exc=e)
                continue
            for catalog in catalogs:
                if not self.config.catalog_pattern.allowed(catalog.name):
                    self.report.filtered += 1
                    continue
                yield from self._catalog(catalog)

    def _catalog(self, catalog: _Catalog) -> Iterable[MetadataWorkUnit]:
        self.report.catalogs += 1
        key = CairnCatalogKey(platform=catalog.platform, instance=catalog.instance,
                              env=self.config.env, metalake=catalog.metalake,
                              catalog=catalog.name)
        yield from self._container(key, catalog, "catalog", catalog.name, "Catalog", None,
                                   catalog.details, {"provider": catalog.provider,
                                             "type": catalog.type})
        try:
            schemas = self.client.schemas(catalog.metalake, catalog.name)
        except CairnError as e:
            self.report.warning(message="Cannot list a catalog's schemas",
                                context=f"{catalog.metalake}.{catalog.name}: {e}", exc=e)
            return
        for schema in schemas:
            if not self.config.schema_pattern.allowed(f"{catalog.name}.{schema}"):
                self.report.filtered += 1
                continue
            yield from self._schema(catalog, key, schema)

    def _container(self, key: ContainerKey, catalog: _Catalog, object_type: str,
                   full_name: str, sub_type: str, parent: Optional[ContainerKey],
                   details: Dict[str, Any], extra: Dict[str, str]) -> Iterable[MetadataWorkUnit]:
        owner_urn = self._owner_urn(catalog.metalake, object_type, full_name)
        direct = self._direct_tags(catalog.metalake, object_type, full_name)
        tags = sorted({t["name"] for t in direct})
        yield from self._tag_entities(direct)
        yield from gen_containers(
            container_key=key, name=full_name.split(".")[-1], sub_types=[sub_type],
            parent_container_key=parent, description=details.get("comment"),
            extra_properties={**extra, **_strings(details.get("properties"))},
            owner_urn=owner_urn, ownership_type=self.config.ownership_type,
            tags=tags or None, qualified_name=f"{catalog.metalake}.{full_name}",
            created=_millis(details.get("audit"), "createTime"),
            last_modified=_millis(details.get("audit"), "lastModifiedTime"))

    def _schema(self, catalog: _Catalog, catalog_key: CairnCatalogKey,
                schema: str) -> Iterable[MetadataWorkUnit]:
        self.report.schemas += 1
        key = CairnSchemaKey(platform=catalog.platform, instance=catalog.instance,
                             env=self.config.env, metalake=catalog.metalake,
                             catalog=catalog.name, schema_name=schema)
        try:
            details = self.client.schema(catalog.metalake, catalog.name, schema)
        except CairnError as e:
            self.report.warning(message="Cannot load a schema",
                                context=f"{catalog.name}.{schema}: {e}", exc=e)
            details = {}
        yield from self._container(key, catalog, "schema", f"{catalog.name}.{schema}", "Schema",
                                   catalog_key, details, {})
        kinds = {"relational": [("tables", "table"), ("views", "view")],
                 "fileset": [("filesets", "fileset")],
                 "messaging": [("topics", "topic")],
                 "model": [("models", "model")]}.get(catalog.type, [])
        for plural, kind in kinds:
            try:
                names = self.client.names(catalog.metalake, catalog.name, schema, plural)
            except CairnError as e:
                # Views exist on the catalogs that keep them; the others refuse the list.
                if kind != "view":
                    self.report.warning(message=f"Cannot list a schema's {plural}",
                                        context=f"{catalog.name}.{schema}: {e}", exc=e)
                continue
            for name in sorted(names):
                full = f"{catalog.name}.{schema}.{name}"
                if not self.config.object_pattern.allowed(full):
                    self.report.filtered += 1
                    continue
                try:
                    obj = self.client.load(catalog.metalake, catalog.name, schema, plural, name,
                                           kind if kind != "model" else "model")
                    if kind == "model":
                        yield from self._model(catalog, key, schema, name, obj)
                    else:
                        yield from self._dataset(catalog, key, schema, kind, name, obj)
                    self.report.count(kind)
                except CairnError as e:
                    self.report.warning(message=f"Cannot load a {kind}", context=f"{full}: {e}",
                                        exc=e)

    # ---- governance ----

    def _owner_urn(self, metalake: str, object_type: str, full_name: str) -> Optional[str]:
        if not self.config.include_owners or metalake in self._no_owners:
            return None
        try:
            owner = self.client.owner(metalake, object_type, full_name)
        except CairnError as e:
            if e.status == 405:
                # A server without authorization keeps no owners: nothing to read there.
                self._no_owners.add(metalake)
                self.report.info(message="Cairn keeps no owners (authorization is off)",
                                 context=metalake)
                return None
            self.report.warning(message="Cannot read an owner", context=f"{full_name}: {e}",
                                exc=e)
            return None
        if not owner or not owner.get("name"):
            return None
        if str(owner.get("type", "USER")).upper() == "GROUP":
            return make_group_urn(owner["name"])
        return make_user_urn(owner["name"])

    def _direct_tags(self, metalake: str, object_type: str,
                     full_name: str) -> List[Dict[str, Any]]:
        if not self.config.include_tags:
            return []
        try:
            tags = self.client.tags(metalake, object_type, full_name)
        except CairnError as e:
            self.report.warning(message="Cannot read tags", context=f"{full_name}: {e}", exc=e)
            return []
        # Inherited tags are on the catalog or schema container that holds them.
        return [t for t in tags if not t.get("inherited")]

    def _tag_entities(self, tags: List[Dict[str, Any]]) -> Iterable[MetadataWorkUnit]:
        for t in tags:
            urn = make_tag_urn(t["name"])
            if urn in self._tags_seen:
                continue
            self._tags_seen.add(urn)
            yield MetadataChangeProposalWrapper(entityUrn=urn, aspect=TagPropertiesClass(
                name=t["name"], description=t.get("comment"))).as_workunit()

    def _governance(self, urn: str, metalake: str, object_type: str,
                    full_name: str) -> Iterable[MetadataWorkUnit]:
        owner_urn = self._owner_urn(metalake, object_type, full_name)
        if owner_urn:
            yield MetadataChangeProposalWrapper(entityUrn=urn, aspect=OwnershipClass(
                owners=[OwnerClass(owner=owner_urn, type=self.config.ownership_type)]
            )).as_workunit()
        tags = self._direct_tags(metalake, object_type, full_name)
        if tags:
            yield from self._tag_entities(tags)
            yield MetadataChangeProposalWrapper(entityUrn=urn, aspect=GlobalTagsClass(
                tags=[TagAssociationClass(tag=make_tag_urn(n))
                      for n in sorted({t["name"] for t in tags})])).as_workunit()

    # ---- datasets ----

    def _dataset(self, catalog: _Catalog, schema_key: CairnSchemaKey, schema: str, kind: str,
                 name: str, obj: Dict[str, Any]) -> Iterable[MetadataWorkUnit]:
        urn = self._dataset_urn(catalog, schema, name)
        full = f"{catalog.name}.{schema}.{name}"
        audit = obj.get("audit")
        custom = _strings(obj.get("properties"))
        if kind == "fileset":
            custom["fileset-type"] = str(obj.get("type", ""))
            locations = obj.get("storageLocations") or {}
            if not locations and obj.get("storageLocation"):
                locations = {"default": obj["storageLocation"]}
            for location_name, location in sorted(locations.items()):
                custom[f"storage-location.{location_name}"] = str(location)
        if kind == "table" and obj.get("partitioning"):
            custom["partitioning"] = ", ".join(_partition_text(p) for p in obj["partitioning"])
        uri = None
        if kind == "fileset":
            uri = custom.get("storage-location.default") or next(
                (v for k, v in custom.items() if k.startswith("storage-location.")), None)
        yield MetadataChangeProposalWrapper(entityUrn=urn, aspect=DatasetPropertiesClass(
            name=name, qualifiedName=f"{catalog.metalake}.{full}",
            description=obj.get("comment"), customProperties=custom, uri=uri,
            created=_stamp(_millis(audit, "createTime")),
            lastModified=_stamp(_millis(audit, "lastModifiedTime")))).as_workunit()
        yield MetadataChangeProposalWrapper(entityUrn=urn, aspect=SubTypesClass(
            typeNames=[{"table": "Table", "view": "View", "fileset": "Fileset",
                        "topic": "Topic"}[kind]])).as_workunit()
        if catalog.instance:
            yield MetadataChangeProposalWrapper(entityUrn=urn, aspect=DataPlatformInstanceClass(
                platform=make_data_platform_urn(catalog.platform),
                instance=make_dataplatform_instance_urn(catalog.platform, catalog.instance)
            )).as_workunit()
        columns = obj.get("columns") or []
        if columns:
            partition_columns = {".".join(p.get("fieldName") or [])
                                 for p in obj.get("partitioning") or []
                                 if isinstance(p, dict)}
            fields = schema_fields(columns, partition_columns)
            if self.config.include_column_tags and kind == "table":
                for f in fields:
                    if "." in f.fieldPath:
                        continue  # Cairn tags top-level columns
                    column = f"{full}.{f.fieldPath}"
                    direct = self._direct_tags(catalog.metalake, "column", column)
                    names = sorted({t["name"] for t in direct})
                    if names:
                        yield from self._tag_entities(direct)
                        f.globalTags = GlobalTagsClass(
                            tags=[TagAssociationClass(tag=make_tag_urn(n)) for n in names])
            yield MetadataChangeProposalWrapper(entityUrn=urn, aspect=SchemaMetadataClass(
                schemaName=full, platform=make_data_platform_urn(catalog.platform), version=0,
                hash="", platformSchema=OtherSchemaClass(rawSchema=""),
                fields=fields)).as_workunit()
        if kind == "view":
            reps = obj.get("representations") or []
            if reps:
                yield MetadataChangeProposalWrapper(entityUrn=urn, aspect=ViewPropertiesClass(
                    materialized=False, viewLogic=str(reps[0].get("sql", "")),
                    viewLanguage=str(reps[0].get("dialect", "SQL")))).as_workunit()
        yield from add_dataset_to_container(schema_key, urn)
        yield from self._governance(urn, catalog.metalake, kind, full)
        if kind == "table" and self.config.include_lineage:
            yield from self._lineage(catalog, urn, full)

    def _lineage(self, catalog: _Catalog, urn: str, full: str) -> Iterable[MetadataWorkUnit]:
        nodes: Dict[str, Dict[str, Any]] = {}
        edges: List[Dict[str, Any]] = []
        try:
            for page in self.client.upstream_graph(catalog.metalake, full):
                nodes.update({n["id"]: n for n in page.get("nodes") or []})
                edges.extend(page.get("edges") or [])
        except CairnError as e:
            self.report.warning(message="Cannot read lineage", context=f"{full}: {e}", exc=e)
            return
        start = next((n for n in nodes.values() if n.get("depth") == 0), None)
        if start is None:
            return
        jobs = {e["from"] for e in edges if e.get("to") == start["id"]}
        inputs = sorted({e["from"] for e in edges if e.get("to") in jobs
                         and nodes.get(e["from"], {}).get("type") == "dataset"})

        def node_urn(node: Dict[str, Any]) -> Optional[str]:
            if node.get("source") == "cairn" and node.get("object"):
                o = node["object"]
                return self._cairn_table_urn(o.get("metalake", catalog.metalake),
                                             o.get("fullName", ""))
            if node.get("source") == "external" and node.get("namespace"):
                return self._external_urn(node["namespace"], node.get("name", ""))
            return None

        upstreams: Dict[str, UpstreamClass] = {}
        for node_id in inputs:
            up = node_urn(nodes[node_id])
            if up is None:
                self.report.hidden_upstreams += 1
                continue
            if up != urn:
                upstreams[up] = UpstreamClass(dataset=up, type=DatasetLineageTypeClass.TRANSFORMED)
        fine: List[FineGrainedLineageClass] = []
        if self.config.include_column_lineage:
            for column in start.get("columnLineage") or []:
                fields = []
                for i in column.get("inputFields") or []:
                    node = nodes.get(i.get("dataset", "")) or {
                        "source": "external" if i.get("namespace") else "hidden", **i}
                    up = node_urn(node) if not i.get("hidden") else None
                    if up and i.get("field"):
                        fields.append(make_schema_field_urn(up, i["field"]))
                        upstreams.setdefault(up, UpstreamClass(
                            dataset=up, type=DatasetLineageTypeClass.TRANSFORMED))
                if fields:
                    transformation = next((i.get("transformation") for i in
                                           column.get("inputFields") or []
                                           if i.get("transformation")), None)
                    fine.append(FineGrainedLineageClass(
                        upstreamType=FineGrainedLineageUpstreamTypeClass.FIELD_SET,
                        upstreams=sorted(set(fields)),
                        downstreamType=FineGrainedLineageDownstreamTypeClass.FIELD,
                        downstreams=[make_schema_field_urn(urn, column["field"])],
                        transformOperation=transformation))
        if not upstreams:
            return
        self.report.upstream_edges += len(upstreams)
        yield MetadataChangeProposalWrapper(entityUrn=urn, aspect=UpstreamLineageClass(
            upstreams=[upstreams[u] for u in sorted(upstreams)],
            fineGrainedLineages=fine or None)).as_workunit()

    # ---- models ----

    def _model(self, catalog: _Catalog, schema_key: CairnSchemaKey, schema: str, name: str,
               obj: Dict[str, Any]) -> Iterable[MetadataWorkUnit]:
        full = f"{catalog.name}.{schema}.{name}"
        qualified = f"{catalog.instance}.{full}" if catalog.instance else full
        group = make_ml_model_group_urn(catalog.platform, qualified, self.config.env)
        audit = obj.get("audit")
        yield MetadataChangeProposalWrapper(entityUrn=group, aspect=MLModelGroupPropertiesClass(
            name=name, description=obj.get("comment"),
            customProperties={**_strings(obj.get("properties")),
                              "latest-version": str(obj.get("latestVersion", ""))},
            created=_stamp(_millis(audit, "createTime")),
            lastModified=_stamp(_millis(audit, "lastModifiedTime")))).as_workunit()
        yield from _in_container(schema_key, "mlModelGroup", group)
        yield from self._governance(group, catalog.metalake, "model", full)
        try:
            versions = list(self.client.model_versions(catalog.metalake, catalog.name, schema,
                                                       name))
        except CairnError as e:
            self.report.warning(message="Cannot list a model's versions", context=f"{full}: {e}",
                                exc=e)
            return
        for v in versions:
            number = v.get("version")
            model = make_ml_model_urn(catalog.platform, f"{qualified}.v{number}", self.config.env)
            custom = _strings(v.get("properties"))
            uris = v.get("uris") or ({"unknown": v["uri"]} if v.get("uri") else {})
            for uri_name, uri in sorted(uris.items()):
                custom[f"uri.{uri_name}"] = str(uri)
            if v.get("aliases"):
                custom["aliases"] = ",".join(v["aliases"])
            yield MetadataChangeProposalWrapper(entityUrn=model, aspect=MLModelPropertiesClass(
                name=f"{name} v{number}", description=v.get("comment"),
                version=VersionTagClass(versionTag=str(number)), groups=[group],
                customProperties=custom, externalUrl=next(iter(uris.values()), None),
                created=_stamp(_millis(v.get("audit"), "createTime")))).as_workunit()
            yield from _in_container(schema_key, "mlModel", model)
            self.report.count("model-version")


def _stamp(millis: Optional[int]) -> Optional[TimeStampClass]:
    return TimeStampClass(time=millis) if millis is not None else None


def _in_container(key: ContainerKey, entity_type: str, urn: str) -> Iterable[MetadataWorkUnit]:
    yield from add_entity_to_container(key, entity_type, urn)


def _partition_text(p: Any) -> str:
    if not isinstance(p, dict):
        return str(p)
    columns = ".".join(p.get("fieldName") or [])
    strategy = p.get("strategy", "identity")
    if strategy in ("bucket", "truncate"):
        arg = p.get("numBuckets", p.get("width"))
        return f"{strategy}({arg}, {columns})"
    return columns if strategy == "identity" else f"{strategy}({columns})"
