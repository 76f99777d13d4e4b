// Injected into a copy of a docs page: mkdocs-material draws each Mermaid diagram into a closed shadow
// root, so open them, then keep writing into a pre element "probe" what Mermaid drew: each host's svg.
(() => {
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) { return attach.call(this, { ...init, mode: "open" }); };
  const report = () => {
    const drawn = [...document.querySelectorAll("div.mermaid")].map((host) => {
      const svg = host.shadowRoot && host.shadowRoot.querySelector("svg");
      return svg ? { id: svg.id, kind: svg.getAttribute("aria-roledescription"),
                     width: svg.getBoundingClientRect().width } : null;
    });
    let out = document.getElementById("probe");
    if (!out) {
      out = document.createElement("pre");
      out.id = "probe";
      document.body.appendChild(out);
    }
    out.textContent = JSON.stringify({ drawn, mermaid: typeof window.mermaid });
  };
  setInterval(report, 200);
})();
