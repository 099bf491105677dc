// Live updates without a reload: the leaderboard's rows and a version's status follow the API while the page is open.
// The page is complete without this script (server-rendered); this only keeps it current. Text goes in through
// textContent, never as markup.
(() => {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const FINAL = new Set(["failed", "retired"]);

  function fmt(v, places) { return v === null || v === undefined ? "–" : Number(v).toFixed(places); }
  function interval(ci) { return ci ? `[${fmt(ci[0], 3)}, ${fmt(ci[1], 3)}]` : "–"; }
  function live(r) { return r.live_mu === null ? "–" : `${fmt(r.live_mu, 1)} ± ${fmt(r.live_sigma, 1)}`; }
  function age(stamp) {
    const s = Math.max(0, (Date.now() - Date.parse(stamp)) / 1000);
    for (const [unit, size] of [["d", 86400], ["h", 3600], ["min", 60]]) if (s >= size) return `${Math.floor(s / size)} ${unit}`;
    return `${Math.floor(s)} s`;
  }
  function link(href, label) {
    const a = document.createElement("a");
    a.href = href;
    a.textContent = label;
    return a;
  }
  const entrantHref = (name) => `/entrants/${encodeURIComponent(name)}`;
  const versionHref = (r) => `${entrantHref(r.entrant)}/versions/${r.version}`;

  function cell(tr, field, cls) {
    const td = document.createElement("td");
    if (cls) td.className = cls;
    if (field) td.dataset.f = field;
    tr.appendChild(td);
    return td;
  }

  // the fields of a row and their text, for the ranked table and the placement table
  const RANKED = {
    place: (r) => String(r.place),
    rank_interval: (r) => r.rank_interval[0] === r.rank_interval[1] ? `${r.rank_interval[0]}` : `${r.rank_interval[0]}–${r.rank_interval[1]}`,
    matchpoints: (r) => fmt(r.matchpoints, 3),
    matchpoints_ci95: (r) => interval(r.matchpoints_ci95),
    live, blocks: (r) => String(r.blocks), opponents: (r) => String(r.opponents), games: (r) => String(r.games), forfeits: (r) => String(r.forfeits),
    separated: (r) => (r.separated_from_next ? "separated" : ""),
    age: (r) => age(r.submitted_at),
  };
  const PLACEMENT = { live, blocks: RANKED.blocks, games: RANKED.games, age: RANKED.age };

  function newRow(r, ranked) {
    const tr = document.createElement("tr");
    tr.dataset.key = r.key;
    if (ranked) { cell(tr, "place", "num"); cell(tr, "rank_interval"); }
    cell(tr, null, "name").appendChild(link(entrantHref(r.entrant), r.entrant));
    cell(tr, null).appendChild(link(versionHref(r), `#${r.version}`));
    if (ranked) { cell(tr, "matchpoints", "num"); cell(tr, "matchpoints_ci95"); }
    cell(tr, "live", "num"); cell(tr, "blocks", "num");
    if (ranked) { cell(tr, "opponents", "num"); }
    cell(tr, "games", "num");
    if (ranked) { cell(tr, "forfeits", "num"); cell(tr, "separated", "sep"); }
    cell(tr, "age");
    return tr;
  }

  function updateTable(table, rows, fields, ranked, emptyText) {
    const body = table.tBodies[0];
    const byKey = new Map(Array.from(body.rows).filter((tr) => tr.dataset.key).map((tr) => [tr.dataset.key, tr]));
    const wanted = [];
    for (const r of rows) {
      let tr = byKey.get(r.key);
      if (!tr) { tr = newRow(r, ranked); tr.classList.add("flash"); }
      byKey.delete(r.key);
      for (const [field, text] of Object.entries(fields)) {
        const td = tr.querySelector(`td[data-f="${field}"]`);
        if (!td) continue;
        const value = text(r);
        if (td.textContent !== value) {
          td.textContent = value;
          if (field === "age") continue;  // time passing is no news
          td.classList.remove("flash");
          void td.offsetWidth;  // restart the highlight
          td.classList.add("flash");
        }
      }
      wanted.push(tr);
    }
    // rows keep their elements (no flicker); only their order and the set change
    body.replaceChildren(...wanted);
    if (!wanted.length) {
      const tr = document.createElement("tr");
      tr.className = "none";
      const td = cell(tr, null, "empty");
      td.colSpan = table.tHead.rows[0].cells.length;
      td.textContent = emptyText;
      body.appendChild(tr);
    }
  }

  async function poll(url) {
    const res = await fetch(url, { credentials: "same-origin", cache: "no-store", headers: { Accept: "application/json" } });
    if (!res.ok) throw new Error(`${res.status}`);
    return res.json();
  }

  function every(ms, step) {
    const status = $("live-status");
    const tick = async () => {
      try {
        await step();
        document.body.dataset.live = String(Number(document.body.dataset.live || 0) + 1);
      } catch (err) {
        if (status) status.textContent = `live updates paused (${err.message}); retrying`;
      }
      setTimeout(tick, ms);
    };
    setTimeout(tick, ms);
  }

  const standings = $("standings");
  if (standings) {
    every(Number(standings.dataset.poll), async () => {
      const board = await poll("/api/leaderboard");
      updateTable($("leaderboard"), board.ranked, RANKED, true, "No ranked version yet.");
      updateTable($("placement-table"), board.placement, PLACEMENT, false, "No version in placement.");
      $("live-status").textContent = `as of ${board.computed_at} · updating live`;
      $("subtitle").textContent = `${board.blocks} blocks · ${board.games} games`;
    });
  }

  const version = $("version");
  if (version && !FINAL.has(version.dataset.state)) {
    every(Number(version.dataset.poll), async () => {
      const v = await poll(version.dataset.api);
      let counts = `${v.blocks} blocks, ${v.games} games, ${v.forfeits} forfeits`;
      if (v.state === "placement") counts += `, ${v.placement_left} placement blocks to go`;
      $("version-counts").textContent = counts;
      if (v.state !== version.dataset.state) location.reload();  // a new state: its gate and reasons to show
    });
  }
})();
