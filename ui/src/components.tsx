// Shared pieces of the pages: links, error boxes, forms, key-value tables and paged lists.
import { ReactNode, useCallback, useEffect, useRef, useState } from "react";
import { ApiError, call } from "./api";
import { navigate } from "./router";

export function Link(props: { to: string; children: ReactNode; className?: string }) {
  return (
    <a
      href={`/ui${props.to}`}
      className={props.className}
      onClick={(e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        navigate(props.to);
      }}
    >
      {props.children}
    </a>
  );
}

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const e = error as ApiError;
  const status = e.status ? `${e.status} ` : "";
  return (
    <div className="error" role="alert">
      <strong>{status === "403 " ? "Not allowed: " : status === "404 " ? "Not found: " : "Error: "}</strong>
      {status}
      {e.message ?? String(error)}
    </div>
  );
}

/** Runs `load` when `deps` change; answers {data, error, loading, reload}. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setLoading(true);
    setError(null);
    load()
      .then((d) => live && setData(d))
      .catch((e) => {
        if (!live) return;
        setData(null);
        setError(e);
      })
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, loading, reload };
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status">
      Loading {what}…
    </p>
  );
}

export function Section(props: { title: string; children: ReactNode; actions?: ReactNode; id?: string }) {
  const id = props.id ?? `sec-${props.title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
  return (
    <section className="card" aria-labelledby={id}>
      <div className="card-head">
        <h2 id={id}>{props.title}</h2>
        {props.actions && <div className="actions">{props.actions}</div>}
      </div>
      {props.children}
    </section>
  );
}

export function KeyValues({ values, empty = "None" }: { values: Record<string, unknown> | null | undefined; empty?: string }) {
  const entries = Object.entries(values ?? {});
  if (entries.length === 0) return <p className="muted">{empty}</p>;
  return (
    <table className="grid kv">
      <thead>
        <tr>
          <th scope="col">Key</th>
          <th scope="col">Value</th>
        </tr>
      </thead>
      <tbody>
        {entries.map(([k, v]) => (
          <tr key={k}>
            <td>
              <code>{k}</code>
            </td>
            <td>{typeof v === "string" ? v : JSON.stringify(v)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A labelled text input. */
export function Field(props: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  type?: string;
  required?: boolean;
  placeholder?: string;
  autoComplete?: string;
  name?: string;
}) {
  const id = useRef(`f-${Math.random().toString(36).slice(2)}`).current;
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        type={props.type ?? "text"}
        value={props.value}
        required={props.required}
        placeholder={props.placeholder}
        autoComplete={props.autoComplete ?? "off"}
        onChange={(e) => props.onChange(e.target.value)}
      />
    </div>
  );
}

export function Select(props: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  options: { value: string; label: string }[];
}) {
  const id = useRef(`s-${Math.random().toString(36).slice(2)}`).current;
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <select id={id} value={props.value} onChange={(e) => props.onChange(e.target.value)}>
        {props.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** `key=value` lines, the way properties are typed by hand. */
export function parseProperties(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (!t) continue;
    const eq = t.indexOf("=");
    if (eq <= 0) throw new Error(`"${t}" is not key=value`);
    out[t.slice(0, eq).trim()] = t.slice(eq + 1).trim();
  }
  return out;
}

export function TextArea(props: { label: string; value: string; onChange: (v: string) => void; rows?: number; hint?: string }) {
  const id = useRef(`t-${Math.random().toString(36).slice(2)}`).current;
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <textarea id={id} rows={props.rows ?? 4} value={props.value} onChange={(e) => props.onChange(e.target.value)} />
      {props.hint && <small className="muted">{props.hint}</small>}
    </div>
  );
}

/** A form in a panel that opens from a button; `submit` may throw (shown in the panel). */
export function FormPanel(props: {
  open: string; // the button's label
  title: string;
  children: ReactNode;
  submit: () => Promise<void>;
  submitLabel?: string;
  extra?: ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  if (!open) {
    return (
      <button type="button" onClick={() => setOpen(true)}>
        {props.open}
      </button>
    );
  }
  return (
    <form
      className="panel"
      aria-label={props.title}
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        try {
          await props.submit();
          setOpen(false);
        } catch (err) {
          setError(err);
        } finally {
          setBusy(false);
        }
      }}
    >
      <h3>{props.title}</h3>
      {props.children}
      <ErrorBox error={error} />
      <div className="buttons">
        <button type="submit" className="primary" disabled={busy}>
          {props.submitLabel ?? "Create"}
        </button>
        {props.extra}
        <button type="button" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/**
 * A list paged from the server, with a search box whose text the server filters by. Renders
 * one page at a time, so a schema of 100,000 tables costs what a page costs.
 */
export function PagedList(props: {
  label: string; // "tables"
  fetchPage: (pageSize: number, token: string | null, filter: string) => Promise<{ items: string[]; next: string | null }>;
  render: (name: string) => ReactNode;
  pageSize?: number;
  refresh?: number;
}) {
  const pageSize = props.pageSize ?? 50;
  const [filter, setFilter] = useState("");
  const [applied, setApplied] = useState("");
  const [tokens, setTokens] = useState<(string | null)[]>([null]); // the token of each page so far
  const [page, setPage] = useState<{ items: string[]; next: string | null } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const index = tokens.length - 1;
  useEffect(() => {
    const t = setTimeout(() => {
      setApplied(filter);
      setTokens([null]);
    }, 250);
    return () => clearTimeout(t);
  }, [filter]);
  useEffect(() => {
    let live = true;
    setError(null);
    props
      .fetchPage(pageSize, tokens[index], applied)
      .then((p) => live && setPage(p))
      .catch((e) => {
        if (!live) return;
        setPage(null);
        setError(e);
      });
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [tokens, applied, props.refresh]);
  const id = useRef(`q-${Math.random().toString(36).slice(2)}`).current;
  return (
    <div className="paged">
      <div className="field inline">
        <label htmlFor={id}>Search {props.label}</label>
        <input id={id} type="search" value={filter} onChange={(e) => setFilter(e.target.value)} />
      </div>
      <ErrorBox error={error} />
      {page && page.items.length === 0 && <p className="muted">No {props.label}.</p>}
      {page && page.items.length > 0 && (
        <ul className="names" aria-label={props.label}>
          {page.items.map((n) => (
            <li key={n}>{props.render(n)}</li>
          ))}
        </ul>
      )}
      {(index > 0 || page?.next) && (
        <nav className="pager" aria-label={`Pages of ${props.label}`}>
          <button type="button" disabled={index === 0} onClick={() => setTokens(tokens.slice(0, -1))}>
            Previous page
          </button>
          <span className="muted">Page {index + 1}</span>
          <button type="button" disabled={!page?.next} onClick={() => page?.next && setTokens([...tokens, page.next])}>
            Next page
          </button>
        </nav>
      )}
    </div>
  );
}

/** "Set properties" on an object whose alter takes Gravitino's `updates` (metalake, catalog, schema). */
export function SetProperties({ path, done }: { path: string; done: () => void }) {
  const [text, setText] = useState("");
  return (
    <FormPanel
      open="Set properties"
      title="Set properties"
      submitLabel="Set"
      submit={async () => {
        const props = parseProperties(text);
        if (Object.keys(props).length === 0) throw new Error("Nothing to set: write key=value lines");
        await call("PUT", path, {
          updates: Object.entries(props).map(([property, value]) => ({ "@type": "setProperty", property, value })),
        });
        setText("");
        done();
      }}
    >
      <TextArea label="Properties to set" value={text} onChange={setText} hint="One key=value per line" />
    </FormPanel>
  );
}

/**
 * A table of `rows`, one row of `cells` each, labelled for assistive technology. With `empty`,
 * no rows show that text instead; without it, the header alone. Nothing while `rows` is unknown.
 */
export function Grid<T>(props: {
  label: string;
  columns: string[];
  rows: T[] | null | undefined;
  rowKey: (row: T, index: number) => string;
  cells: (row: T) => ReactNode[];
  empty?: string;
  className?: string;
}) {
  const { rows } = props;
  if (!rows) return null;
  if (rows.length === 0 && props.empty !== undefined) return <p className="muted">{props.empty}</p>;
  return (
    <table className={props.className ? `grid ${props.className}` : "grid"} aria-label={props.label}>
      <thead>
        <tr>
          {props.columns.map((c) => (
            <th scope="col" key={c}>
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row, i) => (
          <tr key={props.rowKey(row, i)}>
            {props.cells(row).map((cell, j) => (
              <td key={j}>{cell}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
