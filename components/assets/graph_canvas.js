// Mnemoscope graph canvas (Streamlit custom component v2). vis-network (pyvis' own copy) is
// prepended to this module by components/graph_canvas.py, so nothing is fetched from outside.
//
// data: {signature, height, nodes, edges, legend, options, selected, note}
//   nodes: {id, label, color, size, font, level?, tip}   (tip: plain text, shown as text)
//   edges: {id, from, to, hover, tip, width, color}      (hover: the label shown on hover)
// A click on a node or an edge sets the state value "selected" = {kind, id} (Python opens the
// side panel); a click on the background sets {kind: "none"}.
// Every string from the conversation reaches the page as text (textContent, canvas labels):
// nothing here builds HTML from data.

function tipElement(text) {
  const el = document.createElement("div");
  el.className = "mn-tip";
  el.textContent = text || "";
  return el;
}

function drawLegend(box, legend, note) {
  const items = (legend || []).map((item) => {
    const key = document.createElement("span");
    key.className = "mn-key";
    const dot = document.createElement("span");
    dot.className = "mn-dot";
    dot.style.background = item.color;
    key.append(dot, document.createTextNode(`${item.label} (${item.count})`));
    return key;
  });
  if (note) {
    const n = document.createElement("span");
    n.className = "mn-note";
    n.textContent = note;
    items.push(n);
  }
  box.replaceChildren(...items);
}

// What vis-network paints on its canvas cannot use CSS variables: read Streamlit's theme
// (the custom properties a v2 component receives) and colour labels and borders with it.
function themeColors(root) {
  const style = getComputedStyle(root);
  const read = (name) => (style.getPropertyValue(name) || "").trim();
  return { text: read("--st-text-color"), background: read("--st-background-color") };
}

function themed(data, theme) {
  if (!theme.text || !theme.background) return { nodes: data.nodes, options: data.options };
  const nodes = data.nodes.map((n) => ({
    ...n,
    color: { ...n.color, border: theme.background,
             highlight: { ...(n.color || {}).highlight, border: theme.text },
             hover: { ...(n.color || {}).hover, border: theme.text } },
    font: { ...n.font, color: theme.text, strokeColor: theme.background },
  }));
  const edges = (data.options || {}).edges || {};
  const options = { ...data.options,
                    edges: { ...edges, font: { ...edges.font, color: theme.text, strokeColor: theme.background } } };
  return { nodes, options };
}

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  const root = parentElement.querySelector(".mn-graph");
  if (!root || !data) return;
  const vis = globalThis.vis;
  const state = root.__mn;
  const theme = themeColors(root);
  const signature = `${data.signature}|${theme.text}|${theme.background}`;
  if (state && state.signature === signature) {
    state.select(data.selected);
    return;
  }
  if (state) state.network.destroy();
  const box = root.querySelector(".mn-canvas");
  box.style.height = `${data.height}px`;
  drawLegend(root.querySelector(".mn-legend"), data.legend, data.note);

  const started = performance.now();
  const look = themed(data, theme);
  const nodes = new vis.DataSet(look.nodes.map((n) => ({ ...n, title: n.tip ? tipElement(n.tip) : undefined })));
  const edges = new vis.DataSet(data.edges.map((e) => ({ ...e, title: tipElement(e.tip), label: undefined })));
  const network = new vis.Network(box, { nodes, edges }, look.options);
  const mine = { signature, network, select: () => {} };
  root.__mn = mine;
  const stats = { nodes: data.nodes.length, edges: data.edges.length, drawnMs: null, layoutMs: null,
                  stabilisedMs: null };
  root.dataset.layoutDone = "0";

  const finish = () => {
    if (stats.layoutMs !== null || root.__mn !== mine) return;
    stats.layoutMs = Math.round(performance.now() - started);
    network.setOptions({ physics: { enabled: false } });
    root.dataset.layoutDone = "1";
    root.dataset.layoutMs = String(stats.layoutMs);
  };
  network.once("afterDrawing", () => {
    // a wide fixed layout on a narrow canvas: keep its labels readable and start at its
    // top left (the earliest sessions); the rest is a drag away
    if (data.minScale && network.getScale() < data.minScale) {
      const all = Object.values(network.getPositions());
      const left = Math.min(...all.map((q) => q.x)) - 60, top = Math.min(...all.map((q) => q.y)) - 30;
      const s = data.minScale;
      network.moveTo({ position: { x: left + box.clientWidth / (2 * s), y: top + box.clientHeight / (2 * s) },
                       scale: s, animation: false });
    }
    stats.drawnMs = Math.round(performance.now() - started);
    root.dataset.drawnMs = String(stats.drawnMs);
    if (!data.options.physics || data.options.physics.enabled === false) finish();
  });
  network.once("stabilizationIterationsDone", () => {
    stats.stabilisedMs = Math.round(performance.now() - started);
    if (data.nodes.length <= (data.settleAbove || Infinity)) finish();
  });
  network.once("stabilized", finish);  // large graphs: physics ran on until still
  const settle = setTimeout(finish, (data.settleMs || 4000) + 30000);  // never spin for ever
  network.once("afterDrawing", () => {
    if (data.nodes.length > (data.settleAbove || Infinity)) {
      clearTimeout(settle);
      setTimeout(finish, data.settleMs || 4000);
    }
  });

  network.on("hoverEdge", (p) => {
    const e = edges.get(p.edge);
    if (e && e.hover) edges.update({ id: p.edge, label: e.hover });
  });
  network.on("blurEdge", (p) => edges.update({ id: p.edge, label: " " }));
  network.on("click", (p) => {
    const at = Date.now();  // a new value on every click, so clicking the same node again counts
    if (p.nodes.length && String(p.nodes[0]).startsWith("mn-head:")) return;  // a session title
    if (p.nodes.length) setStateValue("selected", { kind: "node", id: p.nodes[0], at });
    else if (p.edges.length) setStateValue("selected", { kind: "edge", id: p.edges[0], at });
    else setStateValue("selected", { kind: "none", id: "", at });
  });

  const select = (sel) => {
    if (sel && sel.kind === "node" && nodes.get(sel.id)) network.selectNodes([sel.id]);
    else if (sel && sel.kind === "edge" && edges.get(sel.id)) network.selectEdges([sel.id]);
    else network.unselectAll();
  };
  select(data.selected);

  // for tests and the render benchmark: where a node is on screen, and the timings
  const api = {
    stats,
    network,
    live: () => root.__mn === mine && box.isConnected,  // not a canvas a rerun has replaced
    nodeIds: () => nodes.getIds().filter((id) => !String(id).startsWith("mn-head:")),  // not the session titles
    edgeIds: () => edges.getIds(),
    screenPoint: (id) => {
      const pos = network.getPositions([id])[id];
      if (!pos) return null;
      const dom = network.canvasToDOM(pos);
      const rect = box.getBoundingClientRect();
      return { x: rect.left + dom.x, y: rect.top + dom.y };
    },
    edgePoint: (id) => {
      const edge = network.body.edges[id];
      if (!edge) return null;
      const mid = edge.edgeType.getPoint(0.5);  // on the drawn (possibly curved) line
      const dom = network.canvasToDOM(mid);
      const rect = box.getBoundingClientRect();
      return { x: rect.left + dom.x, y: rect.top + dom.y };
    },
  };
  globalThis.mnGraphs = globalThis.mnGraphs || {};
  globalThis.mnGraphs[data.name] = api;
  mine.select = select;
  return () => {
    network.destroy();
    root.__mn = null;
  };
}
