// Cairn's web admin UI: sign in, then browse and administer through the same REST API and
// authorizer as every client (docs/ui.md).
import { StrictMode, useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { ApiError, Session, basicHeader, call, get, session, setSession, tokenSubject, whenUnauthorized } from "./api";
import { ErrorBox, Field, Link } from "./components";
import { AccessPage, AuditPage, LineagePage, TagPage, TagsPage } from "./governance";
import { ObjectPage } from "./objects";
import { CatalogPage, MetalakePage, MetalakesPage, SchemaPage } from "./pages";
import { segments, usePath } from "./router";
import { ObjectTree } from "./tree";
import "./style.css";

function SignIn({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [authenticators, setAuthenticators] = useState<string[] | null>(null);
  const [mode, setMode] = useState("basic");
  const [user, setUser] = useState("");
  const [password, setPassword] = useState("");
  const [token, setToken] = useState("");
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    get("/configs")
      .then((c) => {
        const list: string[] = c["gravitino.authenticators"] ?? ["simple"];
        setAuthenticators(list);
        setMode(list.includes("basic") ? "basic" : list.includes("oauth2") ? "oauth2" : "simple");
      })
      .catch(() => setAuthenticators(["simple"]));
  }, []);
  const modes = (authenticators ?? []).filter((a) => ["basic", "oauth2", "simple"].includes(a));
  return (
    <main className="signin" id="main">
      <form
        aria-label="Sign in"
        onSubmit={async (e) => {
          e.preventDefault();
          setError(null);
          const authorization =
            mode === "oauth2" ? `Bearer ${token.trim()}` : basicHeader(user, mode === "basic" ? password : "");
          const name = mode === "oauth2" ? tokenSubject(token.trim()) : user;
          try {
            // Any authenticated call tells whether the credentials hold.
            await call("GET", "/api/metalakes", undefined, authorization);
            onSignedIn({ user: name, authorization });
          } catch (err) {
            setError((err as ApiError).status === 401 ? new ApiError(401, "Wrong user name, password or token") : err);
          }
        }}
      >
        <h1>Sign in to Cairn</h1>
        {modes.length > 1 && (
          <fieldset className="modes">
            <legend>Sign in with</legend>
            {modes.map((m) => (
              <label key={m}>
                <input type="radio" name="mode" value={m} checked={mode === m} onChange={() => setMode(m)} />
                {m === "basic" ? "user name and password" : m === "oauth2" ? "OAuth2 bearer token" : "user name only"}
              </label>
            ))}
          </fieldset>
        )}
        {mode !== "oauth2" && <Field label="User name" name="username" value={user} onChange={setUser} autoComplete="username" required />}
        {mode === "basic" && (
          <Field label="Password" name="password" type="password" value={password} onChange={setPassword} autoComplete="current-password" required />
        )}
        {mode === "oauth2" && (
          <div className="field">
            <label htmlFor="token">Bearer token</label>
            <textarea id="token" rows={4} value={token} onChange={(e) => setToken(e.target.value)} required />
          </div>
        )}
        {mode === "simple" && <p className="muted small">This server does not check passwords (simple authentication).</p>}
        <ErrorBox error={error} />
        <button type="submit" className="primary">
          Sign in
        </button>
      </form>
    </main>
  );
}

function Page({ path, bump }: { path: string; bump: () => void }) {
  const s = segments(path);
  if (s.length === 0) return <MetalakesPage onChange={bump} />;
  if (s[0] === "audit") return <AuditPage />;
  if (s[0] === "m" && s.length >= 2) {
    const m = s[1];
    if (s.length === 2) return <MetalakePage m={m} onChange={bump} />;
    if (s[2] === "tags") return s.length >= 4 ? <TagPage m={m} tag={s[3]} /> : <TagsPage m={m} />;
    if (s[2] === "access") return <AccessPage m={m} />;
    if (s[2] === "lineage") return <LineagePage m={m} />;
    if (s[2] === "c" && s.length >= 4) {
      const c = s[3];
      if (s.length === 4) return <CatalogPage m={m} c={c} onChange={bump} />;
      if (s[4] === "s" && s.length >= 6) {
        const sc = s[5];
        if (s.length === 6) return <SchemaPage m={m} c={c} s={sc} />;
        if (s.length >= 8) return <ObjectPage m={m} c={c} s={sc} kind={s[6]} name={s[7]} />;
      }
    }
  }
  return (
    <>
      <h1>Not found</h1>
      <p>
        No page at this address. <Link to="/">All metalakes</Link>
      </p>
    </>
  );
}

function App() {
  const [who, setWho] = useState<Session | null>(session());
  const [treeTick, setTreeTick] = useState(0);
  const path = usePath();
  useEffect(() => whenUnauthorized(() => signOut()), []);
  const signOut = () => {
    setSession(null);
    setWho(null);
  };
  if (!who) {
    return (
      <SignIn
        onSignedIn={(s) => {
          setSession(s);
          setWho(s);
        }}
      />
    );
  }
  return (
    <div className="shell">
      <a href="#main" className="skip">
        Skip to content
      </a>
      <header className="top">
        <Link to="/" className="brand">
          Cairn
        </Link>
        <nav aria-label="Main">
          <Link to="/">Metalakes</Link>
          <Link to="/audit">Audit log</Link>
        </nav>
        <span className="who">
          Signed in as <strong data-testid="principal">{who.user || "anonymous"}</strong>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </span>
      </header>
      <aside className="side">
        <ObjectTree refresh={treeTick} />
      </aside>
      <main id="main" className="content" tabIndex={-1}>
        <Page path={path} bump={() => setTreeTick((t) => t + 1)} />
      </main>
    </div>
  );
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
