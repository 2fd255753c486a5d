// Every call the UI makes goes through here: the Gravitino API (/api), the audit log
// (/api/audit) and the Iceberg REST catalog (/iceberg), with the signed-in principal's
// Authorization header. The server's authorizer decides what comes back.

export interface Session {
  user: string;
  authorization: string; // the header value, "Basic ..." or "Bearer ..."
}

const KEY = "cairn.session";

export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    return raw ? (JSON.parse(raw) as Session) : null;
  } catch {
    return null;
  }
}

export function saveSession(s: Session | null): void {
  if (s) sessionStorage.setItem(KEY, JSON.stringify(s));
  else sessionStorage.removeItem(KEY);
}

export function basicHeader(user: string, password: string): string {
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  let bin = "";
  bytes.forEach((b) => (bin += String.fromCharCode(b)));
  return `Basic ${btoa(bin)}`;
}

/** The principal named by a bearer token's `sub` (shown only; the server verifies the token). */
export function tokenSubject(token: string): string {
  try {
    const part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    const claims = JSON.parse(atob(part + "===".slice((part.length + 3) % 4)));
    return String(claims.sub ?? claims.preferred_username ?? "token");
  } catch {
    return "token";
  }
}

export class ApiError extends Error {
  constructor(public status: number, message: string, public type = "") {
    super(message);
  }
}

let current: Session | null = loadSession();
let onUnauthorized: () => void = () => {};

export function setSession(s: Session | null): void {
  current = s;
  saveSession(s);
}
export function session(): Session | null {
  return current;
}
export function whenUnauthorized(f: () => void): void {
  onUnauthorized = f;
}

/** Percent-encodes one path segment. */
export const seg = (s: string) => encodeURIComponent(s);

export async function call<T = any>(
  method: string,
  path: string,
  body?: unknown,
  auth: string | null = current?.authorization ?? null,
): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/vnd.gravitino.v1+json" };
  if (auth) headers.Authorization = auth;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let r: Response;
  try {
    r = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "omit",
    });
  } catch (e) {
    throw new ApiError(0, `The server did not answer (${String(e)})`);
  }
  const text = await r.text();
  let json: any = null;
  try {
    json = text ? parseJson(text) : null;
  } catch {
    json = null;
  }
  if (!r.ok) {
    // Gravitino: {code, type, message}; Iceberg: {error: {message, type, code}}.
    const message =
      json?.message ?? json?.error?.message ?? (text ? text.slice(0, 300) : r.statusText);
    const type = json?.type ?? json?.error?.type ?? "";
    if (r.status === 401 && auth === current?.authorization) onUnauthorized();
    throw new ApiError(r.status, message, type);
  }
  return json as T;
}

/**
 * JSON.parse, keeping integers a double cannot hold (Iceberg's 64-bit snapshot ids) as their
 * exact decimal text, where the browser hands the reviver the source text.
 */
export function parseJson(text: string): any {
  const reviver = (_key: string, value: unknown, context?: { source?: string }) =>
    typeof value === "number" && !Number.isSafeInteger(value) && context?.source && /^-?\d+$/.test(context.source)
      ? context.source
      : value;
  return JSON.parse(text, reviver as (this: any, key: string, value: any) => any);
}

export const get = <T = any>(path: string) => call<T>("GET", path);
export const post = <T = any>(path: string, body: unknown) => call<T>("POST", path, body);
export const put = <T = any>(path: string, body: unknown) => call<T>("PUT", path, body);
export const del = <T = any>(path: string) => call<T>("DELETE", path);

// ---- Paths -----------------------------------------------------------------------------------

export const ml = (m: string) => `/api/metalakes/${seg(m)}`;
export const cat = (m: string, c: string) => `${ml(m)}/catalogs/${seg(c)}`;
export const sch = (m: string, c: string, s: string) => `${cat(m, c)}/schemas/${seg(s)}`;

/** The object kinds a schema holds, by their collection in the Gravitino API. */
export const KINDS = [
  { kind: "table", collection: "tables", label: "Tables" },
  { kind: "view", collection: "views", label: "Views" },
  { kind: "fileset", collection: "filesets", label: "Filesets" },
  { kind: "topic", collection: "topics", label: "Topics" },
  { kind: "model", collection: "models", label: "Models" },
  { kind: "function", collection: "functions", label: "Functions" },
] as const;
export type Kind = (typeof KINDS)[number]["kind"];

/** Which kinds a catalog of this type can hold. */
export function kindsOf(catalogType: string): Kind[] {
  switch (catalogType.toLowerCase()) {
    case "relational":
      return ["table", "view", "function"];
    case "fileset":
      return ["fileset", "function"];
    case "messaging":
      return ["topic"];
    case "model":
      return ["model"];
    default:
      return ["table"];
  }
}

export interface Identifier {
  namespace: string[];
  name: string;
}

export interface Page<T> {
  items: T[];
  next: string | null;
}

/** One page of a list route (pageSize/pageToken; every list of the Gravitino API takes them). */
export async function listPage(
  path: string,
  pageSize: number,
  token: string | null,
  filter = "",
): Promise<Page<string>> {
  const q = new URLSearchParams({ pageSize: String(pageSize) });
  if (token) q.set("pageToken", token);
  if (filter) q.set("nameContains", filter);
  const r = await get(`${path}?${q}`);
  const names: string[] = (r.identifiers ?? []).map((i: Identifier) => i.name);
  return { items: names, next: r.nextPageToken ?? null };
}

export function fmtTime(ms: number | string | undefined): string {
  if (ms === undefined || ms === null || ms === "") return "";
  const d = typeof ms === "number" ? new Date(ms) : new Date(ms);
  return isNaN(d.getTime()) ? String(ms) : d.toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z");
}
