/* The case table of the toolsurface HTML audit: filters, search, URL-hash state and a per-case view.
 *
 * Case strings come from scenarios and targets and are untrusted: every node is built with
 * createElement and textContent from the embedded JSON, so none of them is ever parsed as HTML.
 */
(function () {
  "use strict";

  // Rows rendered at a time: the DOM and the page stay short even for a 50,000-case run.
  var PAGE = 200;
  // Filter controls and the case field each one compares.
  var FILTERS = {
    verdict: "verdict", kind: "kind", point: "point", lane: "lane", hooks: "hook_mode", scenario: "scenario",
    like: "fails_like", cause: "cause", group: "group"
  };
  var STATE = Object.keys(FILTERS).concat(["q"]);

  var payload = JSON.parse(document.getElementById("case-data").textContent);
  var cases = payload.cases.map(decoder(payload.fields, payload.strings, payload.lists));
  var byId = new Map(cases.map(function (c, i) { return [c.id, i]; }));
  var haystacks = null; // lower-cased search text per case, built on the first search

  var browser = document.getElementById("case-browser");
  var rows = document.getElementById("case-rows");
  var count = document.getElementById("case-count");
  var more = document.getElementById("case-more");
  var controls = {};
  STATE.forEach(function (name) { controls[name] = document.getElementById("f-" + name); });

  var matches = [];
  var shown = 0;
  var open = null; // index of the case whose view is open

  /* The embedded rows are positional, their strings interned: `_FIELDS` in reports/_html.py says how. */
  function decoder(fields, strings, lists) {
    function ref(i) { return i === null ? null : strings[i]; }
    return function (row) {
      var c = {};
      fields.forEach(function (field, i) {
        var name = field[0], how = field[1], value = row[i];
        if (how === "ref") c[name] = ref(value);
        else if (how === "refs") c[name] = lists[value].map(ref);
        else if (how === "split") c[name] = strings[value[0]] + strings[value[1]];
        else if (how === "around") {
          c[name] = value.length === 2 ? strings[value[0]] + c.id + strings[value[1]] : strings[value[0]];
        }
        else c[name] = value;
      });
      return c;
    };
  }

  function searchText(c) {
    var lines = [c.id, c.reason, c.error || ""].concat(c.change, c.diff, c.before, c.aftermath, c.ledger, c.facts, c.defects_killed);
    return lines.join("\n").toLowerCase();
  }

  function current() {
    var state = {};
    STATE.forEach(function (name) { state[name] = controls[name].value.trim(); });
    return state;
  }

  function matching(state) {
    var terms = state.q.toLowerCase().split(/\s+/).filter(Boolean);
    if (terms.length && !haystacks) haystacks = cases.map(searchText);
    var wanted = Object.keys(FILTERS).filter(function (name) { return state[name]; });
    var found = [];
    for (var i = 0; i < cases.length; i++) {
      var c = cases[i];
      var ok = wanted.every(function (name) { return c[FILTERS[name]] === state[name]; }) &&
        terms.every(function (term) { return haystacks[i].indexOf(term) !== -1; });
      if (ok) found.push(i);
    }
    return found;
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  function badge(verdict) {
    return verdict ? el("span", "verdict v-" + verdict, verdict) : el("span", "none", "—");
  }

  function row(i) {
    var c = cases[i];
    var tr = el("tr", "case-row");
    tr.dataset.index = String(i);
    var verdict = el("td");
    verdict.appendChild(badge(c.verdict));
    if (c.accepted) verdict.appendChild(el("span", "accepted-mark", " accepted"));
    var id = el("td", "case-id");
    var link = el("button", "case-link");
    link.type = "button";
    // Ids are long paths: let them wrap after a slash rather than at a hyphen.
    c.id.split("/").forEach(function (part, n) {
      if (n) link.append("/", el("wbr"));
      link.append(part);
    });
    link.setAttribute("aria-expanded", String(open === i));
    id.appendChild(link);
    var red = el("td");
    red.appendChild(badge(c.red_verdict));
    tr.append(verdict, id, el("td", "", c.ending), red, el("td", "reason", c.reason));
    return tr;
  }

  function lines(values) {
    return values.length ? el("pre", "", values.join("\n")) : el("span", "none", "none");
  }

  function view(i) {
    var c = cases[i];
    var tr = el("tr", "case-view");
    var td = el("td");
    td.colSpan = 5;
    var dl = el("dl");
    function item(term, node) {
      dl.append(el("dt", "", term));
      var dd = el("dd");
      dd.appendChild(typeof node === "string" ? document.createTextNode(node) : node);
      dl.append(dd);
    }
    var verdict = el("span");
    var accepted = c.accepted ? " (accepted by an expectation)" : "";
    verdict.append(badge(c.verdict), document.createTextNode(" " + c.reason + accepted));
    var red = el("span");
    var controlled = c.controlled ? " controlled: fails there, passes here" : "";
    red.append(badge(c.red_verdict), document.createTextNode((c.red_reason ? " " + c.red_reason + "." : "") + controlled));
    item("case", el("code", "", c.id));
    item("where", [c.scenario, c.lane, c.hook_mode, c.point].join(" · "));
    item("mutation", c.kind + "." + c.delivery + ":" + c.variant + " on " + c.aim + "; the guard must " + c.must + " it");
    item("verdict", verdict);
    item("red target", red);
    item("ending", c.ending + ", " + c.dispatches + " request(s) dispatched");
    item("points offered", c.points.length ? c.points.join(" → ") : el("span", "none", "none"));
    item("change", lines(c.change));
    // Every change, whole: the reason above names only the first few.
    item("surface diff", lines(c.diff));
    if (c.before.length) item("before its change", lines(c.before));
    if (c.aftermath.length) item("after its request", lines(c.aftermath));
    // As `toolsurface reproduce` shows it: every reservation and settlement, refused ones marked.
    item("ledger trace", c.ledger.length ? lines(c.ledger) : el("span", "none", "untouched"));
    item("owner facts", lines(c.facts));
    item("error", c.error ? el("pre", "", c.error) : el("span", "none", "none"));
    if (c.defects_killed.length) item("defects killed", c.defects_killed.join(", "));
    var command = el("span");
    var code = el("code", "reproduce", c.reproduce);
    var copy = el("button", "copy", "copy");
    copy.type = "button";
    copy.addEventListener("click", function (event) {
      event.stopPropagation();
      copyText(c.reproduce, code, copy);
    });
    command.append(code, copy);
    item("reproduce", command);
    td.appendChild(dl);
    tr.appendChild(td);
    return tr;
  }

  function copyText(text, code, button) {
    function said(word) {
      button.textContent = word;
      setTimeout(function () { button.textContent = "copy"; }, 1500);
    }
    function selectIt() {
      // Without clipboard access, select the command so one keystroke copies it.
      window.getSelection().selectAllChildren(code);
      said("selected");
    }
    if (!navigator.clipboard || !window.isSecureContext) return selectIt();
    navigator.clipboard.writeText(text).then(function () { said("copied"); }, selectIt);
  }

  function showMore(upTo) {
    var end = Math.min(matches.length, Math.max(shown + PAGE, upTo || 0));
    var fragment = document.createDocumentFragment();
    for (; shown < end; shown++) {
      fragment.appendChild(row(matches[shown]));
      if (matches[shown] === open) fragment.appendChild(view(open));
    }
    rows.appendChild(fragment);
    count.textContent = matches.length + " of " + cases.length + " cases match" +
      (shown < matches.length ? "; showing the first " + shown : "");
    more.hidden = shown >= matches.length;
  }

  function apply() {
    matches = matching(current());
    var at = open === null ? -1 : matches.indexOf(open);
    if (at < 0) open = null;
    rows.replaceChildren();
    shown = 0;
    showMore(at + 1);
  }

  function writeHash() {
    var state = current(), params = new URLSearchParams();
    STATE.forEach(function (name) { if (state[name]) params.set(name, state[name]); });
    if (open !== null) params.set("case", cases[open].id);
    var hash = params.toString();
    history.replaceState(null, "", hash ? "#" + hash : location.pathname + location.search);
  }

  /* Set the controls from the hash; false when the hash is no filter state (a plain #section link). */
  function readHash() {
    var params = new URLSearchParams(location.hash.slice(1));
    if (!STATE.concat(["case"]).some(function (name) { return params.has(name); })) return false;
    STATE.forEach(function (name) {
      var control = controls[name];
      control.value = params.get(name) || "";
      // A value the select has no option for means no filter, not an empty table.
      if (control.tagName === "SELECT" && control.selectedIndex < 0) control.value = "";
    });
    var id = params.get("case");
    open = id !== null && byId.has(id) ? byId.get(id) : null;
    return true;
  }

  /* Bring a linked view on screen: the open case, else the table. */
  function reveal() {
    (rows.querySelector("tr.case-view") || browser).scrollIntoView({ block: "start" });
  }

  function toggle(tr) {
    var i = Number(tr.dataset.index);
    var openView = rows.querySelector("tr.case-view");
    if (openView) {
      openView.previousElementSibling.querySelector(".case-link").setAttribute("aria-expanded", "false");
      openView.remove();
    }
    open = open === i ? null : i;
    if (open !== null) {
      tr.after(view(i));
      tr.querySelector(".case-link").setAttribute("aria-expanded", "true");
    }
    writeHash();
  }

  /* A cause's member list, built when it is first opened: thousands of links stay out of the page until asked for. */
  function members(details) {
    var list = details.querySelector("ol.members");
    if (list.childElementCount) return;
    var cause = details.dataset.cause;
    var fragment = document.createDocumentFragment();
    cases.forEach(function (c) {
      if (c.cause !== cause) return;
      var params = new URLSearchParams();
      params.set("group", c.group);
      params.set("case", c.id);
      var link = el("a", "", null);
      link.href = "#" + params.toString();
      link.appendChild(el("code", "", c.id));
      var item = el("li");
      item.append(badge(c.verdict), " ", link);
      fragment.appendChild(item);
    });
    list.appendChild(fragment);
  }
  document.querySelectorAll("details.members").forEach(function (details) {
    details.addEventListener("toggle", function () { if (details.open) members(details); });
  });

  var typing = null;
  Object.keys(FILTERS).forEach(function (name) {
    controls[name].addEventListener("change", function () { apply(); writeHash(); });
  });
  controls.q.addEventListener("input", function () {
    clearTimeout(typing);
    typing = setTimeout(function () { apply(); writeHash(); }, 150);
  });
  document.getElementById("case-reset").addEventListener("click", function () {
    STATE.forEach(function (name) { controls[name].value = ""; });
    open = null;
    apply();
    writeHash();
  });
  more.addEventListener("click", function () { showMore(); });
  rows.addEventListener("click", function (event) {
    var tr = event.target.closest("tr.case-row");
    // A reviewer selecting an id or a reason to copy it is not asking for the case view.
    if (tr && !String(window.getSelection())) toggle(tr);
  });
  window.addEventListener("hashchange", function () {
    if (readHash()) {
      apply();
      reveal();
    }
  });

  browser.hidden = false;
  var linked = readHash();
  apply();
  if (linked) reveal();
})();
