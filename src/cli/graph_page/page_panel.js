// The explorer's details panel, frame comparison, input handling and `#selftest` report
// (follows page.js in the same script element).
'use strict';

function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

const nodeRef = (m, n) => `<a class="ref" data-kind="node" data-id="${n}">${esc(m.nodes[n].name)} (node ${n})</a>`;
const resourceRef = (m, r) => `<a class="ref" data-kind="resource" data-id="${r}">${esc(resourceName(m.resources, r))}</a>`;
const batchRef = (m, b) => `<a class="ref" data-kind="batch" data-id="${b}">batch before #${m.facts.batches[b].position}</a>`;

function accessRange(access) {
  if (access.bytes) return `bytes ${access.bytes[0]}+${access.bytes[1]}`;
  return `mips ${access.mips[0]}+${access.mips[1]}, layers ${access.layers[0]}+${access.layers[1]}`;
}

/** One transition as text: resource, range, layouts, stages and accesses, queue transfer. */
function transitionText(m, t) {
  let text = `${resourceName(m.resources, t.resource)} [${t.range}]\n  ${t.old_layout} → ${t.new_layout}\n`
    + `  src ${t.src_stages} / ${t.src_access}\n  dst ${t.dst_stages} / ${t.dst_access}`;
  if (t.src_queue !== undefined) {
    text += `\n  queue ${m.queueNames[t.src_queue]} → ${m.queueNames[t.dst_queue]}`;
  }
  return text;
}

function edgeText(m, edge, other) {
  const why = edge.reasons.length
    ? edge.reasons.map((r) => `${resourceRef(m, r.resource)} [${esc(r.range)}]`).join('; ')
    : 'explicit dependency';
  return `${nodeRef(m, other)} — ${edge.kind}: ${why}`;
}

function showDetails() {
  const m = model;
  const sel = state.selection;
  const panel = $('details');
  if (!sel) {
    panel.innerHTML = '<p class="hint">Select a node, barrier batch or resource.</p>';
    return;
  }
  let html = '';
  if (sel.kind === 'node') {
    const node = m.nodes[sel.id];
    const p = m.position[sel.id];
    html += `<h3>${esc(node.name)} <small>node ${sel.id}</small></h3>`;
    html += p >= 0
      ? `<p>position #${p} on ${esc(m.queueNames[m.queueOf(sel.id)])}${node.async ? ' (async)' : ''}</p>`
      : `<p><b>culled</b>: ${esc(m.culledWhy.get(sel.id) || '')}</p>`;
    html += '<h3>Accesses</h3><ul>' + node.accesses.map((a) =>
      `<li>${esc(a.param)}: ${resourceRef(m, a.resource)} ${esc(accessRange(a))} — ${esc(a.access.join(', '))} (${esc(a.mode)})</li>`).join('') + '</ul>';
    html += '<h3>Depends on</h3><ul>' + m.preds[sel.id].map((e) => `<li>${edgeText(m, m.edges[e], m.edges[e].from)}</li>`).join('') + '</ul>';
    html += '<h3>Needed by</h3><ul>' + m.succs[sel.id].map((e) => `<li>${edgeText(m, m.edges[e], m.edges[e].to)}</li>`).join('') + '</ul>';
    const waits = waitLines(m, sel.id);
    if (waits.length) html += '<h3>Cross-queue</h3><ul>' + waits.map((w) => `<li>${w}</li>`).join('') + '</ul>';
    const b = m.batchAt.get(p);
    if (b !== undefined) html += batchHtml(m, b);
    const pass = m.s.render_passes.find((rp) => rp.node === sel.id);
    if (pass) {
      html += `<h3>Render pass</h3><p>${pass.extent.join('×')}, ${pass.samples} samples; `
        + pass.colors.map((c) => `colour ${c.slot}: ${resourceRef(m, c.resource)} ${c.load}/${c.store}`).join('; ')
        + (pass.depth_stencil ? `; depth: ${resourceRef(m, pass.depth_stencil.resource)}` : '') + '</p>';
    }
  } else if (sel.kind === 'resource') {
    const r = sel.id;
    const res = m.resources[r];
    html += `<h3>${esc(resourceName(m.resources, r))} <small>resource ${r}</small></h3>`;
    html += `<p>${esc(res.kind)} ${res.width}×${res.height}×${res.depth_or_array_size} ${esc(res.format)}, `
      + `${res.mips} mips, ${res.samples} samples${res.external ? ', external' : ''}</p>`;
    const life = m.facts.lifetimes[r];
    html += `<p>lifetime ${life ? '#' + life[0] + '..#' + life[1] : 'none (not scheduled)'}`;
    if (res.placement) html += `; heap bytes ${res.placement.offset}..${res.placement.offset + res.placement.size}`;
    html += '</p>';
    const subs = m.facts.subresources[r];
    if (subs) {
      html += '<h3>Per subresource</h3><ul>' + subs.map((s) =>
        `<li>${esc(s.label)}: ${s.span ? '#' + s.span[0] + '..#' + s.span[1] : 'untouched'}</li>`).join('') + '</ul>';
    }
    const aliases = aliasesOf(m, r);
    if (aliases.length) {
      html += '<h3>Aliases (same bytes, other times)</h3><ul>' + aliases.map((q) => {
        const l = m.facts.lifetimes[q];
        return `<li>${resourceRef(m, q)} #${l[0]}..#${l[1]}</li>`;
      }).join('') + '</ul>';
    }
    html += '<h3>Used by</h3><ul>' + m.resourceNodes[r].map((n) => `<li>${nodeRef(m, n)}</li>`).join('') + '</ul>';
    const batches = [...related(m).batches];
    html += '<h3>Barriers</h3><ul>' + batches.map((b) => `<li>${batchRef(m, b)}: ${m.facts.batches[b].barriers
      .filter((t) => t.resource === r).map((t) => `<div class="transition">${esc(transitionText(m, t))}</div>`).join('')}</li>`).join('') + '</ul>';
  } else if (sel.kind === 'batch') {
    html += batchHtml(m, sel.id);
  }
  panel.innerHTML = html;
}

/** The cross-queue waits a node takes part in: it waits before running, or signals after. */
function waitLines(m, n) {
  const p = m.position[n];
  const q = m.queueOf(n);
  const out = [];
  for (const w of m.s.queue_waits) {
    const signaller = m.s.order[w.signal_after];
    const waiter = m.s.order[w.wait_before];
    if (w.wait_before === p && w.wait_queue === q) {
      out.push(`waits for ${esc(m.queueNames[w.signal_queue])} after ${nodeRef(m, signaller)}`);
    }
    if (w.signal_after === p && w.signal_queue === q) {
      out.push(`signals ${esc(m.queueNames[w.wait_queue])}, which waits before ${waiter === undefined ? 'the end' : nodeRef(m, waiter)}`);
    }
  }
  return out;
}

function batchHtml(m, b) {
  const batch = m.facts.batches[b];
  const node = m.s.order[batch.position];
  let html = `<h3>Barrier batch before #${batch.position}</h3><p>before ${node === undefined ? 'the end' : nodeRef(m, node)}, `
    + `${batch.barriers.length} transition${batch.barriers.length === 1 ? '' : 's'}</p><ul>`;
  for (const t of batch.barriers) html += `<li class="transition">${esc(transitionText(m, t))}</li>`;
  return html + '</ul>';
}

// ---- frames and comparison ----

function summaryText(m) {
  const s = m.s;
  return `frame ${m.frame.index}: ${s.order.length} nodes scheduled, ${s.culled.length} culled, `
    + `${m.resources.length} resources, ${m.queueNames.length} queue${m.queueNames.length === 1 ? '' : 's'}, `
    + `${m.edges.length} edges, ${s.batches} barrier batches, ${s.transitions} transitions, `
    + `${s.queue_waits.length} cross-queue waits, ${s.render_passes.length} render passes, `
    + `heap ${(s.memory.transient_bytes / 1e6).toFixed(2)} MB (unaliased ${(s.memory.unaliased_bytes / 1e6).toFixed(2)} MB)`;
}

/** Rows `[what, frame A, frame B]` of the comparison, and the schedule positions that differ. */
function compareRows(a, b) {
  const rows = [
    ['nodes scheduled', a.s.order.length, b.s.order.length],
    ['nodes culled', a.s.culled.length, b.s.culled.length],
    ['resources', a.resources.length, b.resources.length],
    ['edges', a.edges.length, b.edges.length],
    ['barrier batches', a.s.batches, b.s.batches],
    ['transitions', a.s.transitions, b.s.transitions],
    ['cross-queue waits', a.s.queue_waits.length, b.s.queue_waits.length],
    ['render passes', a.s.render_passes.length, b.s.render_passes.length],
    ['transient bytes', a.s.memory.transient_bytes, b.s.memory.transient_bytes],
  ];
  const moved = [];
  const count = Math.max(a.s.order.length, b.s.order.length);
  for (let p = 0; p < count; p++) {
    const na = a.s.order[p];
    const nb = b.s.order[p];
    const ta = na === undefined ? '—' : a.nodes[na].name;
    const tb = nb === undefined ? '—' : b.nodes[nb].name;
    if (ta !== tb) moved.push(`#${p}: ${ta} → ${tb}`);
  }
  return { rows, moved, ...nameChanges(a, b) };
}

/** Scheduled node names by how many more (added) or fewer (removed) times frame B has them. */
function nameChanges(a, b) {
  const counts = new Map();
  for (const n of a.s.order) counts.set(a.nodes[n].name, (counts.get(a.nodes[n].name) || 0) - 1);
  for (const n of b.s.order) counts.set(b.nodes[n].name, (counts.get(b.nodes[n].name) || 0) + 1);
  const added = [];
  const removed = [];
  for (const [name, delta] of [...counts].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))) {
    if (delta > 0) added.push(`${name} ×${delta}`);
    if (delta < 0) removed.push(`${name} ×${-delta}`);
  }
  return { added, removed };
}

function showCompare() {
  const section = $('compare-view');
  if (state.compare === null) {
    section.hidden = true;
    modelB = null;
    return;
  }
  modelB = prepare(state.compare);
  section.hidden = false;
  $('compare-title').textContent = `frame ${modelB.frame.index} (below frame ${model.frame.index}, same zoom)`;
  const { rows, moved, added, removed } = compareRows(model, modelB);
  let html = `<tr><th></th><th>frame ${model.frame.index}</th><th>frame ${modelB.frame.index}</th></tr>`;
  for (const [what, x, y] of rows) {
    html += `<tr${x !== y ? ' class="changed"' : ''}><th>${what}</th><td class="num">${x}</td><td class="num">${y}</td></tr>`;
  }
  html += `<tr${added.length ? ' class="changed"' : ''}><th>nodes only in frame ${modelB.frame.index}</th><td colspan="2">${esc(added.join(', ') || 'none')}</td></tr>`;
  html += `<tr${removed.length ? ' class="changed"' : ''}><th>nodes only in frame ${model.frame.index}</th><td colspan="2">${esc(removed.join(', ') || 'none')}</td></tr>`;
  html += `<tr><th>schedule positions that differ</th><td colspan="2">${moved.length ? esc(moved.slice(0, 40).join('; ')) + (moved.length > 40 ? ` … (${moved.length})` : '') : 'none'}</td></tr>`;
  $('diff').innerHTML = html;
}

function setFrame(index) {
  state.frame = index;
  $('frame').value = String(index);
  model = prepare(index);
  if (state.selection && state.selection.id >= (state.selection.kind === 'node' ? model.nodes.length : model.resources.length)) {
    state.selection = null;
  }
  $('summary').textContent = summaryText(model);
  $('culled').innerHTML = model.facts.culled.length
    ? model.facts.culled.map((c) => `<li>${nodeRef(model, c.node)}: ${esc(c.why)}</li>`).join('')
    : '<li class="hint">none</li>';
  showCompare();
  showDetails();
  redraw();
}

// ---- drawing and input ----

let pending = false;
function redraw() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => { pending = false; drawAll(); });
}

function drawAll() {
  const rel = related(model);
  drawTimeline($('timeline'), model, rel, true);
  if (modelB) drawTimeline($('timeline-b'), modelB, related(modelB), false);
  drawLifetimes(model, rel);
  drawHeap(model, rel);
}

function find(text) {
  const needle = text.trim().toLowerCase();
  if (!needle) return;
  const node = model.s.order.find((n) => model.nodes[n].name.toLowerCase().includes(needle));
  if (node !== undefined) {
    select('node', node);
    const p = model.position[node];
    view.x0 = p - (cssWidth($('timeline')) - MARGIN) / view.scale / 2;
    redraw();
    return;
  }
  const r = model.resources.findIndex((_, i) => resourceName(model.resources, i).toLowerCase().includes(needle));
  if (r >= 0) select('resource', r);
}

/** A node's tooltip: name, position, and why it waits for each node it depends on. */
function nodeTip(m, n) {
  const lines = [`${m.nodes[n].name} (node ${n}, #${m.position[n]} on ${m.queueNames[m.queueOf(n)]})`];
  for (const e of m.preds[n].slice(0, 8)) {
    const edge = m.edges[e];
    const why = edge.reasons.map((r) => `${resourceName(m.resources, r.resource)} [${r.range}]`).join('; ');
    lines.push(`after ${m.nodes[edge.from].name} (node ${edge.from}), ${edge.kind}: ${why || 'explicit dependency'}`);
  }
  if (m.preds[n].length > 8) lines.push(`… ${m.preds[n].length - 8} more (select the node)`);
  return lines.join('\n');
}

function attach(canvas, hit, wheelScrolls) {
  let drag = null;
  canvas.addEventListener('wheel', (e) => {
    if (wheelScrolls && !e.ctrlKey && !e.altKey) return;
    e.preventDefault();
    const rect = canvas.getBoundingClientRect();
    zoomAt(e.clientX - rect.left, Math.exp(-e.deltaY * 0.002));
  }, { passive: false });
  canvas.addEventListener('mousedown', (e) => { drag = { x: e.clientX, x0: view.x0, moved: false }; });
  window.addEventListener('mousemove', (e) => {
    if (drag && Math.abs(e.clientX - drag.x) > 3) {
      drag.moved = true;
      view.x0 = drag.x0 - (e.clientX - drag.x) / view.scale;
      redraw();
    }
  });
  window.addEventListener('mouseup', (e) => {
    if (drag && !drag.moved && e.target === canvas) {
      const rect = canvas.getBoundingClientRect();
      const target = hit(e.clientX - rect.left, e.clientY - rect.top);
      select(target ? target.kind : null, target ? target.id : 0);
    }
    drag = null;
  });
  canvas.addEventListener('mousemove', (e) => {
    const rect = canvas.getBoundingClientRect();
    const target = hit(e.clientX - rect.left, e.clientY - rect.top);
    const tip = $('tooltip');
    if (!target || drag) { tip.hidden = true; return; }
    tip.textContent = target.kind === 'node' ? nodeTip(model, target.id)
      : target.kind === 'resource' ? resourceName(model.resources, target.id)
        : model.facts.batches[target.id].barriers.map((t) => transitionText(model, t)).join('\n');
    tip.style.left = (e.clientX + 12) + 'px';
    tip.style.top = (e.clientY + 12) + 'px';
    tip.hidden = false;
  });
  canvas.addEventListener('mouseleave', () => { $('tooltip').hidden = true; });
}

function init() {
  $('title').textContent = 'rpsl explorer: ' + DUMP.entry;
  DUMP.frames.forEach((frame, i) => {
    for (const id of ['frame', 'compare']) {
      const option = document.createElement('option');
      option.value = String(i);
      option.textContent = 'frame ' + frame.index;
      $(id).appendChild(option);
    }
  });
  $('frame').addEventListener('change', (e) => setFrame(Number(e.target.value)));
  $('compare').addEventListener('change', (e) => {
    state.compare = e.target.value === '' ? null : Number(e.target.value);
    showCompare();
    redraw();
  });
  $('show-edges').addEventListener('change', (e) => { state.showEdges = e.target.checked; redraw(); });
  $('find').addEventListener('keydown', (e) => { if (e.key === 'Enter') find(e.target.value); });
  $('details').addEventListener('click', (e) => {
    const ref = e.target.closest('a.ref');
    if (ref) select(ref.dataset.kind, Number(ref.dataset.id));
  });
  $('culled').addEventListener('click', (e) => {
    const ref = e.target.closest('a.ref');
    if (ref) select(ref.dataset.kind, Number(ref.dataset.id));
  });
  attach($('timeline'), (x, y) => timelineHit(model, x, y), false);
  attach($('timeline-b'), () => null, false);
  attach($('heap'), (x, y) => heapHit(model, x, y), false);
  attach($('lifetimes'), (x, y) => lifetimeHit(model, y), true);
  $('life-scroll').addEventListener('scroll', redraw);
  window.addEventListener('resize', redraw);
  document.addEventListener('keydown', (e) => {
    if (e.target.tagName === 'INPUT' || e.target.tagName === 'SELECT') return;
    const centre = MARGIN + (cssWidth($('timeline')) - MARGIN) / 2;
    const keys = {
      '+': () => zoomAt(centre, 1.25), '=': () => zoomAt(centre, 1.25), '-': () => zoomAt(centre, 0.8),
      ArrowLeft: () => { view.x0 -= (cssWidth($('timeline')) - MARGIN) * 0.1 / view.scale; redraw(); },
      ArrowRight: () => { view.x0 += (cssWidth($('timeline')) - MARGIN) * 0.1 / view.scale; redraw(); },
      0: () => fit(), Escape: () => select(null, 0),
    };
    if (keys[e.key]) { keys[e.key](); e.preventDefault(); }
  });
  const params = new URLSearchParams(location.hash.slice(1));
  setFrame(Math.min(Number(params.get('frame') || 0), DUMP.frames.length - 1));
  if (params.has('compare')) {
    state.compare = Number(params.get('compare'));
    $('compare').value = params.get('compare');
    showCompare();
  }
  fit();
  if (params.has('zoom')) {
    // `zoom=N`: N schedule positions fill the width, from position `at` (default 0).
    view.scale = (cssWidth($('timeline')) - MARGIN - 10) / Math.max(1, Number(params.get('zoom')));
    view.x0 = Number(params.get('at') || 0);
  }
  // `node=N` / `resource=R`: open with that selection (links and screenshots).
  if (params.has('node')) select('node', Number(params.get('node')));
  else if (params.has('resource')) select('resource', Number(params.get('resource')));
  if (params.has('selftest')) selfTest(params);
}

/** `#selftest[&node=N][&resource=R][&frame=F][&compare=G][&zoom=N&at=P]`: draws, selects, and writes what
 * the views hold into `<pre id="selftest">` (one fact a line) for tests/graph_page.rs. */
function selfTest(params) {
  const m = model;
  const lines = [];
  drawAll();
  lines.push(`frames: ${DUMP.frames.length}`, `frame selector: ${$('frame').selectedOptions[0].textContent}`
    + `, compare: ${$('compare').selectedOptions[0].textContent}`, `summary: ${summaryText(m)}`);
  lines.push(`lanes: ${m.queueNames.join(', ')}`);
  lines.push(`labels drawn: ${state.drawnLabels.length}`);
  lines.push(`labels: ${state.drawnLabels.slice(0, 16).join(' | ')}`);
  const data = m.edges.filter((e) => e.kind === 'data').length;
  lines.push(`edges: ${m.edges.length} (data ${data}, order ${m.edges.length - data})`);
  for (const edge of m.edges.slice(0, 8)) {
    const why = edge.reasons.map((r) => `${resourceName(m.resources, r.resource)} [${r.range}]`).join('; ');
    lines.push(`edge ${edge.from} -> ${edge.to} ${edge.kind}: ${why || 'explicit dependency'}`);
  }
  lines.push(`batches: ${m.facts.batches.length}`);
  for (const batch of m.facts.batches.slice(0, 4)) {
    for (const t of batch.barriers) lines.push(`barrier before #${batch.position}: ${transitionText(m, t).replace(/\n\s*/g, ' | ')}`);
  }
  lines.push(`queue waits: ${m.s.queue_waits.map((w) => `${m.queueNames[w.wait_queue]} waits for ${m.queueNames[w.signal_queue]} #${w.signal_after} before #${w.wait_before}`).join('; ')}`);
  lines.push(`lifetime rows: ${m.rows.length}`);
  for (const row of m.rows.slice(0, 200)) {
    if (row.sub) lines.push(`  ${resourceName(m.resources, row.resource)} ${row.label}: ${row.span ? row.span.join('..') : '-'} touches ${row.touches.join(',')}`);
  }
  lines.push(`heap resources reusing memory: ${m.reuses.size} of ${m.placed.length}`);
  lines.push(`heap reuses: ${[...m.reuses].slice(0, 20).map(([r, q]) => `${resourceName(m.resources, r)} <- ${resourceName(m.resources, q)}`).join(', ')}`);
  for (const c of m.facts.culled) lines.push(`culled ${c.node} ${m.nodes[c.node].name}: ${c.why}`);
  for (const [kind, key] of [['node', 'node'], ['resource', 'resource']]) {
    if (!params.has(key)) continue;
    select(kind, Number(params.get(key)));
    drawAll();
    const rel = related(m);
    const names = (set, f) => [...set].sort((a, b) => a - b).map(f).join(', ');
    lines.push(`select ${kind} ${params.get(key)}: nodes [${names(rel.nodes, (n) => m.nodes[n].name)}] `
      + `resources [${names(rel.resources, (r) => resourceName(m.resources, r))}] `
      + `batches [${names(rel.batches, (b) => '#' + m.facts.batches[b].position)}] edges ${rel.edges.size}`);
    lines.push(`details ${kind}: ${$('details').textContent.replace(/\s+/g, ' ').trim().slice(0, 400)}`);
    if (kind === 'node' && state.selection) lines.push(`waits node: ${waitLines(m, state.selection.id).map((w) => w.replace(/<[^>]+>/g, '')).join('; ')}`);
    if (kind === 'node' && state.selection) lines.push(`tooltip node: ${nodeTip(m, state.selection.id).replace(/\n/g, ' | ')}`);
  }
  if (params.has('input')) lines.push(...inputTest(m));
  if (modelB) {
    const { rows, moved, added, removed } = compareRows(model, modelB);
    for (const [what, x, y] of rows) if (x !== y) lines.push(`compare ${what}: ${x} -> ${y}`);
    lines.push(`compare added: ${added.join(', ')}`, `compare removed: ${removed.join(', ')}`);
    lines.push(`compare positions differing: ${moved.length}`);
  }
  lines.push('rendered: yes');
  const pre = $('selftest');
  pre.textContent = lines.join('\n');
  pre.hidden = false;
}

/** `#selftest&input`: drives the page through synthetic key, wheel and mouse events and
 * reports what each did to the view and the selection. */
function inputTest(m) {
  const out = [];
  const key = (k) => document.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true }));
  fit();
  const fitted = { x0: view.x0, scale: view.scale };
  key('+');
  out.push(`input +: zoom ×${(view.scale / fitted.scale).toFixed(3)}`);
  const before = view.x0;
  key('ArrowRight');
  const span = (cssWidth($('timeline')) - MARGIN) / view.scale;
  out.push(`input ArrowRight: pans ${Math.round(((view.x0 - before) / span) * 100)}% of the view`);
  const canvas = $('timeline');
  const rect = canvas.getBoundingClientRect();
  const px = MARGIN + 200;
  const under = posAt(px);
  canvas.dispatchEvent(new WheelEvent('wheel', {
    deltaY: -250, clientX: rect.left + px, clientY: rect.top + 30, bubbles: true, cancelable: true,
  }));
  out.push(`input wheel: zoom ×${(view.scale / fitted.scale).toFixed(3)}, position under the pointer `
    + `${Math.abs(posAt(px) - under) < 1e-6 ? 'stays' : 'moves'}`);
  key('0');
  out.push(`input 0: ${view.scale === fitted.scale && view.x0 === fitted.x0 ? 'fitted' : 'not fitted'}`);
  // A click in the middle of the first scheduled node's box selects it.
  const first = m.s.order[0];
  if (first !== undefined) {
    const x = rect.left + xOf(0) + boxWidth() / 2;
    const y = rect.top + laneCentre(m.queueOf(first));
    canvas.dispatchEvent(new MouseEvent('mousedown', { clientX: x, clientY: y, bubbles: true }));
    canvas.dispatchEvent(new MouseEvent('mouseup', { clientX: x, clientY: y, bubbles: true }));
    const sel = state.selection;
    out.push(`input click: ${sel ? `${sel.kind} ${sel.id}` : 'nothing'} selected`);
  }
  key('Escape');
  out.push(`input Escape: ${state.selection === null ? 'nothing' : 'still something'} selected`);
  return out;
}

init();
