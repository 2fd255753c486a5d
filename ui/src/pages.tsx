// Metalakes, catalogs and schemas: browse, create, edit.
import { useState } from "react";
import { KINDS, cat, get, kindsOf, listPage, ml, post, sch } from "./api";
import {
  ErrorBox,
  Field,
  FormPanel,
  Grid,
  KeyValues,
  Link,
  Loading,
  PagedList,
  Section,
  Select,
  SetProperties,
  TextArea,
  parseProperties,
  useLoad,
} from "./components";
import { navigate, objectPath } from "./router";
import { ObjectGovernance } from "./governance";

export function MetalakesPage({ onChange }: { onChange: () => void }) {
  const { data, error, loading, reload } = useLoad(() => get("/api/metalakes"), []);
  const [name, setName] = useState("");
  const [comment, setComment] = useState("");
  return (
    <>
      <h1>Metalakes</h1>
      <Section
        title="All metalakes"
        actions={
          <FormPanel
            open="New metalake"
            title="New metalake"
            submit={async () => {
              await post("/api/metalakes", { name, comment, properties: {} });
              setName("");
              setComment("");
              reload();
              onChange();
            }}
          >
            <Field label="Name" value={name} onChange={setName} required />
            <Field label="Comment" value={comment} onChange={setComment} />
          </FormPanel>
        }
      >
        <ErrorBox error={error} />
        {loading && <Loading what="metalakes" />}
        <Grid
          label="Metalakes"
          columns={["Name", "Comment", "Created by"]}
          rows={data ? data.metalakes ?? [] : null}
          empty="No metalakes you may see."
          rowKey={(x: any) => x.name}
          cells={(x: any) => [<Link to={objectPath(x.name)}>{x.name}</Link>, x.comment, x.audit?.creator]}
        />
      </Section>
    </>
  );
}

/** A "Test connection" button that says what the server answered, next to it. */
function TestConnection({ test }: { test: () => Promise<unknown> }) {
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  return (
    <span className="test-connection">
      <button
        type="button"
        onClick={async () => {
          setResult(null);
          setError(null);
          try {
            await test();
            setResult("Connection works.");
          } catch (e) {
            setError(e);
          }
        }}
      >
        Test connection
      </button>
      {result && (
        <span className="ok" role="status">
          {result}
        </span>
      )}
      <ErrorBox error={error} />
    </span>
  );
}

const PROVIDERS: Record<string, string[]> = {
  relational: ["lakehouse-iceberg", "jdbc-postgresql", "jdbc-mysql", "hive", "lakehouse-generic"],
  fileset: ["fileset"],
  messaging: ["kafka"],
  model: ["model"],
};

function NewCatalog({ m, done }: { m: string; done: () => void }) {
  const [name, setName] = useState("");
  const [type, setType] = useState("relational");
  const [provider, setProvider] = useState("lakehouse-iceberg");
  const [comment, setComment] = useState("");
  const [props, setProps] = useState("");
  const body = () => ({
    name,
    type: type.toUpperCase(),
    provider: type === "model" ? undefined : provider,
    comment,
    properties: parseProperties(props),
  });
  return (
    <FormPanel
      open="New catalog"
      title="New catalog"
      submit={async () => {
        await post(`${ml(m)}/catalogs`, body());
        done();
        navigate(objectPath(m, name));
      }}
      extra={<TestConnection test={() => post(`${ml(m)}/catalogs/testConnection`, body())} />}
    >
      <Field label="Name" value={name} onChange={setName} required />
      <Select
        label="Type"
        value={type}
        onChange={(t) => {
          setType(t);
          setProvider(PROVIDERS[t][0]);
        }}
        options={Object.keys(PROVIDERS).map((t) => ({ value: t, label: t }))}
      />
      <Select
        label="Provider"
        value={provider}
        onChange={setProvider}
        options={PROVIDERS[type].map((p) => ({ value: p, label: p }))}
      />
      <Field label="Comment" value={comment} onChange={setComment} />
      <TextArea label="Properties" value={props} onChange={setProps} hint="One key=value per line" />
    </FormPanel>
  );
}

export function MetalakePage({ m, onChange }: { m: string; onChange: () => void }) {
  const meta = useLoad(() => get(ml(m)), [m]);
  const catalogs = useLoad(() => get(`${ml(m)}/catalogs?details=true`), [m]);
  const [filter, setFilter] = useState("");
  const shown = (catalogs.data?.catalogs ?? []).filter((c: any) =>
    c.name.toLowerCase().includes(filter.toLowerCase()),
  );
  return (
    <>
      <h1>
        <span className="kind">Metalake</span> {m}
      </h1>
      <ErrorBox error={meta.error} />
      {meta.data && <p>{meta.data.metalake?.comment}</p>}
      <nav className="subnav" aria-label="Metalake pages">
        <Link to={`/m/${encodeURIComponent(m)}/tags`}>Tags</Link>
        <Link to={`/m/${encodeURIComponent(m)}/access`}>Users, groups and roles</Link>
        <Link to={`/m/${encodeURIComponent(m)}/lineage`}>Lineage</Link>
        <Link to={`/audit?object=${encodeURIComponent(m)}`}>Audit log</Link>
      </nav>
      <Section
        title="Catalogs"
        actions={
          <NewCatalog
            m={m}
            done={() => {
              catalogs.reload();
              onChange();
            }}
          />
        }
      >
        <ErrorBox error={catalogs.error} />
        {catalogs.loading && <Loading what="catalogs" />}
        <div className="field inline">
          <label htmlFor="catalog-search">Search catalogs</label>
          <input id="catalog-search" type="search" value={filter} onChange={(e) => setFilter(e.target.value)} />
        </div>
        <Grid
          label="Catalogs"
          columns={["Name", "Type", "Provider", "Comment"]}
          rows={catalogs.data ? shown : null}
          rowKey={(x: any) => x.name}
          cells={(x: any) => [<Link to={objectPath(m, x.name)}>{x.name}</Link>, x.type, x.provider, x.comment]}
        />
      </Section>
      {meta.data && (
        <Section title="Properties" actions={<SetProperties path={ml(m)} done={meta.reload} />}>
          <KeyValues values={meta.data.metalake?.properties} />
        </Section>
      )}
    </>
  );
}

export function CatalogPage({ m, c, onChange }: { m: string; c: string; onChange: () => void }) {
  const { data, error, reload } = useLoad(() => get(cat(m, c)), [m, c]);
  const [refresh, setRefresh] = useState(0);
  const [name, setName] = useState("");
  const [comment, setComment] = useState("");
  const [props, setProps] = useState("");
  const catalog = data?.catalog;
  return (
    <>
      <h1>
        <span className="kind">Catalog</span> {c}
      </h1>
      <p className="crumbs">
        <Link to={objectPath(m)}>{m}</Link> / {c}
      </p>
      <ErrorBox error={error} />
      {catalog && (
        <Section
          title="Details"
          actions={
            <>
            <SetProperties path={cat(m, c)} done={reload} />
            <TestConnection test={() => post(`${cat(m, c)}/testConnection`, {})} />
            </>
          }
        >
          <dl className="facts">
            <dt>Type</dt>
            <dd>{catalog.type}</dd>
            <dt>Provider</dt>
            <dd>{catalog.provider}</dd>
            <dt>Comment</dt>
            <dd>{catalog.comment || "—"}</dd>
            <dt>Created</dt>
            <dd>
              {catalog.audit?.creator} {catalog.audit?.createTime}
            </dd>
          </dl>
          <h3>Properties</h3>
          <KeyValues values={catalog.properties} />
        </Section>
      )}
      <Section
        title="Schemas"
        actions={
          <FormPanel
            open="New schema"
            title="New schema"
            submit={async () => {
              await post(`${cat(m, c)}/schemas`, { name, comment, properties: parseProperties(props) });
              setName("");
              setRefresh((r) => r + 1);
              onChange();
            }}
          >
            <Field label="Name" value={name} onChange={setName} required />
            <Field label="Comment" value={comment} onChange={setComment} />
            <TextArea label="Properties" value={props} onChange={setProps} hint="One key=value per line" />
          </FormPanel>
        }
      >
        <PagedList
          label="schemas"
          refresh={refresh}
          fetchPage={(size, token, filter) => listPage(`${cat(m, c)}/schemas`, size, token, filter)}
          render={(s) => <Link to={objectPath(m, c, s)}>{s}</Link>}
        />
      </Section>
      {catalog && <ObjectGovernance m={m} type="catalog" fullName={c} />}
    </>
  );
}

export function SchemaPage({ m, c, s }: { m: string; c: string; s: string }) {
  const catalog = useLoad(() => get(cat(m, c)), [m, c]);
  const schema = useLoad(() => get(sch(m, c, s)), [m, c, s]);
  const type: string = catalog.data?.catalog?.type ?? "relational";
  return (
    <>
      <h1>
        <span className="kind">Schema</span> {s}
      </h1>
      <p className="crumbs">
        <Link to={objectPath(m)}>{m}</Link> / <Link to={objectPath(m, c)}>{c}</Link> / {s}
      </p>
      <ErrorBox error={schema.error} />
      {schema.data && (
        <Section
          title="Details"
          actions={<SetProperties path={sch(m, c, s)} done={schema.reload} />}
        >
          <p>{schema.data.schema?.comment}</p>
          <KeyValues values={schema.data.schema?.properties} />
        </Section>
      )}
      {KINDS.filter((k) => kindsOf(type).includes(k.kind)).map((k) => (
        <Section key={k.kind} title={k.label} id={k.collection}>
          <PagedList
            label={k.collection}
            fetchPage={(size, token, filter) => listPage(`${sch(m, c, s)}/${k.collection}`, size, token, filter)}
            render={(n) => <Link to={objectPath(m, c, s, k.kind, n)}>{n}</Link>}
          />
        </Section>
      ))}
      {schema.data && <ObjectGovernance m={m} type="schema" fullName={`${c}.${s}`} />}
    </>
  );
}
