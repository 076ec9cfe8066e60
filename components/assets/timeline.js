// Mnemoscope episode timeline (Streamlit custom component v2): one dot per episode, drawn as
// inline SVG (no plotting library to load). components/timeline.py builds the data.
//
// data: {dated, points, legend, yMax, height, selected, xTitle, yTitle}
//   points: {id, x, y, size, color, tip}  (x: ms since 1970 when dated, else the session number;
//                                          size: the dot's diameter in px; tip: plain text)
//   label: the dot's accessible name (episode, date, themes)
// A click on a dot sets the trigger value "clicked" = the episode id (Python selects it).
// Keyboard: the dots are one tab stop (the chosen episode's dot, a roving tabindex); Left/Right
// (Home/End) move focus between dots in episode order, Enter or Space selects as a click does.
// A redraw (the rerun a selection causes) gives focus back to the dot that had it.
// Every string from the conversation reaches the page as text (textContent, setAttribute):
// nothing here builds markup from data.

const NS = "http://www.w3.org/2000/svg";
const PAD = { left: 46, right: 14, top: 12, bottom: 40 };

function el(name, attrs, text) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

function ticks(lo, hi, count, dated) {
  if (hi <= lo) return [lo];
  if (!dated) {  // session numbers: whole numbers
    const step = Math.max(1, Math.ceil((hi - lo) / count));
    const out = [];
    for (let v = Math.ceil(lo); v <= hi; v += step) out.push(v);
    return out;
  }
  const step = (hi - lo) / count;
  return Array.from({ length: count + 1 }, (_, i) => lo + i * step);
}

function tickLabel(value, dated, spanDays) {
  if (!dated) return String(value);
  const d = new Date(value);
  const iso = d.toISOString();
  return spanDays > 400 ? iso.slice(0, 7) : iso.slice(0, 10);
}

function focusedDot(root) {
  const active = root.getRootNode().activeElement;
  return active && root.contains(active) && active.classList.contains("mn-tl-point") ? active : null;
}

function moveFocus(from, to) {
  if (!to) return;
  from.setAttribute("tabindex", "-1");
  to.setAttribute("tabindex", "0");
  to.focus();
}

function draw(root, data, setTriggerValue) {
  const box = root.querySelector(".mn-tl-plot");
  const hadFocus = focusedDot(root);
  const keepFocus = hadFocus ? hadFocus.dataset.id : null;
  const tip = root.querySelector(".mn-tl-tip");
  tip.style.display = "none";  // a redraw removes the hovered dot (its mouseleave never comes)
  const width = Math.max(320, Math.floor(box.clientWidth || root.clientWidth || 700));
  const height = data.height;
  const points = data.points || [];
  const xs = points.map((p) => p.x);
  let lo = Math.min(...xs);
  let hi = Math.max(...xs);
  const margin = hi > lo ? (hi - lo) * 0.04 : (data.dated ? 86400000 : 1);
  lo -= margin;
  hi += margin;
  const plotW = width - PAD.left - PAD.right;
  const plotH = height - PAD.top - PAD.bottom;
  const sx = (v) => PAD.left + ((v - lo) / (hi - lo)) * plotW;
  const sy = (v) => PAD.top + plotH - ((v - 0.5) / data.yMax) * plotH;

  const svg = el("svg", { width, height, class: "mn-tl-svg", role: "group", "aria-label": "Episode timeline" });
  const axes = el("g", { class: "mn-tl-axes" });
  for (let y = 1; y <= data.yMax; y += Math.max(1, Math.ceil(data.yMax / 8))) {
    axes.append(el("line", { x1: PAD.left, x2: width - PAD.right, y1: sy(y), y2: sy(y), class: "mn-tl-grid" }));
    axes.append(el("text", { x: PAD.left - 6, y: sy(y) + 4, "text-anchor": "end" }, String(y)));
  }
  const spanDays = (hi - lo) / 86400000;
  const count = Math.max(2, Math.min(8, Math.floor(plotW / 110)));
  for (const v of ticks(lo + margin, hi - margin, count, data.dated)) {
    const x = sx(v);
    axes.append(el("line", { x1: x, x2: x, y1: PAD.top, y2: PAD.top + plotH, class: "mn-tl-grid" }));
    axes.append(el("text", { x, y: PAD.top + plotH + 16, "text-anchor": "middle" }, tickLabel(v, data.dated, spanDays)));
  }
  axes.append(el("text", { x: PAD.left + plotW / 2, y: height - 4, "text-anchor": "middle", class: "mn-tl-title" },
                 data.xTitle));
  axes.append(el("text", { x: 12, y: PAD.top + plotH / 2, "text-anchor": "middle", class: "mn-tl-title",
                           transform: `rotate(-90 12 ${PAD.top + plotH / 2})` }, data.yTitle));
  svg.append(axes);

  const dots = el("g", { class: "mn-tl-dots", role: "group", "aria-label": "Episodes (arrow keys move)" });
  const stop = points.some((p) => p.id === data.selected) ? data.selected : (points[0] || {}).id;
  const choose = (p) => {
    tip.style.display = "none";
    setTriggerValue("clicked", p.id);
  };
  for (const p of points) {
    const chosen = p.id === data.selected;
    const dot = el("circle", { cx: sx(p.x), cy: sy(p.y), r: p.size / 2, fill: p.color,
                               class: chosen ? "mn-tl-point mn-tl-selected" : "mn-tl-point",
                               tabindex: p.id === stop ? "0" : "-1", role: "button",
                               "aria-label": p.label || p.tip, "aria-pressed": chosen ? "true" : "false" });
    if (chosen) dot.setAttribute("aria-current", "true");
    dot.dataset.id = p.id;
    dot.append(el("title", {}, p.tip));
    dot.addEventListener("mouseenter", (ev) => {
      tip.textContent = p.tip;
      tip.style.display = "block";
      const rect = root.getBoundingClientRect();
      tip.style.left = `${Math.min(ev.clientX - rect.left + 12, rect.width - 260)}px`;
      tip.style.top = `${ev.clientY - rect.top + 12}px`;
    });
    dot.addEventListener("mouseleave", () => { tip.style.display = "none"; });
    dot.addEventListener("click", () => choose(p));
    dot.addEventListener("keydown", (ev) => {
      if (ev.ctrlKey || ev.altKey || ev.metaKey) return;
      const all = [...dots.querySelectorAll(".mn-tl-point")];
      const at = all.indexOf(dot);
      const target = { ArrowLeft: all[at - 1], ArrowRight: all[at + 1], Home: all[0], End: all[all.length - 1] };
      if (ev.key === "Enter" || ev.key === " ") {
        ev.preventDefault();
        ev.stopPropagation();
        choose(p);
      } else if (ev.key in target) {
        ev.preventDefault();
        ev.stopPropagation();
        moveFocus(dot, target[ev.key]);
      }
    });
    dots.append(dot, el("circle", { cx: sx(p.x), cy: sy(p.y), r: p.size / 2 + 4, class: "mn-tl-ring" }));
  }
  svg.append(dots);
  box.replaceChildren(svg);
  if (keepFocus) {
    const again = [...dots.querySelectorAll(".mn-tl-point")].find((d) => d.dataset.id === keepFocus);
    if (again) moveFocus(dots.querySelector('.mn-tl-point[tabindex="0"]') || again, again);
  }
}

function drawLegend(box, legend) {
  box.replaceChildren(...(legend || []).map((item) => {
    const key = document.createElement("span");
    key.className = "mn-tl-key";
    const dot = document.createElement("span");
    dot.className = "mn-tl-dot";
    dot.style.background = item.color;
    key.append(dot, document.createTextNode(`${item.label} (${item.count})`));
    return key;
  }));
}

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  const root = parentElement.querySelector(".mn-tl");
  if (!root || !data) return;
  drawLegend(root.querySelector(".mn-tl-legend"), data.legend);
  draw(root, data, setTriggerValue);
  if (root.__mnObserver) root.__mnObserver.disconnect();
  let width = root.clientWidth;
  const observer = new ResizeObserver(() => {
    if (root.clientWidth !== width) {
      width = root.clientWidth;
      draw(root, data, setTriggerValue);
    }
  });
  observer.observe(root);
  root.__mnObserver = observer;
  return () => observer.disconnect();
}
