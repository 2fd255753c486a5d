// Pictures drawn as SVG by the app itself: an Iceberg table's records and files over its
// snapshots, and a lineage graph laid out by depth.
import { objectPath, navigate } from "./router";

function Series(props: { title: string; points: { t: number; v: number; op: string }[]; unit: string }) {
  const W = 640;
  const H = 160;
  const pad = { l: 64, r: 16, t: 24, b: 28 };
  const { points } = props;
  const tMin = Math.min(...points.map((p) => p.t));
  const tMax = Math.max(...points.map((p) => p.t));
  const vMax = Math.max(1, ...points.map((p) => p.v));
  const x = (t: number) => pad.l + (tMax === tMin ? (W - pad.l - pad.r) / 2 : ((t - tMin) / (tMax - tMin)) * (W - pad.l - pad.r));
  const y = (v: number) => H - pad.b - (v / vMax) * (H - pad.t - pad.b);
  const line = points.map((p, i) => `${i === 0 ? "M" : "L"}${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`).join(" ");
  const last = points[points.length - 1];
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${props.title}: ${last?.v ?? 0} ${props.unit} at the latest of ${points.length} snapshots`}>
        <title>{props.title}</title>
        <text x={pad.l} y={14} className="chart-title">
          {props.title}
        </text>
        <line x1={pad.l} y1={H - pad.b} x2={W - pad.r} y2={H - pad.b} className="axis" />
        <line x1={pad.l} y1={pad.t} x2={pad.l} y2={H - pad.b} className="axis" />
        <text x={pad.l - 6} y={y(vMax) + 4} textAnchor="end" className="tick">
          {vMax.toLocaleString("en")}
        </text>
        <text x={pad.l - 6} y={H - pad.b + 4} textAnchor="end" className="tick">
          0
        </text>
        <text x={pad.l} y={H - 8} className="tick">
          {new Date(tMin).toISOString().slice(0, 19)}
        </text>
        <text x={W - pad.r} y={H - 8} textAnchor="end" className="tick">
          {new Date(tMax).toISOString().slice(0, 19)}
        </text>
        <path d={line} className="series" />
        {points.map((p, i) => (
          <circle key={i} cx={x(p.t)} cy={y(p.v)} r={4} className={`dot op-${p.op}`}>
            <title>{`${p.op}: ${p.v.toLocaleString("en")} ${props.unit} at ${new Date(p.t).toISOString()}`}</title>
          </circle>
        ))}
      </svg>
    </figure>
  );
}

export function SnapshotChart({ snapshots }: { snapshots: any[] }) {
  const num = (v: unknown) => (v === undefined || v === null || v === "" ? 0 : Number(v));
  const records = snapshots.map((s) => ({ t: s["timestamp-ms"], v: num(s.summary?.["total-records"]), op: s.summary?.operation ?? "" }));
  const files = snapshots.map((s) => ({ t: s["timestamp-ms"], v: num(s.summary?.["total-data-files"]), op: s.summary?.operation ?? "" }));
  return (
    <div className="charts" data-testid="snapshot-chart">
      <Series title="Records" points={records} unit="records" />
      <Series title="Data files" points={files} unit="files" />
      <p className="legend small">
        Points by operation: <span className="dot-key op-append">append</span> <span className="dot-key op-overwrite">overwrite</span>{" "}
        <span className="dot-key op-delete">delete</span> <span className="dot-key op-replace">replace</span>
      </p>
    </div>
  );
}

interface GraphNode {
  id: string;
  type: string;
  depth: number;
  source?: string;
  namespace?: string;
  name?: string;
  object?: { metalake: string; type: string; fullName: string };
}

export function LineageGraph({ m, graph }: { m: string; graph: { nodes: GraphNode[]; edges: { from: string; to: string }[]; truncated?: boolean } }) {
  const nodes = graph.nodes ?? [];
  if (nodes.length === 0) return <p className="muted">No lineage recorded for this table.</p>;
  // A dataset at depth d sits in column 2d; the job between it and the start one column nearer.
  const column = (n: GraphNode) => (n.type === "job" ? (n.depth < 0 ? 2 * n.depth + 1 : 2 * n.depth - 1) : 2 * n.depth);
  const depths = [...new Set(nodes.map(column))].sort((a, b) => a - b);
  const columns = new Map<number, GraphNode[]>();
  for (const n of nodes) columns.set(column(n), [...(columns.get(column(n)) ?? []), n]);
  const colW = 220;
  const rowH = 64;
  const boxW = 180;
  const boxH = 40;
  const maxRows = Math.max(...[...columns.values()].map((c) => c.length));
  const W = depths.length * colW + 20;
  const H = maxRows * rowH + 20;
  const pos = new Map<string, { x: number; y: number }>();
  depths.forEach((d, ci) => {
    (columns.get(d) ?? []).forEach((n, ri) => pos.set(n.id, { x: 10 + ci * colW, y: 10 + ri * rowH }));
  });
  const label = (n: GraphNode) =>
    n.source === "hidden" ? "(not visible to you)" : n.type === "job" ? `job ${n.name}` : n.object?.fullName ?? n.name ?? n.id;
  return (
    <figure className="lineage">
      <svg viewBox={`0 0 ${W} ${H}`} width={W} height={H} role="img" aria-label={`Lineage graph with ${nodes.length} nodes`} data-testid="lineage-graph">
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" className="arrowhead" />
          </marker>
        </defs>
        {(graph.edges ?? []).map((e, i) => {
          const a = pos.get(e.from);
          const b = pos.get(e.to);
          if (!a || !b) return null;
          return <line key={i} x1={a.x + boxW} y1={a.y + boxH / 2} x2={b.x} y2={b.y + boxH / 2} className="edge" markerEnd="url(#arrow)" />;
        })}
        {nodes.map((n) => {
          const p = pos.get(n.id)!;
          const target = n.object && n.object.metalake === m ? n.object.fullName.split(".") : null;
          return (
            <g
              key={n.id}
              className={`node ${n.type} ${n.source ?? ""} ${n.depth === 0 ? "start" : ""}`}
              transform={`translate(${p.x},${p.y})`}
              onClick={() => target && target.length >= 3 && navigate(objectPath(m, target[0], target[1], "table", target.slice(2).join(".")))}
            >
              <rect width={boxW} height={boxH} rx={n.type === "job" ? 20 : 4} />
              <text x={10} y={24}>
                {label(n).length > 26 ? label(n).slice(0, 25) + "…" : label(n)}
              </text>
              <title>{`${n.type} ${label(n)}${n.namespace ? ` (${n.namespace})` : ""}, depth ${n.depth}`}</title>
            </g>
          );
        })}
      </svg>
      <figcaption className="small muted">
        Data flows left to right. {graph.truncated ? "The walk stopped at its limit." : ""}
      </figcaption>
    </figure>
  );
}
