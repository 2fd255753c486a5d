// Governance: an object's owner, tags and policies; the metalake's tags, users, groups, roles
// and grants; the audit log; lineage.
import { useState } from "react";
import { ApiError, get, ml, post, put } from "./api";
import { ErrorBox, Field, FormPanel, Grid, KeyValues, Link, Loading, Section, Select, TextArea, parseProperties, useLoad } from "./components";
import { LineageGraph } from "./charts";
import { currentQuery, navigate, objectPath } from "./router";

const obj = (m: string, type: string, fullName: string) =>
  `${ml(m)}/objects/${encodeURIComponent(type)}/${encodeURIComponent(fullName)}`;

/** Owner, tags and policies of one object (any kind), with what an administrator changes. */
export function ObjectGovernance({ m, type, fullName }: { m: string; type: string; fullName: string }) {
  const owner = useLoad(() => get(`${ml(m)}/owners/${encodeURIComponent(type)}/${encodeURIComponent(fullName)}`), [m, type, fullName]);
  const tags = useLoad(() => get(`${obj(m, type, fullName)}/tags?details=true`), [m, type, fullName]);
  const allTags = useLoad(() => get(`${ml(m)}/tags`), [m]);
  const policies = useLoad(() => get(`${obj(m, type, fullName)}/policies?details=true`), [m, type, fullName]);
  const [newOwner, setNewOwner] = useState("");
  const [ownerType, setOwnerType] = useState("USER");
  const [tag, setTag] = useState("");
  const attached: string[] = (tags.data?.tags ?? []).map((t: any) => t.name);
  const attachable: string[] = (allTags.data?.names ?? []).filter((n: string) => !attached.includes(n));
  return (
    <>
      <Section
        title="Owner"
        actions={
          <FormPanel
            open="Set owner"
            title="Set the owner"
            submitLabel="Set owner"
            submit={async () => {
              await put(`${ml(m)}/owners/${encodeURIComponent(type)}/${encodeURIComponent(fullName)}`, {
                name: newOwner,
                type: ownerType,
              });
              setNewOwner("");
              owner.reload();
            }}
          >
            <Field label="Owner name" value={newOwner} onChange={setNewOwner} required />
            <Select
              label="Owner type"
              value={ownerType}
              onChange={setOwnerType}
              options={[
                { value: "USER", label: "user" },
                { value: "GROUP", label: "group" },
              ]}
            />
          </FormPanel>
        }
      >
        {owner.error && (owner.error as ApiError).status !== 404 && <ErrorBox error={owner.error} />}
        {owner.data && (
          <p data-testid="owner">
            {owner.data.owner ? `${owner.data.owner.name} (${String(owner.data.owner.type).toLowerCase()})` : "No owner"}
          </p>
        )}
      </Section>
      <Section
        title="Tags"
        actions={
          attachable.length > 0 && (
            <FormPanel
              open="Attach tag"
              title="Attach a tag"
              submitLabel="Attach"
              submit={async () => {
                await post(`${obj(m, type, fullName)}/tags`, { tagsToAdd: [tag || attachable[0]], tagsToRemove: [] });
                setTag("");
                tags.reload();
              }}
            >
              <Select label="Tag" value={tag || attachable[0]} onChange={setTag} options={attachable.map((n) => ({ value: n, label: n }))} />
            </FormPanel>
          )
        }
      >
        <ErrorBox error={tags.error} />
        {tags.data && attached.length === 0 && <p className="muted">No tags.</p>}
        <ul className="chips" aria-label="Tags of this object">
          {(tags.data?.tags ?? []).map((t: any) => (
            <li key={t.name} className="chip">
              <Link to={`/m/${encodeURIComponent(m)}/tags/${encodeURIComponent(t.name)}`}>{t.name}</Link>
              {t.inherited && <span className="muted"> (inherited)</span>}
              {!t.inherited && (
                <button
                  type="button"
                  className="linkish"
                  aria-label={`Detach tag ${t.name}`}
                  onClick={async () => {
                    await post(`${obj(m, type, fullName)}/tags`, { tagsToAdd: [], tagsToRemove: [t.name] });
                    tags.reload();
                  }}
                >
                  ×
                </button>
              )}
            </li>
          ))}
        </ul>
      </Section>
      <Section title="Policies">
        <ErrorBox error={policies.error} />
        <Grid
          label="Policies"
          columns={["Policy", "Type", "Enabled", "Inherited"]}
          rows={policies.data ? policies.data.policies ?? [] : null}
          empty="No policies."
          rowKey={(p: any) => p.name}
          cells={(p: any) => [p.name, p.policyType, p.enabled === false ? "no" : "yes", p.inherited ? "yes" : "no"]}
        />
      </Section>
      {type === "table" && (
        <p>
          <Link to={`/m/${encodeURIComponent(m)}/lineage?fullName=${encodeURIComponent(fullName)}`}>Lineage of this table</Link>
          {" · "}
          <Link to={`/audit?object=${encodeURIComponent(`${m}.${fullName}`)}`}>Audit entries</Link>
        </p>
      )}
    </>
  );
}

export function TagsPage({ m }: { m: string }) {
  const { data, error, loading, reload } = useLoad(() => get(`${ml(m)}/tags?details=true`), [m]);
  const [name, setName] = useState("");
  const [comment, setComment] = useState("");
  const [props, setProps] = useState("");
  return (
    <>
      <h1>
        <span className="kind">Tags of</span> {m}
      </h1>
      <Section
        title="Tags"
        actions={
          <FormPanel
            open="New tag"
            title="New tag"
            submit={async () => {
              await post(`${ml(m)}/tags`, { name, comment, properties: parseProperties(props) });
              setName("");
              setComment("");
              setProps("");
              reload();
            }}
          >
            <Field label="Name" value={name} onChange={setName} required />
            <Field label="Comment" value={comment} onChange={setComment} />
            <TextArea label="Properties" value={props} onChange={setProps} hint="One key=value per line" />
          </FormPanel>
        }
      >
        <ErrorBox error={error} />
        {loading && <Loading what="tags" />}
        <Grid
          label="Tags"
          columns={["Tag", "Comment", "Properties"]}
          rows={data ? data.tags ?? [] : null}
          empty="No tags."
          rowKey={(t: any) => t.name}
          cells={(t: any) => [
            <Link to={`/m/${encodeURIComponent(m)}/tags/${encodeURIComponent(t.name)}`}>{t.name}</Link>,
            t.comment,
            Object.entries(t.properties ?? {})
              .map(([k, v]) => `${k}=${v}`)
              .join(", "),
          ]}
        />
      </Section>
    </>
  );
}

function objectLink(m: string, type: string, fullName: string) {
  const parts = fullName.split(".");
  if (type === "catalog") return objectPath(m, parts[0]);
  if (type === "schema") return objectPath(m, parts[0], parts[1]);
  if (parts.length >= 3) return objectPath(m, parts[0], parts[1], type, parts.slice(2).join("."));
  return objectPath(m);
}

export function TagPage({ m, tag }: { m: string; tag: string }) {
  const t = useLoad(() => get(`${ml(m)}/tags/${encodeURIComponent(tag)}`), [m, tag]);
  const objects = useLoad(() => get(`${ml(m)}/tags/${encodeURIComponent(tag)}/objects`), [m, tag]);
  return (
    <>
      <h1>
        <span className="kind">Tag</span> {tag}
      </h1>
      <p className="crumbs">
        <Link to={objectPath(m)}>{m}</Link> / <Link to={`/m/${encodeURIComponent(m)}/tags`}>tags</Link> / {tag}
      </p>
      <ErrorBox error={t.error} />
      {t.data && (
        <Section title="Details">
          <p>{t.data.tag?.comment}</p>
          <KeyValues values={t.data.tag?.properties} />
        </Section>
      )}
      <Section title="Tagged objects">
        <ErrorBox error={objects.error} />
        {objects.data && (objects.data.metadataObjects ?? []).length === 0 && <p className="muted">None.</p>}
        <ul className="names" aria-label="Tagged objects">
          {(objects.data?.metadataObjects ?? []).map((o: any) => (
            <li key={`${o.type}:${o.fullName}`}>
              <span className="muted">{String(o.type).toLowerCase()}</span>{" "}
              <Link to={objectLink(m, String(o.type).toLowerCase(), o.fullName)}>{o.fullName}</Link>
            </li>
          ))}
        </ul>
      </Section>
    </>
  );
}

const PRIVILEGES = [
  "USE_CATALOG",
  "USE_SCHEMA",
  "CREATE_SCHEMA",
  "CREATE_TABLE",
  "SELECT_TABLE",
  "MODIFY_TABLE",
  "CREATE_FILESET",
  "READ_FILESET",
  "WRITE_FILESET",
  "CREATE_TOPIC",
  "CONSUME_TOPIC",
  "PRODUCE_TOPIC",
  "CREATE_MODEL",
  "USE_MODEL",
  "CREATE_ROLE",
  "MANAGE_GRANTS",
  "APPLY_TAG",
  "CREATE_TAG",
];

export function AccessPage({ m }: { m: string }) {
  const users = useLoad(() => get(`${ml(m)}/users?details=true`), [m]);
  const groups = useLoad(() => get(`${ml(m)}/groups?details=true`), [m]);
  const roles = useLoad(() => get(`${ml(m)}/roles`), [m]);
  const [role, setRole] = useState("");
  const [objType, setObjType] = useState("catalog");
  const [objName, setObjName] = useState("");
  const [privileges, setPrivileges] = useState<string[]>([]);
  const [condition, setCondition] = useState("ALLOW");
  const [grantTo, setGrantTo] = useState("");
  const [grantKind, setGrantKind] = useState("users");
  const [grantRole, setGrantRole] = useState("");
  const roleNames: string[] = roles.data?.names ?? [];
  return (
    <>
      <h1>
        <span className="kind">Access in</span> {m}
      </h1>
      <Principals m={m} kind="users" label="User" list={users} />
      <Principals m={m} kind="groups" label="Group" list={groups} />
      <Section
        title="Roles"
        actions={
          <FormPanel
            open="New role"
            title="New role"
            submit={async () => {
              await post(`${ml(m)}/roles`, {
                name: role,
                properties: {},
                securableObjects: objName
                  ? [{ fullName: objName, type: objType.toUpperCase(), privileges: privileges.map((name) => ({ name, condition })) }]
                  : [],
              });
              setRole("");
              setObjName("");
              setPrivileges([]);
              roles.reload();
            }}
          >
            <Field label="Role name" value={role} onChange={setRole} required />
            <Select
              label="Object type"
              value={objType}
              onChange={setObjType}
              options={["metalake", "catalog", "schema", "table", "fileset", "topic", "model"].map((t) => ({ value: t, label: t }))}
            />
            <Field label="Object full name" value={objName} onChange={setObjName} placeholder="catalog.schema.table" />
            <fieldset className="privileges">
              <legend>Privileges</legend>
              {PRIVILEGES.map((p) => (
                <label key={p}>
                  <input
                    type="checkbox"
                    checked={privileges.includes(p)}
                    onChange={(e) => setPrivileges(e.target.checked ? [...privileges, p] : privileges.filter((x) => x !== p))}
                  />
                  {p}
                </label>
              ))}
            </fieldset>
            <Select
              label="Condition"
              value={condition}
              onChange={setCondition}
              options={[
                { value: "ALLOW", label: "allow" },
                { value: "DENY", label: "deny" },
              ]}
            />
          </FormPanel>
        }
      >
        <ErrorBox error={roles.error} />
        <ul className="names" aria-label="Roles">
          {roleNames.map((r) => (
            <li key={r}>
              <RoleLine m={m} role={r} />
            </li>
          ))}
        </ul>
      </Section>
      <Section
        title="Grant a role"
        actions={
          roleNames.length > 0 && (
            <FormPanel
              open="Grant role"
              title="Grant a role"
              submitLabel="Grant"
              submit={async () => {
                await put(`${ml(m)}/permissions/${grantKind}/${encodeURIComponent(grantTo)}/grant`, {
                  roleNames: [grantRole || roleNames[0]],
                });
                setGrantTo("");
                users.reload();
                groups.reload();
              }}
            >
              <Select
                label="Grant to"
                value={grantKind}
                onChange={setGrantKind}
                options={[
                  { value: "users", label: "user" },
                  { value: "groups", label: "group" },
                ]}
              />
              <Field label="Name" value={grantTo} onChange={setGrantTo} required />
              <Select label="Role" value={grantRole || roleNames[0]} onChange={setGrantRole} options={roleNames.map((r) => ({ value: r, label: r }))} />
            </FormPanel>
          )
        }
      >
        <p className="muted">A role's privileges reach every user and group it is granted to.</p>
      </Section>
    </>
  );
}

/** The users or the groups of a metalake with their roles, and a form that adds one. */
function Principals(props: { m: string; kind: "users" | "groups"; label: string; list: ReturnType<typeof useLoad<any>> }) {
  const { m, kind, label, list } = props;
  const [name, setName] = useState("");
  const lower = label.toLowerCase();
  return (
    <Section
      title={`${label}s`}
      actions={
        <FormPanel
          open={`Add ${lower}`}
          title={`Add a ${lower}`}
          submitLabel="Add"
          submit={async () => {
            await post(`${ml(m)}/${kind}`, { name });
            setName("");
            list.reload();
          }}
        >
          <Field label={`${label} name`} value={name} onChange={setName} required />
        </FormPanel>
      }
    >
      <ErrorBox error={list.error} />
      <Grid
        label={`${label}s`}
        columns={[label, "Roles"]}
        rows={list.data?.[kind] ?? []}
        rowKey={(u: any) => u.name}
        cells={(u: any) => [
          u.name,
          <RoleChips m={m} kind={kind} name={u.name} roles={u.roles ?? []} done={list.reload} />,
        ]}
      />
    </Section>
  );
}

/** The roles granted to a user or group, each with a button that revokes it. */
function RoleChips({ m, kind, name, roles, done }: { m: string; kind: string; name: string; roles: string[]; done: () => void }) {
  const [error, setError] = useState<unknown>(null);
  return (
    <>
      {roles.map((r) => (
        <span className="chip" key={r}>
          {r}
          <button
            type="button"
            className="linkish"
            aria-label={`Revoke role ${r} from ${name}`}
            onClick={async () => {
              setError(null);
              try {
                await put(`${ml(m)}/permissions/${kind}/${encodeURIComponent(name)}/revoke`, { roleNames: [r] });
                done();
              } catch (e) {
                setError(e);
              }
            }}
          >
            ×
          </button>
        </span>
      ))}
      <ErrorBox error={error} />
    </>
  );
}

function RoleLine({ m, role }: { m: string; role: string }) {
  const [open, setOpen] = useState(false);
  const detail = useLoad(() => (open ? get(`${ml(m)}/roles/${encodeURIComponent(role)}`) : Promise.resolve(null)), [m, role, open]);
  return (
    <>
      <button type="button" className="linkish" aria-expanded={open} onClick={() => setOpen(!open)}>
        {role}
      </button>
      {open && detail.data && (
        <ul className="small">
          {(detail.data.role?.securableObjects ?? []).map((o: any) => (
            <li key={`${o.type}:${o.fullName}`}>
              {String(o.type).toLowerCase()} <code>{o.fullName}</code>:{" "}
              {(o.privileges ?? []).map((p: any) => `${p.name} (${String(p.condition).toLowerCase()})`).join(", ")}
            </li>
          ))}
        </ul>
      )}
      <ErrorBox error={detail.error} />
    </>
  );
}

export function AuditPage() {
  const q = currentQuery();
  const [principal, setPrincipal] = useState(q.get("principal") ?? "");
  const [operation, setOperation] = useState(q.get("operation") ?? "");
  const [object, setObject] = useState(q.get("object") ?? "");
  const [outcome, setOutcome] = useState(q.get("outcome") ?? "");
  const [from, setFrom] = useState(q.get("from") ?? "");
  const [to, setTo] = useState(q.get("to") ?? "");
  const [applied, setApplied] = useState(q.toString());
  const { data, error, loading } = useLoad(() => get(`/api/audit?limit=200&${applied}`), [applied]);
  const toMs = (v: string) => (v ? String(new Date(v).getTime()) : "");
  return (
    <>
      <h1>Audit log</h1>
      <form
        className="filters"
        aria-label="Filter the audit log"
        onSubmit={(e) => {
          e.preventDefault();
          const p = new URLSearchParams();
          if (principal) p.set("principal", principal);
          if (operation) p.set("operation", operation);
          if (object) p.set("object", object);
          if (outcome) p.set("outcome", outcome);
          if (from) p.set("from", /^\d+$/.test(from) ? from : toMs(from));
          if (to) p.set("to", /^\d+$/.test(to) ? to : toMs(to));
          setApplied(p.toString());
          navigate(`/audit?${p}`, true);
        }}
      >
        <Field label="Principal" value={principal} onChange={setPrincipal} />
        <Field label="Operation contains" value={operation} onChange={setOperation} />
        <Field label="Object starts with" value={object} onChange={setObject} />
        <Select
          label="Outcome"
          value={outcome}
          onChange={setOutcome}
          options={[
            { value: "", label: "any" },
            { value: "success", label: "success" },
            { value: "denied", label: "denied" },
            { value: "not_found", label: "not found" },
            { value: "failure", label: "failure" },
          ]}
        />
        <Field label="From" type="datetime-local" value={from} onChange={setFrom} />
        <Field label="To" type="datetime-local" value={to} onChange={setTo} />
        <button type="submit" className="primary">
          Filter
        </button>
      </form>
      <ErrorBox error={error} />
      {loading && <Loading what="audit records" />}
      <Grid
        label="Audit records"
        className="audit"
        columns={["Time", "Principal", "Interface", "Operation", "Object", "Status", "Outcome"]}
        rows={data ? data.records ?? [] : null}
        rowKey={(r: any, i) => `${r.requestId ?? ""}-${i}`}
        cells={(r: any) => [
          new Date(r.timeMs).toISOString(),
          r.principal,
          r.interface,
          <code>{r.operation}</code>,
          r.object,
          r.status,
          <span className={`outcome ${r.outcome}`}>{r.outcome}</span>,
        ]}
      />
    </>
  );
}

export function LineagePage({ m }: { m: string }) {
  const q = currentQuery();
  const [fullName, setFullName] = useState(q.get("fullName") ?? "");
  const [direction, setDirection] = useState(q.get("direction") ?? "both");
  const [depth, setDepth] = useState(q.get("depth") ?? "3");
  const [query, setQuery] = useState(q.get("fullName") ? q.toString() : "");
  const { data, error, loading } = useLoad(
    () =>
      query
        ? get(`/api/lineage/graph?metalake=${encodeURIComponent(m)}&pageSize=1000&${query}`)
        : Promise.resolve(null),
    [m, query],
  );
  return (
    <>
      <h1>
        <span className="kind">Lineage in</span> {m}
      </h1>
      <form
        className="filters"
        aria-label="Lineage query"
        onSubmit={(e) => {
          e.preventDefault();
          const p = new URLSearchParams({ fullName, direction, depth });
          setQuery(p.toString());
          navigate(`/m/${encodeURIComponent(m)}/lineage?${p}`, true);
        }}
      >
        <Field label="Table (catalog.schema.table)" value={fullName} onChange={setFullName} required />
        <Select
          label="Direction"
          value={direction}
          onChange={setDirection}
          options={[
            { value: "both", label: "upstream and downstream" },
            { value: "upstream", label: "upstream" },
            { value: "downstream", label: "downstream" },
          ]}
        />
        <Select
          label="Depth"
          value={depth}
          onChange={setDepth}
          options={["1", "2", "3", "5", "10", "20"].map((d) => ({ value: d, label: d }))}
        />
        <button type="submit" className="primary">
          Show
        </button>
      </form>
      <ErrorBox error={error} />
      {loading && query && <Loading what="lineage" />}
      {data && <LineageGraph m={m} graph={data} />}
    </>
  );
}
