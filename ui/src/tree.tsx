// The object tree: metalakes > catalogs > schemas > object kinds > objects, each level loaded
// from the API when it is opened. A WAI-ARIA tree: one tab stop, arrow keys move and open,
// Enter opens the item's page, Home/End jump.
import { KeyboardEvent, useCallback, useEffect, useRef, useState } from "react";
import { KINDS, cat, get, kindsOf, listPage, ml, sch } from "./api";
import { navigate, objectPath } from "./router";

interface Node {
  id: string;
  label: string;
  to: string;
  leaf?: boolean;
  children?: () => Promise<Node[]>;
}

const SHOWN = 100; // children listed in the tree; the page of the parent lists them all

async function names(path: string): Promise<{ names: string[]; more: boolean }> {
  const page = await listPage(path, SHOWN, null);
  return { names: page.items, more: page.next !== null };
}

function more(id: string, to: string): Node {
  return { id: `${id}/…`, label: "More…", to, leaf: true };
}

function metalakeNode(m: string): Node {
  return {
    id: `m:${m}`,
    label: m,
    to: objectPath(m),
    children: async () => {
      const r = await get(`${ml(m)}/catalogs?details=true`);
      return (r.catalogs ?? []).map((c: any) => catalogNode(m, c.name, c.type));
    },
  };
}

function catalogNode(m: string, c: string, type: string): Node {
  const id = `c:${m}/${c}`;
  return {
    id,
    label: c,
    to: objectPath(m, c),
    children: async () => {
      const r = await names(`${cat(m, c)}/schemas`);
      const out = r.names.map((s) => schemaNode(m, c, s, type));
      if (r.more) out.push(more(id, objectPath(m, c)));
      return out;
    },
  };
}

function schemaNode(m: string, c: string, s: string, type: string): Node {
  const id = `s:${m}/${c}/${s}`;
  return {
    id,
    label: s,
    to: objectPath(m, c, s),
    children: async () =>
      KINDS.filter((k) => kindsOf(type).includes(k.kind)).map((k) => ({
        id: `${id}/${k.collection}`,
        label: k.label,
        to: objectPath(m, c, s) + `#${k.collection}`,
        children: async () => {
          const r = await names(`${sch(m, c, s)}/${k.collection}`);
          const out: Node[] = r.names.map((n) => ({
            id: `${id}/${k.kind}:${n}`,
            label: n,
            to: objectPath(m, c, s, k.kind, n),
            leaf: true,
          }));
          if (r.more) out.push(more(`${id}/${k.collection}`, objectPath(m, c, s)));
          return out;
        },
      })),
  };
}

export function ObjectTree({ refresh }: { refresh: number }) {
  const [roots, setRoots] = useState<Node[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState<Set<string>>(new Set());
  const [kids, setKids] = useState<Map<string, Node[] | "loading" | string>>(new Map());
  const [focused, setFocused] = useState<string | null>(null);
  const refs = useRef(new Map<string, HTMLLIElement>());

  useEffect(() => {
    get("/api/metalakes")
      .then((r) => {
        setRoots((r.metalakes ?? []).map((x: any) => metalakeNode(x.name)));
        setError(null);
      })
      .catch((e) => setError(String(e.message ?? e)));
    setKids(new Map());
    setOpen(new Set());
  }, [refresh]);

  const toggle = useCallback(
    (n: Node, want?: boolean) => {
      if (n.leaf || !n.children) return;
      const isOpen = open.has(n.id);
      const next = want ?? !isOpen;
      if (next === isOpen) return;
      const o = new Set(open);
      if (next) o.add(n.id);
      else o.delete(n.id);
      setOpen(o);
      if (next && !kids.has(n.id)) {
        setKids((k) => new Map(k).set(n.id, "loading"));
        n.children()
          .then((c) => setKids((k) => new Map(k).set(n.id, c)))
          .catch((e) => setKids((k) => new Map(k).set(n.id, String(e.message ?? e))));
      }
    },
    [open, kids],
  );

  // The items a keyboard user moves through, in order, with their parents.
  const visible: { node: Node; parent: Node | null }[] = [];
  const walk = (nodes: Node[], parent: Node | null) => {
    for (const n of nodes) {
      visible.push({ node: n, parent });
      const c = kids.get(n.id);
      if (open.has(n.id) && Array.isArray(c)) walk(c, n);
    }
  };
  if (roots) walk(roots, null);
  const current = focused && visible.some((v) => v.node.id === focused) ? focused : visible[0]?.node.id;

  const focus = (id: string | undefined) => {
    if (!id) return;
    setFocused(id);
    refs.current.get(id)?.focus();
  };

  const onKey = (e: KeyboardEvent, n: Node, parent: Node | null) => {
    const i = visible.findIndex((v) => v.node.id === n.id);
    switch (e.key) {
      case "ArrowDown":
        focus(visible[i + 1]?.node.id);
        break;
      case "ArrowUp":
        focus(visible[i - 1]?.node.id);
        break;
      case "ArrowRight":
        if (!n.leaf && !open.has(n.id)) toggle(n, true);
        else if (open.has(n.id)) focus(visible[i + 1]?.parent?.id === n.id ? visible[i + 1].node.id : undefined);
        break;
      case "ArrowLeft":
        if (open.has(n.id)) toggle(n, false);
        else if (parent) focus(parent.id);
        break;
      case "Home":
        focus(visible[0]?.node.id);
        break;
      case "End":
        focus(visible[visible.length - 1]?.node.id);
        break;
      case "Enter":
        navigate(n.to.split("#")[0]);
        break;
      default:
        return;
    }
    e.preventDefault();
    e.stopPropagation();
  };

  const render = (nodes: Node[], level: number, parent: Node | null) =>
    nodes.map((n, i) => {
      const c = kids.get(n.id);
      const isOpen = open.has(n.id);
      return (
        <li
          key={n.id}
          role="treeitem"
          aria-level={level}
          aria-setsize={nodes.length}
          aria-posinset={i + 1}
          aria-expanded={n.leaf ? undefined : isOpen}
          aria-selected={current === n.id}
          tabIndex={current === n.id ? 0 : -1}
          ref={(el) => {
            if (el) refs.current.set(n.id, el);
            else refs.current.delete(n.id);
          }}
          onKeyDown={(e) => onKey(e, n, parent)}
          onFocus={(e) => {
            if (e.target === e.currentTarget) setFocused(n.id);
          }}
          onClick={(e) => {
            e.stopPropagation();
            setFocused(n.id);
            if (!n.leaf) toggle(n);
            navigate(n.to.split("#")[0]);
          }}
        >
          <span className="tree-row">
            <span className="twisty" aria-hidden="true">
              {n.leaf ? "" : isOpen ? "▾" : "▸"}
            </span>
            <span className="label">{n.label}</span>
          </span>
          {isOpen && c === "loading" && <div className="muted small">Loading…</div>}
          {isOpen && typeof c === "string" && c !== "loading" && <div className="error small">{c}</div>}
          {isOpen && Array.isArray(c) && c.length > 0 && (
            <ul role="group">{render(c, level + 1, n)}</ul>
          )}
        </li>
      );
    });

  return (
    <nav aria-label="Objects" className="tree-nav">
      {error && <div className="error small">{error}</div>}
      {roots && roots.length === 0 && <p className="muted small">No metalakes yet.</p>}
      {roots && roots.length > 0 && (
        <ul role="tree" aria-label="Metalakes, catalogs and schemas" className="tree">
          {render(roots, 1, null)}
        </ul>
      )}
    </nav>
  );
}
