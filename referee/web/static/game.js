// The game page: the report's replay viewer (replay.js, RefereeReplay) on the game's replay from the API.
(() => {
  "use strict";
  const section = document.getElementById("replay");
  const empty = document.getElementById("replay-empty");
  fetch(section.dataset.replay, { credentials: "same-origin", headers: { Accept: "application/json" } })
    .then((res) => res.json().then((body) => {
      if (!res.ok) throw new Error(body.error || String(res.status));
      return body;
    }))
    .then((data) => {
      const viewer = RefereeReplay.create({
        nameOf: (seat) => data.names[seat],
        faultsOf: () => data.faults,
        stderrOf: () => data.stderr || [],
        stderrFull: () => data.stderr_full || [],
      });
      empty.hidden = true;
      viewer.show(data.game, data.replay, location.hash === "#fault" ? "fault" : undefined);
      document.body.dataset.ready = "1";
    })
    .catch((err) => {
      empty.textContent = `No replay: ${err.message}`;
      document.body.dataset.ready = "error";
    });
})();
