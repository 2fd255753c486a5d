// One object's page: a table (columns, partitioning, sort order, distribution, indexes,
// properties, statistics, an Iceberg table's snapshots), a view, a fileset and its files, a
// topic, a model with versions and aliases, a function. Owner, tags and policies on every one.
import { useState } from "react";
import { cat, get, sch } from "./api";
import { ErrorBox, Grid, KeyValues, Link, Loading, Section, useLoad } from "./components";
import { ObjectGovernance } from "./governance";
import { SnapshotChart } from "./charts";
import { objectPath } from "./router";

const COLLECTION: Record<string, string> = {
  table: "tables",
  view: "views",
  fileset: "filesets",
  topic: "topics",
  model: "models",
  function: "functions",
};

export function typeName(t: any): string {
  if (t === null || t === undefined) return "";
  if (typeof t === "string") return t;
  switch (t.type) {
    case "struct":
      return `struct<${(t.fields ?? []).map((f: any) => `${f.name}: ${typeName(f.type)}`).join(", ")}>`;
    case "list":
      return `list<${typeName(t.elementType)}>`;
    case "map":
      return `map<${typeName(t.keyType)}, ${typeName(t.valueType)}>`;
    case "union":
      return `union<${(t.types ?? []).map(typeName).join(", ")}>`;
    case "unparsed":
      return String(t.unparsedType ?? "unparsed");
    case "external":
      return String(t.catalogString ?? "external");
    default:
      return JSON.stringify(t);
  }
}

function expr(e: any): string {
  if (!e) return "";
  if (e.type === "field") return (e.fieldName ?? []).join(".");
  if (e.type === "literal") return String(e.value);
  if (e.type === "function") return `${e.funcName}(${(e.funcArgs ?? []).map(expr).join(", ")})`;
  return JSON.stringify(e);
}

function partitionText(p: any): string {
  const field = (p.fieldName ?? []).join(".");
  switch (p.strategy) {
    case "identity":
      return field;
    case "bucket":
      return `bucket(${p.numBuckets}, ${(p.fieldNames ?? []).map((f: string[]) => f.join(".")).join(", ")})`;
    case "truncate":
      return `truncate(${p.width}, ${field})`;
    case "function":
      return `${p.funcName}(${(p.funcArgs ?? []).map(expr).join(", ")})`;
    default:
      return `${p.strategy}(${field})`;
  }
}

function Columns({ columns }: { columns: any[] }) {
  return (
    <Grid
      label="Columns"
      columns={["Column", "Type", "Nullable", "Default", "Comment"]}
      rows={columns}
      rowKey={(col) => col.name}
      cells={(col) => [
        <code>{col.name}</code>,
        <code>{typeName(col.type)}</code>,
        col.nullable === false ? "no" : "yes",
        col.defaultValue ? expr(col.defaultValue) : "",
        col.comment,
      ]}
    />
  );
}

function Snapshots({ m, c, s, t }: { m: string; c: string; s: string; t: string }) {
  const { data, error, loading } = useLoad(
    () =>
      get(
        `/iceberg/v1/${encodeURIComponent(`${m}.${c}`)}/namespaces/${encodeURIComponent(s)}/tables/${encodeURIComponent(t)}`,
      ),
    [m, c, s, t],
  );
  const snapshots: any[] = [...(data?.metadata?.snapshots ?? [])].sort(
    (a, b) => (a["timestamp-ms"] ?? 0) - (b["timestamp-ms"] ?? 0),
  );
  const current = data?.metadata?.["current-snapshot-id"];
  return (
    <Section title="Snapshots">
      <ErrorBox error={error} />
      {loading && <Loading what="snapshots" />}
      {data && snapshots.length === 0 && <p className="muted">No snapshots yet.</p>}
      {snapshots.length > 0 && (
        <>
          <SnapshotChart snapshots={snapshots} />
          <Grid
            label="Snapshot history"
            columns={["Snapshot", "Time", "Operation", "Added records", "Total records", "Data files"]}
            rows={[...snapshots].reverse()}
            rowKey={(sn) => String(sn["snapshot-id"])}
            cells={(sn) => [
              <>
                <code>{String(sn["snapshot-id"])}</code>
                {sn["snapshot-id"] === current && <span className="badge">current</span>}
              </>,
              new Date(sn["timestamp-ms"]).toISOString(),
              sn.summary?.operation,
              sn.summary?.["added-records"] ?? "0",
              sn.summary?.["total-records"],
              sn.summary?.["total-data-files"],
            ]}
          />
        </>
      )}
    </Section>
  );
}

function Statistics({ m, fullName }: { m: string; fullName: string }) {
  const { data, error } = useLoad(
    () => get(`/api/metalakes/${encodeURIComponent(m)}/objects/table/${encodeURIComponent(fullName)}/statistics`),
    [m, fullName],
  );
  const stats: any[] = data?.statistics ?? [];
  return (
    <Section title="Statistics">
      <ErrorBox error={error} />
      <Grid
        label="Statistics"
        columns={["Name", "Value", "Reserved"]}
        rows={data ? stats : null}
        empty="No statistics."
        rowKey={(st) => st.name}
        cells={(st) => [
          <code>{st.name}</code>,
          typeof st.value === "string" ? st.value : JSON.stringify(st.value),
          st.reserved ? "yes" : "no",
        ]}
      />
    </Section>
  );
}

/** A Hive table's partitions (Gravitino's partition API), with their values and parameters. */
function Partitions({ path }: { path: string }) {
  const { data, error } = useLoad(() => get(`${path}/partitions?details=true`), [path]);
  const parts: any[] = data?.partitions ?? [];
  return (
    <Section title="Partitions">
      <ErrorBox error={error} />
      <Grid
        label="Partitions"
        columns={["Partition", "Values", "Properties"]}
        rows={data ? parts : null}
        empty="No partitions."
        rowKey={(p) => p.name}
        cells={(p) => [
          <code>{p.name}</code>,
          (p.values ?? []).map(expr).join(", "),
          Object.entries(p.properties ?? {})
            .map(([k, v]) => `${k}=${v}`)
            .join(", "),
        ]}
      />
    </Section>
  );
}

function TablePage({ m, c, s, t, table, provider }: { m: string; c: string; s: string; t: string; table: any; provider: string }) {
  return (
    <>
      {table.comment && <p>{table.comment}</p>}
      <Section title="Columns">
        <Columns columns={table.columns ?? []} />
      </Section>
      <Section title="Layout">
        <dl className="facts">
          <dt>Partitioning</dt>
          <dd>{(table.partitioning ?? []).map(partitionText).join(", ") || "none"}</dd>
          <dt>Sort order</dt>
          <dd>
            {(table.sortOrders ?? [])
              .map((o: any) => `${expr(o.sortTerm)} ${o.direction ?? ""} ${o.nullOrdering ?? ""}`.trim())
              .join(", ") || "none"}
          </dd>
          <dt>Distribution</dt>
          <dd>
            {table.distribution && table.distribution.strategy !== "none"
              ? `${table.distribution.strategy}(${table.distribution.number ?? ""}) ${(table.distribution.funcArgs ?? []).map(expr).join(", ")}`
              : "none"}
          </dd>
          <dt>Indexes</dt>
          <dd>
            {(table.indexes ?? [])
              .map((i: any) => `${i.indexType} ${i.name ?? ""} (${(i.fieldNames ?? []).map((f: string[]) => f.join(".")).join(", ")})`)
              .join("; ") || "none"}
          </dd>
        </dl>
      </Section>
      <Section title="Properties">
        <KeyValues values={table.properties} />
      </Section>
      <Statistics m={m} fullName={`${c}.${s}.${t}`} />
      {provider === "lakehouse-iceberg" && <Snapshots m={m} c={c} s={s} t={t} />}
      {provider === "hive" && <Partitions path={`${sch(m, c, s)}/tables/${encodeURIComponent(t)}`} />}
    </>
  );
}

function FilesetFiles({ path }: { path: string }) {
  const [sub, setSub] = useState("/");
  const { data, error, loading } = useLoad(() => get(`${path}/files?sub_path=${encodeURIComponent(sub)}`), [path, sub]);
  const up = sub === "/" ? null : sub.replace(/\/[^/]+\/?$/, "") || "/";
  return (
    <Section title="Files">
      <p>
        Directory <code>{sub}</code>{" "}
        {up !== null && (
          <button type="button" onClick={() => setSub(up)}>
            Up
          </button>
        )}
      </p>
      <ErrorBox error={error} />
      {loading && <Loading what="files" />}
      <Grid
        label="Files"
        columns={["Name", "Size", "Modified"]}
        rows={data ? data.files ?? [] : null}
        empty="Empty."
        rowKey={(f: any) => f.name}
        cells={(f: any) => [
          f.isDir ? (
            <button type="button" className="linkish" onClick={() => setSub(`${sub.replace(/\/$/, "")}/${f.name}`)}>
              {f.name}/
            </button>
          ) : (
            f.name
          ),
          f.isDir ? "" : f.size,
          f.lastModified ? new Date(f.lastModified).toISOString() : "",
        ]}
      />
    </Section>
  );
}

function ModelVersions({ path }: { path: string }) {
  const { data, error } = useLoad(() => get(`${path}/versions?details=true`), [path]);
  const infos: any[] = data?.infos ?? [];
  return (
    <Section title="Versions">
      <ErrorBox error={error} />
      <Grid
        label="Versions"
        columns={["Version", "Aliases", "URIs", "Comment"]}
        rows={data ? infos : null}
        empty="No versions."
        rowKey={(v) => String(v.version)}
        cells={(v) => [
          v.version,
          (v.aliases ?? []).map((a: string) => (
            <span className="chip" key={a}>
              {a}
            </span>
          )),
          Object.entries(v.uris ?? {}).map(([k, u]) => (
            <div key={k}>
              <code>{String(u)}</code>
            </div>
          )),
          v.comment,
        ]}
      />
    </Section>
  );
}

export function ObjectPage({ m, c, s, kind, name }: { m: string; c: string; s: string; kind: string; name: string }) {
  const collection = COLLECTION[kind];
  const path = `${sch(m, c, s)}/${collection}/${encodeURIComponent(name)}`;
  const catalog = useLoad(() => get(cat(m, c)), [m, c]);
  const { data, error, loading } = useLoad(() => get(path), [path]);
  const obj = data ? data[kind] ?? data : null;
  const provider: string = catalog.data?.catalog?.provider ?? "";
  const fullName = `${c}.${s}.${name}`;
  return (
    <>
      <h1>
        <span className="kind">{kind[0].toUpperCase() + kind.slice(1)}</span> {name}
      </h1>
      <p className="crumbs">
        <Link to={objectPath(m)}>{m}</Link> / <Link to={objectPath(m, c)}>{c}</Link> /{" "}
        <Link to={objectPath(m, c, s)}>{s}</Link> / {name}
      </p>
      <ErrorBox error={error} />
      {loading && <Loading what={kind} />}
      {obj && kind === "table" && <TablePage m={m} c={c} s={s} t={name} table={obj} provider={provider} />}
      {obj && kind === "view" && (
        <>
          <Section title="Columns">
            <Columns columns={obj.columns ?? []} />
          </Section>
          <Section title="Definitions">
            {(obj.representations ?? []).map((r: any, i: number) => (
              <div key={i}>
                <h3>{r.dialect}</h3>
                <pre>{r.sql}</pre>
              </div>
            ))}
          </Section>
          <Section title="Properties">
            <KeyValues values={obj.properties} />
          </Section>
        </>
      )}
      {obj && kind === "fileset" && (
        <>
          <Section title="Details">
            <dl className="facts">
              <dt>Type</dt>
              <dd>{obj.type}</dd>
              <dt>Location</dt>
              <dd>
                <code>{obj.storageLocation}</code>
              </dd>
              <dt>Comment</dt>
              <dd>{obj.comment || "—"}</dd>
            </dl>
            <KeyValues values={obj.properties} />
          </Section>
          <FilesetFiles path={path} />
        </>
      )}
      {obj && kind === "topic" && (
        <Section title="Details">
          <dl className="facts">
            <dt>Partitions</dt>
            <dd>{obj.properties?.["partition-count"] ?? "—"}</dd>
            <dt>Replication factor</dt>
            <dd>{obj.properties?.["replication-factor"] ?? "—"}</dd>
            <dt>Comment</dt>
            <dd>{obj.comment || "—"}</dd>
          </dl>
          <KeyValues values={obj.properties} />
        </Section>
      )}
      {obj && kind === "model" && (
        <>
          <Section title="Details">
            <dl className="facts">
              <dt>Latest version</dt>
              <dd>{obj.latestVersion}</dd>
              <dt>Comment</dt>
              <dd>{obj.comment || "—"}</dd>
            </dl>
            <KeyValues values={obj.properties} />
          </Section>
          <ModelVersions path={path} />
        </>
      )}
      {obj && kind === "function" && (
        <Section title="Definition">
          <pre>{JSON.stringify(obj, null, 2)}</pre>
        </Section>
      )}
      {obj && <ObjectGovernance m={m} type={kind} fullName={fullName} />}
    </>
  );
}
