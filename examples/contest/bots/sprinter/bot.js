// sprinter: an entrant of the example contest, in JavaScript for node (no packages, no SDK).
// It tries to empty its hand fast: it plays the value it holds most copies of among those it may play
// (spending as many bonus chips as needed), and drops out when it cannot play at all.
"use strict";

const lines = require("readline").createInterface({ input: process.stdin });
let step = 5;

function answer(obj) {
  process.stdout.write(JSON.stringify(obj) + "\n");
}

function bestPlay(turn) {
  if (turn.last === null) return { type: "play", value: 1, count: 1, bonus: 0 };
  const chips = turn.players[turn.seat].bonus;
  const counts = new Map();
  turn.hand.forEach((card) => counts.set(card, (counts.get(card) || 0) + 1));
  let best = null;
  for (const [value, count] of counts) {
    const bonus = value >= turn.last ? 0 : Math.ceil((turn.last - value) / step);
    if (bonus > chips) continue;
    if (best === null || count > best.count || (count === best.count && bonus < best.bonus)) {
      best = { type: "play", value, count, bonus };
    }
  }
  return best || { type: "drop" };
}

lines.on("line", (text) => {
  const msg = JSON.parse(text);
  if (msg.type === "hello") answer({ type: "hello", protocol: 1, name: "sprinter" });
  else if (msg.type === "game_start") step = (msg.rules && msg.rules.bonus_step) || 5;
  else if (msg.type === "deal") {
    const pool = msg.hand.filter((c) => c !== 1);
    answer({ type: "discard", cards: pool.slice(pool.length - msg.discard) }); // the highest (none when 0)
  }
  else if (msg.type === "turn") answer(bestPlay(msg));
  else if (msg.type === "bye") process.exit(0);
});
lines.on("close", () => process.exit(0));
