// Mnemoscope sortable table (Streamlit custom component v2): a short list as a plain HTML
// table whose columns sort by a click on their header, in the browser (no rerun).
// components/sort_table.py builds the data.
//
// data: {columns, numeric, rows, link, maxHeight}
//   rows: {cells: [text], keys: [number | text], href}   (every value plain text)
//   link: the index of the column whose cells link to row.href (relative addresses only)
// A click on a header sorts by it ascending, a second click descending (empty cells last);
// the order lives on the component's root, so it stays when the rows change (a rerun).
// Every string from the conversation reaches the page as text (textContent, setAttribute):
// nothing here builds HTML from data.

// Relative addresses only ("records?conv=…"): no scheme ("javascript:"), no "//host", no
// control characters (a browser drops tabs and newlines inside a scheme).
const SAFE_HREF = /^(?![a-z][a-z0-9+.-]*:)(?![\/\\]{2})[^\x00-\x20]/i;
const blank = (v) => v === "" || v === null || v === undefined;

function compare(a, b) {
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b), undefined, { numeric: true });
}

function ordered(rows, sort) {
  if (!sort) return rows;
  const sign = sort.dir === "descending" ? -1 : 1;
  return rows.map((row, i) => ({ row, i })).sort((x, y) => {
    const a = x.row.keys[sort.col];
    const b = y.row.keys[sort.col];
    if (blank(a) || blank(b)) return (blank(a) - blank(b)) || x.i - y.i;  // empty last either way
    return sign * compare(a, b) || x.i - y.i;
  }).map((x) => x.row);
}

function draw(root, data) {
  const sort = root.__mnSort && root.__mnSort.col < data.columns.length ? root.__mnSort : null;
  const head = document.createElement("tr");
  data.columns.forEach((name, col) => {
    const th = document.createElement("th");
    th.setAttribute("aria-sort", sort && sort.col === col ? sort.dir : "none");
    const button = document.createElement("button");
    button.type = "button";
    button.title = `Sort by ${name}`;
    const arrow = document.createElement("span");
    arrow.className = "mn-arrow";
    arrow.setAttribute("aria-hidden", "true");
    arrow.textContent = sort && sort.col === col ? (sort.dir === "ascending" ? "▲" : "▼") : "";
    button.append(document.createTextNode(name), arrow);
    button.addEventListener("click", () => {
      const dir = sort && sort.col === col && sort.dir === "ascending" ? "descending" : "ascending";
      root.__mnSort = { col, dir };
      draw(root, data);
      const again = root.querySelectorAll("th button")[col];
      if (again) again.focus();
    });
    th.append(button);
    head.append(th);
  });
  const body = document.createElement("tbody");
  for (const row of ordered(data.rows, sort)) {
    const tr = document.createElement("tr");
    row.cells.forEach((text, col) => {
      const td = document.createElement("td");
      if (data.numeric[col]) td.className = "mn-num";
      if (col === data.link && typeof row.href === "string" && SAFE_HREF.test(row.href)
          && !/[\x00-\x1f\x7f]/.test(row.href)) {
        const a = document.createElement("a");
        a.className = "mn-link";
        a.setAttribute("href", row.href);
        a.setAttribute("target", "_self");
        a.textContent = text;
        td.append(a);
      } else {
        td.textContent = text;
      }
      tr.append(td);
    });
    body.append(tr);
  }
  const thead = document.createElement("thead");
  thead.append(head);
  const table = document.createElement("table");
  table.append(thead, body);
  root.style.maxHeight = `${Number(data.maxHeight) || 420}px`;
  root.replaceChildren(table);
}

export default function (component) {
  const { data, parentElement } = component;
  const root = parentElement.querySelector(".mn-st");
  if (!root || !data) return;
  draw(root, data);
}
