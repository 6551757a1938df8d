// The rpsl graph explorer (src/cli/graph_page). Reads the embedded dump (docs/cli.md) and the
// per-frame facts, draws the views on canvases (only what is visible), and keeps one shared
// time axis: schedule positions mapped to pixels by `view` (zoom and pan).
'use strict';

const DUMP = JSON.parse(document.getElementById('dump').textContent);
const FACTS = JSON.parse(document.getElementById('facts').textContent);
const QUEUE_COLOURS = ['#6fa8dc', '#f6b26b', '#93c47d', '#c27ba0', '#ffd966'];
const MARGIN = 110; // left margin of every canvas (lane and row labels), px
const LANE_H = 46;
const AXIS_H = 20;
const ROW_H = 16;
const HEAP_H = 260;
const CHAR_W = 6.4; // average label character width at 12px, px

const $ = (id) => document.getElementById(id);
const state = { frame: 0, compare: null, selection: null, showEdges: true, drawnLabels: [] };
const view = { x0: 0, scale: 1 };
let model = null;
let modelB = null;

/** Everything a frame's views need, indexed once. */
function prepare(index) {
  const frame = DUMP.frames[index];
  const facts = expandNames(FACTS[index]);
  const s = frame.schedule;
  const nodes = frame.nodes;
  const resources = frame.resources;
  const position = new Int32Array(nodes.length).fill(-1);
  s.order.forEach((node, p) => { position[node] = p; });
  const queueNames = Object.keys(s.queues).map(Number).sort((a, b) => a - b).map((k) => s.queues[k]);
  const queueOf = (node) => s.node_queues[node] || 0;
  const preds = nodes.map(() => []);
  const succs = nodes.map(() => []);
  const edges = facts.edges.map(([from, to, kind, reasons], i) => {
    preds[to].push(i);
    succs[from].push(i);
    return { from, to, kind, reasons };
  });
  const resourceNodes = resources.map(() => []);
  const nodeResources = nodes.map((node, n) => {
    const set = [];
    for (const access of node.accesses) {
      if (!set.includes(access.resource)) set.push(access.resource);
      const users = resourceNodes[access.resource];
      if (users[users.length - 1] !== n) users.push(n);
    }
    return set;
  });
  const batchAt = new Map();
  facts.batches.forEach((batch, i) => batchAt.set(batch.position, i));
  const culledWhy = new Map(facts.culled.map((c) => [c.node, c.why]));
  const rows = [];
  resources.forEach((resource, r) => {
    const touches = resourceNodes[r].map((n) => position[n]).filter((p) => p >= 0).sort((a, b) => a - b);
    rows.push({ resource: r, label: resourceName(resources, r), span: facts.lifetimes[r], touches, sub: false });
    for (const sub of facts.subresources[r] || []) {
      rows.push({ resource: r, label: sub.label, span: sub.span, touches: sub.touches, sub: true });
    }
  });
  const placed = [];
  resources.forEach((resource, r) => {
    if (resource.placement && facts.lifetimes[r]) placed.push(r);
  });
  const model = {
    index, frame, facts, s, nodes, resources, position, queueNames, queueOf, edges, preds, succs,
    resourceNodes, nodeResources, batchAt, culledWhy, rows, placed, reuses: new Map(),
  };
  // The resource whose bytes each placed resource takes over (computed in Rust).
  (facts.reuses || []).forEach((q, r) => { if (q !== null) model.reuses.set(r, q); });
  return model;
}

/** A resource's name; `name #id` where several resources share it; `resource id` unnamed. */
/** Replaces the facts' name indices (edge reasons, barriers) by objects, once per frame. */
function expandNames(facts) {
  if (facts.expanded) return facts;
  const names = facts.names;
  for (const edge of facts.edges) {
    edge[3] = edge[3].map(([resource, range]) => ({ resource, range: names[range] }));
  }
  for (const batch of facts.batches) {
    batch.barriers = batch.barriers.map((b) => {
      const t = {
        resource: b[0], range: names[b[1]], old_layout: names[b[2]], new_layout: names[b[3]],
        src_stages: names[b[4]], src_access: names[b[5]], dst_stages: names[b[6]], dst_access: names[b[7]],
      };
      if (b.length > 8) [t.src_queue, t.dst_queue] = [b[8], b[9]];
      return t;
    });
  }
  facts.expanded = true;
  return facts;
}

function resourceName(resources, r) {
  if (!resources.labels) {
    const uses = new Map();
    for (const res of resources) if (res.name !== null) uses.set(res.name, (uses.get(res.name) || 0) + 1);
    resources.labels = resources.map((res, i) => (res.name === null ? 'resource ' + i
      : uses.get(res.name) > 1 ? `${res.name} #${i}` : res.name));
  }
  return resources.labels[r] === undefined ? 'resource ' + r : resources.labels[r];
}

function overlapsBytes(m, a, b) {
  const pa = m.resources[a].placement;
  const pb = m.resources[b].placement;
  return pa.offset < pb.offset + pb.size && pb.offset < pa.offset + pa.size;
}

/** Resources sharing bytes with `r` in the transient heap (at other times). */
function aliasesOf(m, r) {
  if (!m.resources[r] || !m.resources[r].placement) return [];
  return m.placed.filter((q) => q !== r && overlapsBytes(m, q, r));
}

// ---- the shared time axis ----

const xOf = (p) => MARGIN + (p - view.x0) * view.scale;
const posAt = (px) => (px - MARGIN) / view.scale + view.x0;
const boxWidth = () => Math.max(1, view.scale - (view.scale > 8 ? 2 : 0));

function cssWidth(canvas) { return Math.max(200, canvas.clientWidth || 800); }

function fit() {
  const width = cssWidth($('timeline')) - MARGIN - 10;
  view.scale = width / Math.max(1, model.s.order.length);
  view.x0 = 0;
  redraw();
}

function zoomAt(px, factor) {
  const p = posAt(px);
  view.scale = Math.min(400, Math.max(1e-3, view.scale * factor));
  view.x0 = p - (px - MARGIN) / view.scale;
  redraw();
}

/** Sizes a canvas for its CSS box and the device pixel ratio; returns its 2D context. */
function setup(canvas, height) {
  const ratio = window.devicePixelRatio || 1;
  const width = cssWidth(canvas);
  canvas.style.height = height + 'px';
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  const ctx = canvas.getContext('2d');
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, width, height);
  ctx.font = '12px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  return { ctx, width, height };
}

/** `text` cut to `px` pixels (with an ellipsis), or null when not even 3 characters fit. */
function fitText(text, px) {
  const chars = Math.floor(px / CHAR_W);
  if (chars >= text.length) return text;
  if (chars < 3) return null;
  return text.slice(0, chars - 1) + '…';
}

function visibleRange(m, width) {
  const lo = Math.max(0, Math.floor(posAt(MARGIN)) - 1);
  const hi = Math.min(m.s.order.length - 1, Math.ceil(posAt(width)) + 1);
  return [lo, hi];
}

function drawAxis(ctx, width, count) {
  const step = niceStep(70 / view.scale);
  const [lo, hi] = [Math.max(0, Math.floor(posAt(MARGIN) / step) * step), Math.min(count, posAt(width))];
  ctx.fillStyle = '#888';
  ctx.textAlign = 'left';
  for (let p = lo; p <= hi; p += step) {
    const x = xOf(p);
    if (x < MARGIN) continue;
    ctx.fillRect(x, AXIS_H - 5, 1, 5);
    ctx.fillText('#' + p, x + 2, 8);
  }
}

function niceStep(raw) {
  const base = Math.pow(10, Math.floor(Math.log10(Math.max(1, raw))));
  for (const k of [1, 2, 5, 10]) if (base * k >= raw) return base * k;
  return base * 10;
}

// ---- selection ----

/** Related items of the selection: nodes, resources, batches, edges (sets of indices). */
function related(m) {
  const key = state.selection && `${m.index}:${state.selection.kind}:${state.selection.id}`;
  if (relatedCache.model !== m || relatedCache.key !== key) {
    relatedCache.model = m;
    relatedCache.key = key;
    relatedCache.value = computeRelated(m);
  }
  return relatedCache.value;
}

const relatedCache = { model: null, key: null, value: null };

function computeRelated(m) {
  const sel = state.selection;
  const out = { nodes: new Set(), resources: new Set(), batches: new Set(), edges: new Set() };
  if (!sel) return out;
  if (sel.kind === 'node' && sel.id < m.nodes.length) {
    out.nodes.add(sel.id);
    for (const e of m.preds[sel.id].concat(m.succs[sel.id])) {
      out.edges.add(e);
      out.nodes.add(m.edges[e].from);
      out.nodes.add(m.edges[e].to);
    }
    for (const r of m.nodeResources[sel.id]) out.resources.add(r);
    const b = m.batchAt.get(m.position[sel.id]);
    if (b !== undefined) out.batches.add(b);
  } else if (sel.kind === 'resource' && sel.id < m.resources.length) {
    out.resources.add(sel.id);
    for (const n of m.resourceNodes[sel.id]) out.nodes.add(n);
    m.edges.forEach((edge, e) => {
      if (edge.reasons.some((reason) => reason.resource === sel.id)) out.edges.add(e);
    });
    m.facts.batches.forEach((batch, b) => {
      if (batch.barriers.some((t) => t.resource === sel.id)) out.batches.add(b);
    });
  } else if (sel.kind === 'batch' && sel.id < m.facts.batches.length) {
    out.batches.add(sel.id);
    const batch = m.facts.batches[sel.id];
    const node = m.s.order[batch.position];
    if (node !== undefined) out.nodes.add(node);
    for (const t of batch.barriers) out.resources.add(t.resource);
  }
  return out;
}

/** Selects a node, resource or batch of the current frame (anything else clears). */
function select(kind, id) {
  const count = { node: model.nodes.length, resource: model.resources.length, batch: model.facts.batches.length }[kind];
  const valid = count !== undefined && Number.isInteger(id) && id >= 0 && id < count;
  state.selection = valid ? { kind, id } : null;
  showDetails();
  redraw();
}

// ---- the timeline ----

const laneCentre = (q) => AXIS_H + q * LANE_H + LANE_H / 2;

function drawTimeline(canvas, m, rel, recordLabels) {
  const lanes = Math.max(1, m.queueNames.length);
  const { ctx, width } = setup(canvas, AXIS_H + lanes * LANE_H + 6);
  const [lo, hi] = visibleRange(m, width);
  const w = boxWidth();
  const selecting = state.selection !== null;
  for (let q = 0; q < lanes; q++) {
    ctx.fillStyle = q % 2 ? '#f4f6f8' : '#fbfbfb';
    ctx.fillRect(MARGIN, AXIS_H + q * LANE_H, width - MARGIN, LANE_H);
  }
  // Below half a pixel per position, edges are a grey smear: only the selection's are drawn.
  const dense = view.scale < 0.5;
  if ((state.showEdges && !dense) || rel.edges.size) drawEdges(ctx, m, rel, lo, hi, w, dense);
  const labels = [];
  const lastColumn = new Float64Array(lanes).fill(-1);
  for (let p = lo; p <= hi; p++) {
    const node = m.s.order[p];
    const q = m.queueOf(node);
    const x = xOf(p);
    const y = AXIS_H + q * LANE_H + 8;
    const lit = rel.nodes.has(node);
    // Zoomed out, many nodes share a pixel column: one box per column and lane is enough.
    const column = Math.floor(x);
    if (w < 1.5 && !lit && lastColumn[q] === column) continue;
    lastColumn[q] = column;
    const alpha = selecting && !lit ? 0.35 : 1;
    if (ctx.globalAlpha !== alpha) ctx.globalAlpha = alpha;
    ctx.fillStyle = QUEUE_COLOURS[q % QUEUE_COLOURS.length];
    ctx.fillRect(x, y, w, LANE_H - 16);
    if (lit) {
      ctx.strokeStyle = state.selection.kind === 'node' && state.selection.id === node ? '#000' : '#1a5fb4';
      ctx.lineWidth = 2;
      ctx.strokeRect(x + 1, y + 1, Math.max(1, w - 2), LANE_H - 18);
    }
    const text = w > 16 ? fitText(m.nodes[node].name, w - 6) : null;
    if (text !== null) {
      ctx.fillStyle = '#111';
      ctx.textAlign = 'left';
      ctx.fillText(text, x + 3, y + (LANE_H - 16) / 2);
      labels.push(text);
    }
  }
  ctx.globalAlpha = 1;
  const top = AXIS_H;
  const bottom = AXIS_H + lanes * LANE_H;
  let lastBatchColumn = -1;
  m.facts.batches.forEach((batch, b) => {
    if (batch.position < lo || batch.position > hi + 1) return;
    const x = xOf(batch.position);
    const lit = rel.batches.has(b);
    if (!lit && Math.floor(x) === lastBatchColumn) return;
    lastBatchColumn = Math.floor(x);
    ctx.fillStyle = lit ? '#ff0000' : '#cc0000';
    ctx.globalAlpha = selecting && !lit ? 0.4 : 1;
    ctx.fillRect(x - (lit ? 2.5 : 1.5), top, lit ? 5 : 3, bottom - top);
    if (view.scale > 30) {
      ctx.fillStyle = '#a00';
      ctx.textAlign = 'center';
      ctx.fillText(String(batch.barriers.length), x, bottom + 0);
    }
  });
  ctx.globalAlpha = 1;
  ctx.strokeStyle = '#8e44ad';
  ctx.fillStyle = '#8e44ad';
  ctx.lineWidth = 1.5;
  for (const wait of m.s.queue_waits) {
    const x1 = xOf(wait.signal_after) + w;
    const x2 = xOf(wait.wait_before);
    if (Math.max(x1, x2) < MARGIN || Math.min(x1, x2) > width) continue;
    arrow(ctx, x1, laneCentre(wait.signal_queue), x2, laneCentre(wait.wait_queue));
  }
  drawAxis(ctx, width, m.s.order.length);
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, MARGIN - 1, bottom + 6);
  ctx.fillStyle = '#222';
  ctx.textAlign = 'left';
  m.queueNames.forEach((name, q) => ctx.fillText(name, 6, laneCentre(q)));
  if (recordLabels) state.drawnLabels = labels;
}

function arrow(ctx, x1, y1, x2, y2) {
  ctx.beginPath();
  ctx.moveTo(x1, y1);
  ctx.lineTo(x2, y2);
  ctx.stroke();
  const angle = Math.atan2(y2 - y1, x2 - x1);
  ctx.beginPath();
  ctx.moveTo(x2, y2);
  ctx.lineTo(x2 - 8 * Math.cos(angle - 0.4), y2 - 8 * Math.sin(angle - 0.4));
  ctx.lineTo(x2 - 8 * Math.cos(angle + 0.4), y2 - 8 * Math.sin(angle + 0.4));
  ctx.fill();
}

/** Dependency edges touching the visible range: grey (dashed for order-only), related blue. */
function drawEdges(ctx, m, rel, lo, hi, w, onlyRelated) {
  const paths = { data: new Path2D(), order: new Path2D(), lit: new Path2D() };
  m.edges.forEach((edge, e) => {
    const a = m.position[edge.from];
    const b = m.position[edge.to];
    if (a < 0 || b < 0 || (a < lo && b < lo) || (a > hi && b > hi)) return;
    const lit = rel.edges.has(e);
    if (!lit && (!state.showEdges || onlyRelated)) return;
    const path = lit ? paths.lit : paths[edge.kind];
    const qa = m.queueOf(edge.from);
    const qb = m.queueOf(edge.to);
    const x1 = xOf(a) + w;
    const x2 = xOf(b);
    if (qa === qb) {
      const yTop = AXIS_H + qa * LANE_H + 8;
      const lift = Math.min(LANE_H / 2 - 4, 4 + Math.abs(x2 - x1) * 0.08);
      path.moveTo(x1 - w / 2, yTop);
      path.bezierCurveTo(x1 - w / 2, yTop - lift, x2 + w / 2, yTop - lift, x2 + w / 2, yTop);
    } else {
      const y1 = laneCentre(qa);
      const y2 = laneCentre(qb);
      path.moveTo(x1, y1);
      path.bezierCurveTo(x1 + 20, y1, x2 - 20, y2, x2, y2);
    }
  });
  ctx.lineWidth = 1;
  ctx.strokeStyle = 'rgba(60,60,60,0.45)';
  ctx.stroke(paths.data);
  ctx.setLineDash([3, 3]);
  ctx.stroke(paths.order);
  ctx.setLineDash([]);
  ctx.lineWidth = 2;
  ctx.strokeStyle = '#1a5fb4';
  ctx.stroke(paths.lit);
}

function timelineHit(m, px, py) {
  const p = Math.floor(posAt(px));
  for (const [b, batch] of m.facts.batches.entries()) {
    if (Math.abs(xOf(batch.position) - px) <= 3) return { kind: 'batch', id: b };
  }
  if (p < 0 || p >= m.s.order.length || px < MARGIN) return null;
  const node = m.s.order[p];
  const q = Math.floor((py - AXIS_H) / LANE_H);
  return q === m.queueOf(node) ? { kind: 'node', id: node } : null;
}

// ---- lifetimes ----

function drawLifetimes(m, rel) {
  const scroll = $('life-scroll');
  $('life-spacer').style.height = Math.max(ROW_H, m.rows.length * ROW_H) + 'px';
  scroll.style.height = Math.min(320, m.rows.length * ROW_H + 2) + 'px';
  const height = Math.min(320, m.rows.length * ROW_H + 2);
  const canvas = $('lifetimes');
  const { ctx, width } = setup(canvas, Math.max(ROW_H, height));
  const first = Math.floor(scroll.scrollTop / ROW_H);
  const offset = scroll.scrollTop - first * ROW_H;
  const w = boxWidth();
  for (let i = first; i < m.rows.length && (i - first) * ROW_H - offset < height; i++) {
    const row = m.rows[i];
    const y = (i - first) * ROW_H - offset;
    if (rel.resources.has(row.resource)) {
      ctx.fillStyle = '#e3eefc';
      ctx.fillRect(0, y, width, ROW_H);
    }
    if (row.span) {
      const x1 = Math.max(MARGIN, xOf(row.span[0]));
      const x2 = Math.min(width, xOf(row.span[1]) + w);
      if (x2 > x1) {
        ctx.fillStyle = `hsl(${(row.resource * 47) % 360},55%,${row.sub ? 78 : 65}%)`;
        ctx.fillRect(x1, y + 3, x2 - x1, ROW_H - 6);
        ctx.fillStyle = '#333';
        for (const p of row.touches) {
          const x = xOf(p) + w / 2;
          if (x >= MARGIN && x <= width) ctx.fillRect(x - 0.5, y + 2, 1, ROW_H - 4);
        }
      }
    }
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, y, MARGIN - 1, ROW_H);
    ctx.fillStyle = row.sub ? '#666' : '#222';
    ctx.textAlign = 'left';
    const text = row.sub ? '  ' + row.label : row.label;
    ctx.fillText(fitText(text, MARGIN - 8) || '', 4, y + ROW_H / 2);
  }
}

function lifetimeHit(m, py) {
  const row = m.rows[Math.floor(($('life-scroll').scrollTop + py) / ROW_H)];
  return row ? { kind: 'resource', id: row.resource } : null;
}

// ---- heap ----

function heapRect(m, r) {
  const bytes = Math.max(1, m.s.memory.transient_bytes);
  const placement = m.resources[r].placement;
  const [first, last] = m.facts.lifetimes[r];
  const y = 4 + (placement.offset / bytes) * (HEAP_H - 8);
  return {
    x: xOf(first), w: xOf(last) + boxWidth() - xOf(first), y,
    h: Math.max(2, (placement.size / bytes) * (HEAP_H - 8)),
  };
}

function drawHeap(m, rel) {
  const { ctx, width } = setup($('heap'), HEAP_H);
  const selecting = state.selection !== null;
  // Rectangles are filled per colour in one path each, outlined in one path: a heap of 10,000
  // resources draws in a handful of canvas calls. The selection's are drawn on top.
  const fills = new Map();
  const outlines = new Path2D();
  const lit = [];
  const labels = [];
  for (const r of m.placed) {
    const rect = heapRect(m, r);
    if (rect.x > width || rect.x + rect.w < MARGIN) continue;
    if (rel.resources.has(r)) {
      lit.push([r, rect]);
      continue;
    }
    const hue = (r * 47) % 360;
    if (!fills.has(hue)) fills.set(hue, new Path2D());
    fills.get(hue).rect(rect.x, rect.y, rect.w, rect.h);
    if (rect.w >= 4) outlines.rect(rect.x, rect.y, rect.w, rect.h);
    if (rect.h >= 12 && rect.w >= 30) labels.push([r, rect]);
  }
  ctx.globalAlpha = selecting ? 0.35 : 1;
  for (const [hue, path] of fills) {
    ctx.fillStyle = `hsl(${hue},55%,65%)`;
    ctx.fill(path);
  }
  ctx.strokeStyle = '#555';
  ctx.lineWidth = 0.5;
  ctx.stroke(outlines);
  for (const [r, rect] of labels) heapLabel(ctx, m, r, rect, width);
  ctx.globalAlpha = 1;
  for (const [r, rect] of lit) {
    ctx.fillStyle = `hsl(${(r * 47) % 360},55%,65%)`;
    ctx.fillRect(rect.x, rect.y, rect.w, rect.h);
    ctx.strokeStyle = '#000';
    ctx.lineWidth = 2;
    ctx.strokeRect(rect.x, rect.y, rect.w, rect.h);
    if (rect.h >= 12) heapLabel(ctx, m, r, rect, width);
  }
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, MARGIN - 1, HEAP_H);
  ctx.fillStyle = '#222';
  ctx.textAlign = 'left';
  ctx.fillText('0', 6, 10);
  ctx.fillText((m.s.memory.transient_bytes / 1e6).toFixed(2) + ' MB', 6, HEAP_H - 10);
}

/** `name (reuses other)` inside a heap rectangle, where it fits. */
function heapLabel(ctx, m, r, rect, width) {
  const reuses = m.reuses.get(r);
  const name = resourceName(m.resources, r);
  const label = reuses === undefined ? name : `${name} (reuses ${resourceName(m.resources, reuses)})`;
  const text = fitText(label, Math.min(rect.x + rect.w, width) - Math.max(rect.x, MARGIN) - 6);
  if (text === null) return;
  ctx.fillStyle = '#111';
  ctx.textAlign = 'left';
  ctx.fillText(text, Math.max(rect.x, MARGIN) + 3, rect.y + Math.min(rect.h, 24) / 2);
}

function heapHit(m, px, py) {
  for (let i = m.placed.length - 1; i >= 0; i--) {
    const rect = heapRect(m, m.placed[i]);
    if (px >= rect.x && px <= rect.x + rect.w && py >= rect.y && py <= rect.y + rect.h) {
      return { kind: 'resource', id: m.placed[i] };
    }
  }
  return null;
}
