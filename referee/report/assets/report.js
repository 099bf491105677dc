// The report's script: sortable standings and the game list; replays open in the viewer (replay.js).
// Data comes from the page itself: gzip+base64 blobs decoded with DecompressionStream. No network.
(() => {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const meta = JSON.parse($("report-meta").textContent);
  const PAGE = 50;

  const { text, el } = RefereeReplay;  // the DOM helpers of the viewer (replay.js, loaded first)

  async function unpack(b64) {
    const s = atob(b64.trim());
    const bytes = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }

  // ------------------------------------------------------------------ sortable standings
  function makeSortable(table) {
    const heads = Array.from(table.tHead.rows[0].cells);
    const sortBy = (th) => {
      const col = Number(th.dataset.col);
      const numeric = th.dataset.type === "num";
      const dir = th.classList.contains("asc") ? -1 : 1;
      heads.forEach((h) => h.classList.remove("asc", "desc"));
      th.classList.add(dir === 1 ? "asc" : "desc");
      const body = table.tBodies[0];
      const rows = Array.from(body.rows);
      const key = (row) => {
        const v = row.cells[col].dataset.v;
        if (!numeric) return v.toLowerCase();
        return v === "" ? NaN : Number(v);
      };
      rows.sort((a, b) => {
        const x = key(a), y = key(b);
        if (numeric) {
          if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) - Number.isNaN(y);
          return (x - y) * dir;
        }
        return x < y ? -dir : x > y ? dir : 0;
      });
      rows.forEach((r) => body.appendChild(r));
    };
    heads.forEach((th) => {
      th.addEventListener("click", () => sortBy(th));
      th.addEventListener("keydown", (e) => { if (e.key === "Enter") sortBy(th); });
    });
  }
  const standings = $("standings-table");
  if (standings) makeSortable(standings);

  // ------------------------------------------------------------------ data
  let index = null;
  const chunks = new Map();
  const names = new Map();
  const gamesByKey = new Map();
  const faultsByGame = new Map();

  async function chunk(i) {
    if (!chunks.has(i)) {
      const node = document.querySelector(`script.replay-chunk[data-chunk="${i}"]`);
      chunks.set(i, unpack(node.textContent));
    }
    return chunks.get(i);
  }

  const nameOf = (key) => names.get(key) ?? `#${key}`;

  // ------------------------------------------------------------------ game list
  let page = 0;
  function filteredGames() {
    const who = $("game-filter").value;
    const faulted = $("game-faulted").checked;
    return index.games.filter((g) =>
      (who === "" || g.seats.includes(Number(who))) && (!faulted || faultsByGame.has(g.key)));
  }

  function renderGames() {
    const games = filteredGames();
    const pages = Math.max(1, Math.ceil(games.length / PAGE));
    page = Math.min(Math.max(page, 0), pages - 1);
    const body = $("game-table").tBodies[0];
    body.replaceChildren();
    const start = page * PAGE;
    for (const g of games.slice(start, start + PAGE)) {
      const tr = el("tr");
      tr.dataset.game = g.key;
      if (faultsByGame.has(g.key)) tr.classList.add("faulted");
      tr.appendChild(el("td", "", String(index.games.indexOf(g) + 1)));
      tr.appendChild(el("td", "", g.label));
      const seats = g.seats.map((e, s) => {
        let t = `${s}: ${nameOf(e)}`;
        if (g.scores.length) t += ` (${g.scores[s]}, #${g.ranks[s]})`;
        if (g.forfeits.includes(s)) t += " forfeit";
        return t;
      });
      tr.appendChild(el("td", "", seats.join(" · ")));
      const winners = g.ranks.length ? g.seats.filter((_, s) => g.ranks[s] === 1).map(nameOf) : [];
      tr.appendChild(el("td", "", [...new Set(winners)].join(", ")));
      tr.appendChild(el("td", "", g.seed === null ? "" : String(g.seed)));
      const cell = el("td");
      if (g.replay) {
        const a = el("a", "", "watch");
        a.href = `#replay/${g.key}`;
        cell.appendChild(a);
      } else {
        cell.appendChild(el("span", "hint", g.note || "no replay"));
      }
      tr.appendChild(cell);
      body.appendChild(tr);
    }
    text($("game-count"), `${games.length} game${games.length === 1 ? "" : "s"}`);
    text($("page-info"), `page ${page + 1} of ${pages}`);
    $("page-prev").disabled = page === 0;
    $("page-next").disabled = page >= pages - 1;
  }

  // ------------------------------------------------------------------ replay viewer
  const viewer = RefereeReplay.create({ nameOf, faultsOf: (key) => faultsByGame.get(key) });

  async function openReplay(key, target) {
    const game = gamesByKey.get(key);
    $("replay-empty").hidden = false;
    $("replay-view").hidden = true;
    if (!game) { text($("replay-empty"), `No game ${key} in this report.`); return; }
    if (!game.replay) {
      text($("replay-empty"), `Game ${game.label}: ${game.note || "no replay available"}.`);
      return;
    }
    const reps = await chunk(game.replay[0]);
    $("replay-empty").hidden = true;
    viewer.show(game, reps[game.replay[1]], target);
    $("replay").scrollIntoView();
  }

  function route() {
    const m = /^#replay\/(-?\d+)(?:\/(\w+))?$/.exec(location.hash);
    if (m) openReplay(Number(m[1]), m[2]);
  }

  // ------------------------------------------------------------------ start
  async function start() {
    index = await unpack($("report-index").textContent);
    index.entrants.forEach((e) => names.set(e.key, e.name));
    index.games.forEach((g) => gamesByKey.set(g.key, g));
    index.faults.forEach((f) => {
      if (!faultsByGame.has(f.game)) faultsByGame.set(f.game, []);
      faultsByGame.get(f.game).push(f);
    });
    $("game-filter").addEventListener("change", () => { page = 0; renderGames(); });
    $("game-faulted").addEventListener("change", () => { page = 0; renderGames(); });
    $("page-prev").addEventListener("click", () => { page -= 1; renderGames(); });
    $("page-next").addEventListener("click", () => { page += 1; renderGames(); });
    window.addEventListener("hashchange", route);
    renderGames();
    route();
    document.body.dataset.ready = "1";
  }
  start().catch((err) => {
    document.body.dataset.ready = "error";
    const p = el("p", "banner partial", `This report's data could not be read: ${err}`);
    document.querySelector("main").prepend(p);
  });
})();
