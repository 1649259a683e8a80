// The page of proto/pbview: draws the data of the script element
// #anefix-data. Text from the model only ever reaches the document through
// text nodes (el's text argument, textContent), never as markup.
(function () {
  "use strict";
  var t0 = performance.now();
  var D = JSON.parse(document.getElementById("anefix-data").textContent);
  // The SVG namespace is read from an inline svg element, so the page holds
  // no URL at all.
  var legendSvg = document.createElement("div");
  legendSvg.innerHTML = "<svg></svg>";
  var SVG = legendSvg.firstChild.namespaceURI;
  var drawn = {}; // group index -> true once its drawing exists
  var groupEl = [];
  var opEl = {}; // op index -> svg g element

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = String(text);
    return e;
  }
  function sv(tag, attrs) {
    var e = document.createElementNS(SVG, tag);
    for (var k in attrs) e.setAttribute(k, String(attrs[k]));
    return e;
  }
  function short(s, n) { return s.length > n ? s.slice(0, n - 1) + "\u2026" : s; }
  function counts(m) {
    var ks = Object.keys(m).sort(), out = [];
    for (var i = 0; i < ks.length; i++) out.push(ks[i] + " " + m[ks[i]]);
    return out.join(", ");
  }

  // Paths are shown without the directory every source shares (the full
  // path stays in the op's source row and tooltip).
  var common = null;
  D.ops.forEach(function (o) {
    if (!o.src) return;
    var d = o.src.slice(0, o.src.lastIndexOf("/") + 1);
    if (common === null) common = d;
    while (common && d.lastIndexOf(common, 0) !== 0) common = common.slice(0, common.slice(0, -1).lastIndexOf("/") + 1);
  });
  function disp(s) { return common ? s.split(common).join("") : s; }

  // Header: title, report lines, the caller's summary, the search bar.
  var hdr = el("header");
  hdr.appendChild(el("h1", "", D.title));
  var hl = el("div", "hdr");
  D.header.forEach(function (l, i) { hl.appendChild(el("div", i === 0 ? "verdict" : "", l)); });
  hl.appendChild(el("div", "", D.ops.length + " ops in " + D.sections.length + " sections, " + D.groups.length + " groups; by device: " + counts(D.devices) + (common ? "; paths below " + common : "")));
  hdr.appendChild(hl);
  if ((D.summary && D.summary.length) || (D.missing && D.missing.length)) {
    var sm = el("div", "summary");
    (D.summary || []).forEach(function (l) { sm.appendChild(el("div", "", l)); });
    (D.missing || []).forEach(function (c) { sm.appendChild(el("div", "", c.kind + ": " + c.id + " (not in this graph)")); });
    hdr.appendChild(sm);
  }
  var bar = el("div", "bar");
  var q = el("input");
  q.id = "q";
  q.placeholder = "search: op id or file:line (Enter: next)";
  var hits = el("span");
  hits.id = "hits";
  var ex = el("button", "", "expand all"), co = el("button", "", "collapse all");
  bar.appendChild(q); bar.appendChild(hits); bar.appendChild(ex); bar.appendChild(co);
  var lg = el("span", "legend");
  [["ane", "ANE"], ["gpu", "GPU"], ["cpu", "CPU"], ["none", "no device"], ["unknown", "unknown"]].forEach(function (p) { lg.appendChild(el("span", p[0], p[1])); });
  lg.appendChild(el("span", "", "red border: blocker; dashed: suspect / hazard; blue stripe, pale: fp32; \u25c6 state; Rk: ANE region k"));
  if (D.ops.some(function (o) { return o.chg; }) || (D.missing && D.missing.length)) {
    ["retyped", "added", "removed", "moved"].forEach(function (k) { lg.appendChild(el("span", "chg-" + k, k)); });
  }
  bar.appendChild(lg);
  hdr.appendChild(bar);
  document.body.appendChild(hdr);

  var main = el("main");
  var left = el("div");
  left.id = "groups";
  var side = el("div");
  side.id = "side";
  side.appendChild(el("div", "", "Click an op to see its placement and findings."));
  main.appendChild(left); main.appendChild(side);
  document.body.appendChild(main);

  // The report's grouped findings, each op id a button that searches.
  var lists = el("div", "lists");
  D.lists.forEach(function (l) {
    var d = el("details");
    var n = 0;
    l.groups.forEach(function (g) { n += g.n; });
    d.appendChild(el("summary", "", l.title + " (" + n + ")"));
    l.groups.forEach(function (g) {
      var f = el("div", "fg");
      f.appendChild(el("span", "rule", g.rule));
      f.appendChild(el("span", "", " x" + g.n + " " + g.op + (g.src ? " at " + g.src : "") + (g.fix ? " -> " + g.fix : "")));
      f.appendChild(el("div", "", g.msg));
      if (g.detail) f.appendChild(el("div", "", g.detail));
      (g.ids || []).forEach(function (id) {
        if (!id) return;
        var b = el("button", "opbtn", id);
        b.addEventListener("click", function () { q.value = id; search(id, 0); });
        f.appendChild(b);
      });
      d.appendChild(f);
    });
    lists.appendChild(d);
  });
  left.appendChild(lists);

  // Sections (a layer, or a source file) hold groups (consecutive ops);
  // both start collapsed, and a group's drawing is made when it opens.
  var secEl = [];
  D.sections.forEach(function (sec, si) {
    var sbox = el("div", "section");
    var sh = el("div", "ghead shead");
    var scaret = el("span", "caret", "\u25b6");
    sh.appendChild(scaret);
    sh.appendChild(el("span", "name", disp(sec.name)));
    sh.appendChild(el("span", "", "@" + sec.graph));
    sh.appendChild(el("span", "", sec.n + " ops in " + sec.groups.length + " groups" + (sec.repeats > 1 ? ", " + sec.repeats + " repeats (layers)" : "")));
    var devs = {}, marks = {}, changes = 0;
    sec.groups.forEach(function (gi) {
      var g = D.groups[gi];
      for (var k in g.devices) devs[k] = (devs[k] || 0) + g.devices[k];
      for (var m in g.marks) marks[m] = (marks[m] || 0) + g.marks[m];
      changes += g.changes || 0;
    });
    badges(sh, devs, marks, changes);
    var sbody = el("div", "sbody");
    sbody.hidden = true;
    sh.addEventListener("click", function () { openSection(si, sbody.hidden); });
    sbox.appendChild(sh); sbox.appendChild(sbody);
    left.appendChild(sbox);
    secEl.push({ body: sbody, caret: scaret });
    sec.groups.forEach(function (gi) {
      var g = D.groups[gi];
      var box = el("div", "group");
      box.dataset.group = gi;
      var h = el("div", "ghead");
      var caret = el("span", "caret", "\u25b6");
      h.appendChild(caret);
      h.appendChild(el("span", "name", (sec.repeats > 1 ? "#" + g.repeat + " " : "") + (disp(g.name) || "(no source)")));
      h.appendChild(el("span", "", g.ops.length + " ops"));
      badges(h, g.devices, g.marks, g.changes);
      var body = el("div", "gbody");
      body.hidden = true;
      h.addEventListener("click", function () { toggle(gi); });
      box.appendChild(h); box.appendChild(body);
      sbody.appendChild(box);
      groupEl[gi] = { box: box, body: body, caret: caret };
    });
  });
  function badges(h, devs, marks, changes) {
    Object.keys(devs).sort().forEach(function (k) { h.appendChild(el("span", "count " + k, k + " " + devs[k])); });
    Object.keys(marks).sort().forEach(function (k) { h.appendChild(el("span", "count", k + " " + marks[k])); });
    if (changes) h.appendChild(el("span", "count chg", "changed " + changes));
  }
  function openSection(si, open) {
    secEl[si].body.hidden = !open;
    secEl[si].caret.textContent = open ? "\u25bc" : "\u25b6";
  }

  function toggle(gi, open) {
    var G = groupEl[gi];
    if (open === undefined) open = G.body.hidden;
    if (open) openSection(D.groups[gi].sec, true);
    if (open && !drawn[gi]) draw(gi);
    G.body.hidden = !open;
    G.caret.textContent = open ? "\u25bc" : "\u25b6";
  }

  // draw makes a group's SVG: edges between ops of the group, then one g
  // element per op (class "op", data-op its index).
  function draw(gi) {
    var g = D.groups[gi];
    var s = sv("svg", { width: g.w, height: g.h, viewBox: "0 0 " + g.w + " " + g.h });
    var inGroup = {};
    g.ops.forEach(function (i) { inGroup[i] = true; });
    g.ops.forEach(function (i) {
      var o = D.ops[i];
      (o.in || []).forEach(function (j) {
        if (!inGroup[j]) return;
        var p = D.ops[j];
        s.appendChild(sv("line", { "class": "edge", x1: p.x + 90, y1: p.y + 26, x2: o.x + 90, y2: o.y }));
      });
    });
    g.ops.forEach(function (i) {
      var o = D.ops[i];
      var cls = "op " + o.cls + (o.marks ? " " + o.marks.join(" ") : "") + (o.chg ? " chg-" + o.chg : "");
      var e = sv("g", { "class": cls, "data-op": i, transform: "translate(" + o.x + "," + o.y + ")" });
      // ANE regions alternate two greens, so neighbouring regions part.
      e.appendChild(sv("rect", { width: 180, height: 26, rx: 3, "class": o.cls + (o.cls === "ane" && o.region % 2 === 0 ? " ane2" : "") }));
      if (o.marks && o.marks.indexOf("fp32") >= 0) e.appendChild(sv("rect", { x: 170, y: 1, width: 9, height: 24, "class": "f32tag" }));
      var label = (o.marks && o.marks.indexOf("state") >= 0 ? "\u25c6 " : "") + (o.id || "#" + o.index) + " " + o.name.replace(/^[a-z_]+\./, "");
      var t = sv("text", { x: 4, y: 17 });
      // About 6.6 px a character: 26 fit the box, 25 beside the fp32 stripe.
      var tag = o.cls === "ane" && o.region > 0 ? " R" + o.region : "";
      t.textContent = short(label, (o.marks && o.marks.indexOf("fp32") >= 0 ? 25 : 26) - tag.length) + tag;
      e.appendChild(t);
      var tip = sv("title", {});
      tip.textContent = (o.id || "#" + o.index) + " " + o.name + (o.src ? " at " + o.src : "") + " \u2014 " + o.dev;
      e.appendChild(tip);
      e.addEventListener("click", function () { show(i); });
      opEl[i] = e;
      s.appendChild(e);
    });
    groupEl[gi].body.appendChild(s);
    drawn[gi] = true;
  }

  var selected = -1;
  function show(i) {
    if (selected >= 0 && opEl[selected]) opEl[selected].classList.remove("sel");
    selected = i;
    if (opEl[i]) opEl[i].classList.add("sel");
    var o = D.ops[i];
    side.textContent = "";
    side.appendChild(el("h1", "", (o.id || "#" + o.index) + " " + o.name));
    var kv = el("div", "kv");
    function row(k, v) { if (v === undefined || v === "" || v === null) return; kv.appendChild(el("b", "", k)); kv.appendChild(el("span", "", v)); }
    row("device", o.dev);
    row("measured", o.measured);
    row("reason", o.reason);
    row("graph", "@" + o.graph + " op " + o.index);
    row("region", o.region);
    row("segment", o.segment);
    row("source", o.src);
    row("element types", (o.types || []).join(", "));
    row("marks", (o.marks || []).join(", "));
    row("change", o.chg);
    var og = D.groups[o.g], os = D.sections[og.sec];
    row("group", disp(os.name) + " \u203a " + (os.repeats > 1 ? "#" + og.repeat + " " : "") + disp(og.name));
    row("inputs", (o.in || []).map(function (j) { return D.ops[j].id || "#" + D.ops[j].index; }).join(", "));
    side.appendChild(kv);
    (o.f || []).forEach(function (k) {
      var f = D.findings[k];
      var b = el("div", "f " + f.sev);
      b.appendChild(el("div", "rule", f.sev + ": " + f.rule));
      b.appendChild(el("div", "", f.msg));
      if (f.detail) b.appendChild(el("div", "", f.detail));
      if (f.fix) b.appendChild(el("div", "", "fix: " + f.fix));
      if (f.src) b.appendChild(el("div", "", "source: " + f.src));
      side.appendChild(b);
    });
  }

  // Search: an op id equal to the text, or a source equal to it or
  // starting with it and ":" (file:line finds file:line:col). Enter moves
  // to the next hit.
  var lastHits = [], lastQ = null, lastHit = null;
  function ends(s, t) { return s.length >= t.length && s.lastIndexOf(t) === s.length - t.length; }
  // srcMatch: the source is the text, or ends in "/" + text (a path
  // suffix), or either followed by ":" (file:line finds file:line:col).
  function srcMatch(src, text) {
    if (!src) return false;
    return src === text || ends(src, "/" + text) || src.lastIndexOf(text + ":", 0) === 0 || src.indexOf("/" + text + ":") >= 0;
  }
  // find returns the op with that id first, then the ops ID#2, ID#3, …
  // sharing its FX name, then the ops at that source, each in program order.
  function find(text) {
    var exact = [], named = [], at = [];
    for (var i = 0; i < D.ops.length; i++) {
      var o = D.ops[i];
      if (o.id === text) exact.push(i);
      else if (o.id.lastIndexOf(text + "#", 0) === 0) named.push(i);
      else if (srcMatch(o.src, text)) at.push(i);
    }
    return exact.concat(named, at);
  }
  function search(text, step) {
    text = text.trim();
    if (text !== lastQ) { lastQ = text; lastHits = text ? find(text) : []; step = 0; lastHit = -1; }
    if (!lastHits.length) { hits.textContent = text ? "no op matches" : ""; return -1; }
    lastHit = (lastHit + 1 + (step || 0)) % lastHits.length;
    if (lastHit < 0) lastHit = 0;
    var i = lastHits[lastHit];
    hits.textContent = (lastHit + 1) + " of " + lastHits.length;
    reveal(i);
    return i;
  }
  var lit = null;
  function reveal(i) {
    toggle(D.ops[i].g, true);
    if (lit) lit.classList.remove("hit");
    lit = opEl[i];
    lit.classList.add("hit");
    lit.scrollIntoView({ block: "center", inline: "center" });
    show(i);
  }
  q.addEventListener("keydown", function (e) { if (e.key === "Enter") search(q.value, 0); });
  ex.addEventListener("click", function () { for (var gi = 0; gi < D.groups.length; gi++) toggle(gi, true); });
  co.addEventListener("click", function () {
    for (var gi = 0; gi < D.groups.length; gi++) toggle(gi, false);
    for (var si = 0; si < D.sections.length; si++) openSection(si, false);
  });

  function fromHash() {
    var h = location.hash.replace(/^#/, "");
    if (h.lastIndexOf("search=", 0) === 0) {
      q.value = decodeURIComponent(h.slice(7));
      search(q.value, 0);
    }
  }
  window.addEventListener("hashchange", fromHash);
  fromHash();

  var foot = el("footer");
  document.body.appendChild(foot);
  // The page's API for tests and for a user's console.
  window.anefixView = {
    search: function (text) { lastQ = null; return search(text, 0); },
    expandAll: function () { ex.click(); },
    drawnOps: function () { return document.querySelectorAll("g.op[data-op]").length; },
    selected: function () { return selected; },
    ops: D.ops.length
  };
  var ms = performance.now() - t0;
  foot.textContent = D.ops.length + " ops; page drawn in " + Math.round(ms) + " ms" + (window.anefixErrors.length ? "; errors: " + window.anefixErrors.join("; ") : "");
  document.body.dataset.ready = String(performance.now());
})();
