// Mnemoscope records table (Streamlit custom component v2): one page of records as a plain
// HTML table with correct / wrong (or restore) buttons on every row; a click on a row opens it.
//
// data: {rows, selected, columns, sortable, sort}
//   rows: {id, version, status, cells: {column: text}, confidence}   (every value plain text)
//   columns: [[name, css classes], ...] in display order (mn-p2 / mn-p3: hidden when the
//   table is narrow, see the CSS; the open record below shows every field); names and long
//   text wrap, at most three lines, the whole text in the open (selected) row
//   sortable: the column names whose header sorts; sort: {column, descending} or null
// A click sets the state value "action" = {kind: "open" | "correct" | "wrong" | "restore",
// id, version, at} ("at" makes each click a new value), or {kind: "sort", column, at} for a
// click on a sortable column's header; Python acts in a widget callback and
// the rerun draws the saved state. Keys on a focused row: Enter opens, c correct, w wrong.
// Every string from the conversation reaches the page as text (textContent / title):
// nothing here builds HTML from data.

// Cells of these classes (names and free text) wrap onto up to three lines (the open row: all
// of them); the other cells are short codes on one line, cut with an ellipsis if they must be.
const WRAPPING = ["mn-name", "mn-long"];

function cell(tag, text, cls) {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  el.textContent = text == null ? "" : String(text);
  return el;
}

function button(label, kind, title, disabled) {
  const b = cell("button", label, `mn-b mn-${kind}`);
  b.type = "button";
  b.dataset.kind = kind;
  b.title = title;
  b.setAttribute("aria-label", title);
  b.disabled = !!disabled;
  return b;
}

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  const root = parentElement.querySelector(".mn-rows");
  if (!root || !data) return;
  const send = (kind, row, tr) => {
    if (tr) {
      tr.classList.add("mn-busy");
      tr.querySelectorAll("button").forEach((b) => { b.disabled = true; });
    }
    setStateValue("action", { kind, id: row.id, version: row.version, at: Date.now() + Math.random() });
  };
  const table = document.createElement("table");
  const head = document.createElement("tr");
  head.append(cell("th", "verdict", "mn-verdict"));
  const sortable = new Set(data.sortable || []);
  for (const [name, cls] of data.columns) {
    const th = cell("th", "", cls);
    if (!sortable.has(name)) {
      th.textContent = name;
    } else {
      const on = data.sort && data.sort.column === name;
      const b = cell("button", on ? `${name} ${data.sort.descending ? "▼" : "▲"}` : name, "mn-sort");
      b.type = "button";
      b.title = on ? `Sorted by ${name}; click for the other order` : `Sort by ${name}`;
      th.setAttribute("aria-sort", on ? (data.sort.descending ? "descending" : "ascending") : "none");
      b.addEventListener("click", () => {
        setStateValue("action", { kind: "sort", column: name, at: Date.now() + Math.random() });
      });
      th.append(b);
    }
    head.append(th);
  }
  const thead = document.createElement("thead");
  thead.append(head);
  const body = document.createElement("tbody");
  for (const row of data.rows) {
    const tr = document.createElement("tr");
    tr.tabIndex = 0;
    tr.dataset.id = row.id;
    tr.dataset.status = row.status;
    if (row.id === data.selected) tr.classList.add("mn-selected");
    const verdict = document.createElement("td");
    verdict.className = "mn-verdict";
    const active = row.status === "active";
    verdict.append(button("✓", "correct", `Correct ${row.id}: confidence becomes 1.0 (an edit)`, !active));
    if (active) verdict.append(button("✗", "wrong", `Wrong ${row.id}: kept, shown as wrong, never used for answers`, false));
    else verdict.append(button("↺", "restore", `Restore ${row.id}: active again (an edit)`, false));
    tr.append(verdict);
    for (const [name, cls] of data.columns) {
      const wraps = WRAPPING.some((c) => cls.split(" ").includes(c));
      const td = wraps ? cell("td", "", cls) : cell("td", row.cells[name], cls);
      if (wraps) td.append(cell("div", row.cells[name], "mn-text"));
      if (name === "confidence") {
        const bar = document.createElement("span");
        bar.className = "mn-bar";
        bar.style.width = `${Math.round(Math.max(0, Math.min(1, row.confidence)) * 100)}%`;
        td.prepend(bar);
      }
      td.title = row.cells[name] || "";  // the whole text, also on hover
      tr.append(td);
    }
    tr.addEventListener("click", (event) => {
      const b = event.target.closest("button");
      if (b) {
        event.stopPropagation();
        if (!b.disabled) send(b.dataset.kind, row, tr);
        return;
      }
      send("open", row, null);
    });
    tr.addEventListener("keydown", (event) => {
      if (event.target !== tr || event.ctrlKey || event.altKey || event.metaKey) return;
      const key = String(event.key || "").toLowerCase();
      if (["enter", "c", "w", "arrowdown", "arrowup"].includes(key)) event.stopPropagation();
      if (key === "enter") { event.preventDefault(); send("open", row, null); }
      else if (key === "c" && active) { event.preventDefault(); send("correct", row, tr); }
      else if (key === "w" && active) { event.preventDefault(); send("wrong", row, tr); }
      else if (key === "arrowdown" && tr.nextElementSibling) { event.preventDefault(); tr.nextElementSibling.focus(); }
      else if (key === "arrowup" && tr.previousElementSibling) { event.preventDefault(); tr.previousElementSibling.focus(); }
    });
    body.append(tr);
  }
  table.append(thead, body);
  root.replaceChildren(table);
}
