#!/usr/bin/env node
// A bot for the card game 23 in plain JavaScript (node, no packages): a template to start from.
//
// The referee talks to the bot over stdin/stdout, one JSON object per line (protocol v1, see PROTOCOL.md).
// Messages `hello`, `deal` and `turn` need exactly one reply line; every other message needs none, and
// messages or fields this bot does not know are ignored. Nothing but protocol lines may go to stdout:
// log to stderr (console.error), which the referee saves for you.
//
// Strategy (replace it with yours): discard the three highest cards, open with the 1, then play the
// cheapest value at or above the last play (all copies of it), pass when every play costs more than a
// pass (unless the table is stalled since our own last pass), spend bonus chips only when forced, alone or
// stalled, and drop when nothing can be played.
"use strict";

const readline = require("readline");

const NAME = "js-template";
const BONUS_STEP = 5; // rules.bonus_step of the standard ruleset; game_start carries the real value

let rules = { bonus_step: BONUS_STEP, discard: 3 };

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

// Cards of `hand` (sorted ascending) grouped by value: [[value, count], ...] ascending.
function groups(hand) {
  const out = [];
  for (const card of hand) {
    if (out.length && out[out.length - 1][0] === card) out[out.length - 1][1] += 1;
    else out.push([card, 1]);
  }
  return out;
}

function chooseDiscard(hand, n) {
  // The n highest cards; the 1 may never be discarded (it is the lowest, so it is never among them
  // unless the hand is tiny).
  const pool = hand.filter((c) => c !== 1);
  return pool.slice(pool.length - n); // (slice(-n) would keep the whole hand when n is 0)
}

function stalled(history, seat) {
  for (let i = history.length - 1; i >= 0; i--) {
    if (history[i].action === "play") return false;
    if (history[i].action === "pass" && history[i].seat === seat) return true;
  }
  return false;
}

function chooseMove(msg) {
  const hand = msg.hand;
  const last = msg.last;
  if (last === null) return { type: "play", value: 1, count: 1, bonus: 0 }; // we hold the 1: open with it

  const me = msg.players[msg.seat];
  const alone = msg.players.every((p, seat) => seat === msg.seat || p.status !== "playing");
  const step = rules.bonus_step || BONUS_STEP;

  // Plays without bonus chips: penalty = chips for the values skipped over last.
  let best = null;
  for (const [value, count] of groups(hand)) {
    if (value < last) continue;
    const penalty = Math.max(0, value - last - 1);
    if (best === null || penalty < best.penalty) best = { value, count, penalty };
  }
  // Passing alone, or again when nobody has played since our own last pass, would only repeat until the
  // turn limit.
  const canPass = !msg.forced && !alone && !stalled(msg.history, msg.seat);
  if (best !== null && (best.penalty <= 1 || !canPass)) {
    return { type: "play", value: best.value, count: best.count, bonus: 0 };
  }
  if (canPass) return { type: "pass" };

  // Forced (or alone) and no plain play: the highest card we can lift over last with the fewest chips.
  for (const [value, count] of groups(hand).reverse()) {
    const need = Math.ceil((last - value) / step);
    if (need <= me.bonus) return { type: "play", value, count, bonus: need };
  }
  return { type: "drop" };
}

function handle(msg) {
  switch (msg.type) {
    case "hello":
      send({ type: "hello", protocol: 1, name: NAME });
      break;
    case "game_start":
      rules = Object.assign({ bonus_step: BONUS_STEP, discard: 3 }, msg.rules || {});
      break;
    case "deal":
      send({ type: "discard", cards: chooseDiscard(msg.hand, msg.discard) });
      break;
    case "turn":
      send(chooseMove(msg));
      break;
    case "error":
      console.error(`referee says: ${msg.message}`);
      break;
    case "bye":
      process.exit(0);
      break;
    default:
      break; // round_end, game_end and message types added later need no reply
  }
}

const input = readline.createInterface({ input: process.stdin, terminal: false });
input.on("line", (line) => {
  if (!line.trim()) return;
  handle(JSON.parse(line));
});
input.on("close", () => process.exit(0));
