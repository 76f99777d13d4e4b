// Injected into a copy of report.html by test_bench_report_browser.py: once plotly has drawn, it writes
// what a reader sees into pre#probe as JSON: each chart's axes (type, range, the data drawn on
// them), its legend's and plot area's boxes; each table's width and whether it scrolls in its own box;
// where the first verdict and the first table sit on the first screen.
function box(el) {
  if (!el) return null;
  const r = el.getBoundingClientRect();
  return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height};
}
function numbers(values) { return (values || []).filter(v => typeof v === "number" && isFinite(v)); }
function probe() {
  const out = {charts: [], tables: [], window: {width: window.innerWidth, height: window.innerHeight},
               page_width: document.documentElement.scrollWidth};
  for (const gd of document.querySelectorAll(".js-plotly-plot")) {
    const layout = gd._fullLayout, axes = [];
    for (const name of Object.keys(layout).filter(k => /^[xy]axis\d*$/.test(k))) {
      const letter = name[0], ax = layout[name], values = [];
      for (const t of gd._fullData) {
        if (t.visible !== true) continue;
        const own = numbers(t[letter]);
        values.push(...own);
        const err = t["error_" + letter];
        if (err && err.visible && err.array) {
          own.forEach((v, i) => values.push(v + (err.array[i] || 0), v - ((err.arrayminus || err.array)[i] || 0)));
        }
      }
      for (const s of layout.shapes || []) {
        if (s[letter + "ref"] === letter) values.push(...numbers([s[letter + "0"], s[letter + "1"]]));
      }
      axes.push({name, type: ax.type, range: ax.range, values});
    }
    out.charts.push({title: layout.title && layout.title.text, axes, legend: box(gd.querySelector(".legend")),
                     plot: box(gd.querySelector(".nsewdrag")), chart: box(gd)});
  }
  for (const table of document.querySelectorAll("table")) {
    let scrolls = false;
    for (let el = table.parentElement; el && el !== document.body; el = el.parentElement) {
      const style = getComputedStyle(el);
      if (/(auto|scroll)/.test(style.overflowX) && el.getBoundingClientRect().width <= window.innerWidth) {
        scrolls = true;
        break;
      }
    }
    out.tables.push({width: table.getBoundingClientRect().width, scrolls});
  }
  out.first_verdict = box(document.querySelector("ul.verdict"));
  out.first_table = box(document.querySelector("table"));
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
}
window.addEventListener("load", () => setTimeout(probe, 1000));
