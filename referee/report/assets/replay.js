// The replay viewer: a game's compact replay (format: referee.runner.replay) shown frame by frame in the
// viewer's markup (referee.report.viewer.REPLAY_MARKUP). One viewer for the report and the ladder's game page:
// RefereeReplay.create({nameOf, faultsOf, stderrOf}) binds the controls and returns {show(game, rep, target)}; its
// DOM helpers text() and el() serve the pages that load it.
window.RefereeReplay = (() => {
  "use strict";
  const $ = (id) => document.getElementById(id);
  function text(node, value) { node.textContent = value; return node; }
  function el(tag, cls, content) {
    const n = document.createElement(tag);
    if (cls) n.className = cls;
    if (content !== undefined) n.textContent = content;
    return n;
  }

  // nameOf(entrant key) -> its name; faultsOf(game key) -> the game's faults [{seat, kind, detail}, ...];
  // stderrOf (optional; the ladder's game page, to a bot's author) -> what bots wrote on stderr, request by request
  // [{seat, round, step, at, text}, ...] (at: start, deal, turn or end; a turn's step: the round's events before it);
  // stderrFull (optional) -> the seats of those whose stderr file was full before the game [seat, ...]
  function create({ nameOf, faultsOf, stderrOf, stderrFull }) {
    let view = null;

    // ------------------------------------------------------------------ replay frames
    const STATUS = ["playing", "finished", "dropped"];

    function describe(ev, players) {
      const who = (s) => players[s];
      const seat = ev[0];
      if (ev[1] === 0) {
        const [, , value, count, bonus, penalty, flags] = ev;
        if (flags & 2) return `Referee plays the 1 for ${who(seat)} (forfeit)`;
        let t = `${who(seat)} plays ${count} × ${value}`;
        if (bonus) t += `, spending ${bonus} bonus chip${bonus === 1 ? "" : "s"}`;
        if (flags & 1) return `${t} and finishes the round (net ${penalty >= 0 ? "+" : ""}${penalty} penalty)`;
        if (penalty) t += `, taking ${penalty} penalty chip${penalty === 1 ? "" : "s"}`;
        return t;
      }
      if (ev[1] === 1) {
        const [, , force, penalty, next] = ev;
        if (force) return `${who(seat)} passes and forces ${next >= 0 ? who(next) : "the next player"} (+${penalty})`;
        return `${who(seat)} passes (+${penalty})`;
      }
      const [, , penalty, flags] = ev;
      if (flags & 1) return `${who(seat)} forfeits and drops out (+${penalty} for the cards in hand)`;
      if (flags & 2) return `Turn limit: ${who(seat)} drops out (+${penalty})`;
      return `${who(seat)} drops out (+${penalty} for the cards in hand)`;
    }

    function removeCards(hand, value, count) {
      const out = hand.slice();
      for (let k = 0; k < count; k++) {
        const i = out.indexOf(value);
        if (i >= 0) out.splice(i, 1);
      }
      return out;
    }

    function buildFrames(game, rep) {
      const n = rep.n;
      const players = game.seats.map((e, s) => `${nameOf(e)} [${s}]`);
      const frames = [];
      const faults = (faultsOf(game.key) || []).slice();
      const pendingFault = new Map(faults.map((f) => [f.seat, f]));
      const forfeited = new Set();  // seats that have forfeited so far
      rep.r.forEach((round, r) => {
        let hands = round.h.map((h) => h.slice());
        const pen = round.p.slice(), bon = round.b.slice();
        const status = new Array(n).fill(0);
        let last = null, toMove = -1, forced = false;
        const history = round.e.map((ev) => describe(ev, players));
        const snap = (extra) => Object.assign({
          round: r + 1, hands: hands.map((h) => h.slice()), pen: pen.slice(), bon: bon.slice(),
          status: status.slice(), last, toMove, forced, history, discards: null, ev: -1, fault: null,
          forfeited: Array.from(forfeited),
        }, extra);
        frames.push(snap({ kind: "deal", text: `Round ${r + 1}: the deal (all hands revealed)` }));
        hands = hands.map((h, s) => {
          let out = h;
          for (const c of round.d[s] || []) out = removeCards(out, c, 1);
          return out;
        });
        const opener = round.e.find((ev) => !(ev[1] === 0 && ev[6] & 2) && !(ev[1] === 2 && ev[3] & 1));
        toMove = opener ? opener[0] : -1;
        frames.push(snap({ kind: "discard", discards: round.d, text: `Round ${r + 1}: every player discards ${round.d[0] ? round.d[0].length : 0} cards face down` }));
        round.e.forEach((ev, i) => {
          const seat = ev[0];
          let fault = null;
          if (ev[1] === 0) {
            hands[seat] = removeCards(hands[seat], ev[2], ev[3]);
            pen[seat] += ev[5];
            bon[seat] -= ev[4];
            last = ev[2];
            if (ev[6] & 1) status[seat] = 1;
            forced = false;
            toMove = ev[7];
          } else if (ev[1] === 1) {
            pen[seat] += ev[3];
            toMove = ev[4];
            forced = ev[2] === 1 && toMove >= 0;
          } else {
            pen[seat] += ev[2];
            status[seat] = 2;
            // a forfeit out of turn leaves a force on the seat to move in place; any other drop ends it
            if (!(ev[3] & 1) || seat === toMove) forced = false;
            toMove = ev[4];
            if (toMove < 0) forced = false;
          }
          const isForfeit = (ev[1] === 0 && ev[6] & 2) || (ev[1] === 2 && ev[3] & 1);
          if (isForfeit) forfeited.add(seat);
          // the fault shows on the forfeiter's drop: the referee's play of an unplayed 1 for it comes first
          if (isForfeit && ev[1] === 2 && pendingFault.has(seat)) {
            const f = pendingFault.get(seat);
            pendingFault.delete(seat);
            fault = `Fault by ${players[seat]}: ${f.kind}${f.detail ? " — " + f.detail : ""}`;
          }
          frames.push(snap({ kind: "event", ev: i, text: history[i], fault }));
        });
      });
      if (rep.s) {
        const order = rep.s.map((sc, s) => `${players[s]}: ${sc} (rank ${rep.k[s]})`);
        const lastFrame = frames[frames.length - 1];
        frames.push(Object.assign({}, lastFrame, {
          kind: "over", ev: -1, toMove: -1, forced: false, fault: null, forfeited: rep.f,
          text: `Game over. Scores: ${order.join(", ")}`, scores: rep.s, ranks: rep.k,
        }));
      }
      for (const f of pendingFault.values()) {
        // a fault with no forfeit event of its own (the bot had already left the round): note it on the last frame
        const lastFrame = frames[frames.length - 1];
        lastFrame.fault = (lastFrame.fault ? lastFrame.fault + "; " : "") +
          `Fault by ${players[f.seat]}: ${f.kind}${f.detail ? " — " + f.detail : ""}`;
      }
      // stderrFull (optional) -> the seats whose stderr file was full before the game: said on the first frame
      (stderrFull ? stderrFull(game.key) || [] : []).forEach((seat) => {
        frames[0].stderr = (frames[0].stderr || []).concat([{ seat, at: "full", text: "" }]);
      });
      (stderrOf ? stderrOf(game.key) || [] : []).forEach((seg) => {
        const f = frames[stderrFrame(frames, seg)];
        f.stderr = (f.stderr || []).concat([seg]);
      });
      return { frames, players };
    }

    // the frame a stderr segment goes with: the move it was written while choosing (a turn), the round's discard
    // (a deal), the first frame (the bot's start) or the end; a move that never came (a fault): its round's last frame
    function stderrFrame(frames, seg) {
      const last = frames.length - 1;
      const find = (test) => frames.findIndex(test);
      const lastOf = (test) => { for (let i = last; i >= 0; i--) if (test(frames[i])) return i; return -1; };
      let i = -1;
      if (seg.at === "start") i = 0;
      else if (seg.at === "end") i = last;
      else if (seg.at === "deal") i = find((f) => f.kind === "discard" && f.round === seg.round);
      else i = find((f) => f.kind === "event" && f.round === seg.round && f.ev === seg.step);
      if (i < 0) i = lastOf((f) => f.round === seg.round);
      return i < 0 ? last : i;
    }

    const WHEN = {
      start: "at the game's start", deal: "while choosing its discard", turn: "while choosing this move",
      end: "after its last reply",
    };

    function showStderr(f) {
      const box = $("rp-stderr");
      if (!box) return;
      const segs = f.stderr || [];
      box.hidden = segs.length === 0;
      box.replaceChildren();
      segs.forEach((seg) => {
        if (seg.at === "full") {
          box.appendChild(el("div", "rp-stderr-head", `stderr of ${view.players[seg.seat]}: nothing kept for this ` +
            "game (its stderr file had reached its cap before it)"));
          return;
        }
        box.appendChild(el("div", "rp-stderr-head", `stderr of ${view.players[seg.seat]} ${WHEN[seg.at] || ""}`));
        box.appendChild(el("pre", "rp-stderr-text", seg.text));
      });
    }

    function cardSpan(value, cls) { return el("span", "card" + (cls ? " " + cls : ""), String(value)); }

    function showFrame(i) {
      if (!view) return;
      const frames = view.frames;
      i = Math.max(0, Math.min(frames.length - 1, i));
      view.pos = i;
      const f = frames[i];
      $("replay-view").dataset.frame = String(i);
      $("replay-view").dataset.kind = f.kind;
      $("rp-slider").value = String(i);
      text($("rp-pos"), `step ${i + 1} of ${frames.length} · round ${f.round}`);
      text($("rp-event"), f.text);
      const fault = $("rp-fault");
      fault.hidden = !f.fault;
      text(fault, f.fault || "");
      showStderr(f);
      text($("rp-last-played"), f.last === null ? "Last: nothing played yet this round" : `Last: ${f.last}`);
      const body = $("rp-table").tBodies[0];
      body.replaceChildren();
      f.hands.forEach((hand, s) => {
        const tr = el("tr");
        tr.dataset.seat = String(s);
        if (s === f.toMove) tr.classList.add("to-move");
        tr.appendChild(el("td", "seat", String(s)));
        const who = el("td", "entrant", nameOf(view.game.seats[s]));
        if (s === f.toMove) who.appendChild(el("span", "tag turn", "to move"));
        if (s === f.toMove && f.forced) who.appendChild(el("span", "tag forced", "forced"));
        if (f.forfeited.includes(s)) who.appendChild(el("span", "tag forfeit", "forfeit"));
        tr.appendChild(who);
        const st = STATUS[f.status[s]];
        tr.appendChild(el("td", "status status-" + st, st));
        const handCell = el("td", "hand");
        hand.forEach((c) => handCell.appendChild(cardSpan(c, st === "dropped" ? "gone" : "")));
        if (f.discards && f.discards[s]) f.discards[s].forEach((c) => handCell.appendChild(cardSpan(c, "discard")));
        tr.appendChild(handCell);
        tr.appendChild(el("td", "cards", String(hand.length)));
        tr.appendChild(el("td", "penalty", String(f.pen[s])));
        tr.appendChild(el("td", "bonus", String(f.bon[s])));
        tr.appendChild(el("td", "result", f.scores ? `score ${f.scores[s]}, rank ${f.ranks[s]}` : ""));
        body.appendChild(tr);
      });
      const list = $("rp-history");
      list.replaceChildren();
      let current = null;
      f.history.forEach((t, k) => {
        const li = el("li", k === f.ev ? "current" : f.kind !== "over" && (f.ev < 0 || k > f.ev) ? "future" : "", t);
        if (view.stderrAt.has(`${f.round}:${k}`)) li.classList.add("has-stderr");
        if (k === f.ev) current = li;
        list.appendChild(li);
      });
      // keep the current event in sight inside the list, without scrolling the page
      list.scrollTop = current ? Math.max(0, current.offsetTop - list.clientHeight / 2) : 0;
      $("rp-first").disabled = $("rp-prev").disabled = i === 0;
      $("rp-last").disabled = $("rp-next").disabled = i === frames.length - 1;
    }

    // show GAME (its key, label, seats, seed) from its replay REP, at TARGET: "fault", "end", a step number or the start
    function show(game, rep, target) {
      const built = buildFrames(game, rep);
      const stderrAt = new Set();  // "round:event" of the moves with stderr, marked in the history
      built.frames.forEach((f) => { if (f.stderr && f.kind === "event") stderrAt.add(`${f.round}:${f.ev}`); });
      view = { game, rep, frames: built.frames, players: built.players, stderrAt, pos: 0 };
      $("replay-view").hidden = false;
      $("replay-view").dataset.game = String(game.key);
      const seats = game.seats.map((e, s) => `${s}: ${nameOf(e)}`).join(", ");
      text($("replay-title"), `Game ${game.label}${game.seed === null ? "" : " · seed " + game.seed} · ${seats}`);
      $("rp-slider").max = String(built.frames.length - 1);
      let start = 0;
      if (target === "fault") start = Math.max(0, built.frames.findIndex((f) => f.fault));
      else if (target === "end") start = built.frames.length - 1;
      else if (/^\d+$/.test(target || "")) start = Number(target) - 1;
      showFrame(start);
    }

    $("rp-first").addEventListener("click", () => showFrame(0));
    $("rp-prev").addEventListener("click", () => showFrame(view.pos - 1));
    $("rp-next").addEventListener("click", () => showFrame(view.pos + 1));
    $("rp-last").addEventListener("click", () => showFrame(view.frames.length - 1));
    $("rp-slider").addEventListener("input", (e) => showFrame(Number(e.target.value)));
    document.addEventListener("keydown", (e) => {
      if (!view || $("replay-view").hidden || e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
      if (e.key === "ArrowRight") showFrame(view.pos + 1);
      else if (e.key === "ArrowLeft") showFrame(view.pos - 1);
      else if (e.key === "Home") showFrame(0);
      else if (e.key === "End") showFrame(view.frames.length - 1);
    });
    return { show };
  }

  return { create, text, el };
})();
