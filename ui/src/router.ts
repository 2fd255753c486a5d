// Paths under /ui are the app's pages; the server answers index.html for each, so a deep link
// or a reload lands on the same page.
import { useEffect, useState } from "react";

const BASE = "/ui";

export function currentPath(): string {
  const p = window.location.pathname;
  return p.startsWith(BASE) ? p.slice(BASE.length) || "/" : "/";
}

export function currentQuery(): URLSearchParams {
  return new URLSearchParams(window.location.search);
}

const listeners = new Set<() => void>();

export function navigate(path: string, replace = false): void {
  const url = BASE + path;
  if (replace) window.history.replaceState(null, "", url);
  else window.history.pushState(null, "", url);
  listeners.forEach((l) => l());
  window.scrollTo(0, 0);
}

export function usePath(): string {
  const [path, setPath] = useState(currentPath() + window.location.search);
  useEffect(() => {
    const update = () => setPath(currentPath() + window.location.search);
    listeners.add(update);
    window.addEventListener("popstate", update);
    return () => {
      listeners.delete(update);
      window.removeEventListener("popstate", update);
    };
  }, []);
  return path;
}

/** The page's path segments, decoded. */
export function segments(path: string): string[] {
  return path
    .split("?")[0]
    .split("/")
    .filter((s) => s.length > 0)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
}

export const enc = (s: string) => encodeURIComponent(s);
export const objectPath = (m: string, c?: string, s?: string, kind?: string, name?: string) => {
  let p = `/m/${enc(m)}`;
  if (c !== undefined) p += `/c/${enc(c)}`;
  if (s !== undefined) p += `/s/${enc(s)}`;
  if (kind !== undefined && name !== undefined) p += `/${kind}/${enc(name)}`;
  return p;
};
