#!/usr/bin/env node
// js_bot: a protocol v1 bot in plain JavaScript for node, with no packages.
//
// Strategy (greedy, with sense about stalls): discard the highest cards that are not part of a pair; on a turn,
// take the cheapest play (penalty chips, plus the end value of bonus chips spent, less the refund when it
// finishes the hand) if it costs at most a pass; otherwise pass, unless the table is stalled (its own last
// pass changed nothing), nobody else is left, or it is forced; then play the cheapest play or drop out,
// whichever costs less.
//
// It checks every number it receives (cards 1..23, seats, counts) and logs anything odd on stderr; stdout
// carries protocol lines only. Run: node sample_bots/js_bot.js
'use strict';

const readline = require('readline');

const NAME = 'js_bot';
const PROTOCOL = 1;

let game = null; // per-game state, reset on game_start

function send(msg) {
  process.stdout.write(JSON.stringify(msg) + '\n');
}

function log(text) {
  process.stderr.write('[js_bot] ' + text + '\n');
}

// ---------------------------------------------------------------------------------------------- checks

class BadMessage extends Error {}

function need(ok, what) {
  if (!ok) throw new BadMessage(what);
}

function isInt(x, lo, hi) {
  return Number.isInteger(x) && (lo === undefined || x >= lo) && (hi === undefined || x <= hi);
}

function checkCards(cards, field) {
  need(Array.isArray(cards), `${field} must be a list`);
  cards.forEach((c, i) => need(isInt(c, 1, 23), `${field}[${i}] must be a card 1..23, got ${JSON.stringify(c)}`));
}

function checkPlayers(players, field) {
  need(Array.isArray(players) && players.length >= 2 && players.length <= 4, `${field} must list 2 to 4 players`);
  players.forEach((p, i) => {
    const at = `${field}[${i}]`;
    need(p !== null && typeof p === 'object', `${at} must be an object`);
    need(typeof p.name === 'string', `${at}.name must be a string`);
    need(isInt(p.cards, 0, 23), `${at}.cards must be a card count`);
    need(isInt(p.penalty), `${at}.penalty must be an integer`);
    need(isInt(p.bonus, 0), `${at}.bonus must be a non-negative integer`);
    need(['playing', 'finished', 'dropped'].includes(p.status), `${at}.status must be playing, finished or dropped`);
  });
}

function checkHistory(history, players) {
  need(Array.isArray(history), 'history must be a list');
  history.forEach((e, i) => {
    const at = `history[${i}]`;
    need(e !== null && typeof e === 'object', `${at} must be an object`);
    need(isInt(e.seat, 0, players - 1), `${at}.seat must be a seat`);
    need(isInt(e.penalty), `${at}.penalty must be an integer`);
    if (e.action === 'play') {
      need(isInt(e.value, 1, 23), `${at}.value must be a card`);
      need(isInt(e.count, 1, 3), `${at}.count must be 1..3`);
      need(isInt(e.bonus, 0), `${at}.bonus must be a non-negative integer`);
    } else if (e.action === 'pass') {
      need(typeof e.force === 'boolean', `${at}.force must be true or false`);
    } else {
      need(e.action === 'drop', `${at}.action must be play, pass or drop`);
    }
  });
}

function checkGame(msg) {
  need(typeof msg.game === 'string', 'game must be a string');
  if (game === null || game.id !== msg.game) {
    log(`message for game ${JSON.stringify(msg.game)} without its game_start; assuming the standard rules`);
    game = newGame({ game: msg.game, seat: 0, players: [], rules: {}, time: { move_ms: 1000 } });
  }
}

// ---------------------------------------------------------------------------------------------- strategy

function newGame(msg) {
  const rules = msg.rules || {};
  const opt = (name, standard) => (isInt(rules[name], 0) ? rules[name] : standard);
  return {
    id: msg.game,
    seat: msg.seat,
    names: msg.players,
    bonusStep: Math.max(1, opt('bonus_step', 5)),
    finishRefund: opt('finish_refund', 3),
    bonusRefund: opt('bonus_refund', 2),
  };
}

function counts(hand) {
  const m = new Map();
  for (const c of hand) m.set(c, (m.get(c) || 0) + 1);
  return m;
}

function chooseDiscard(hand, n) {
  const copies = counts(hand);
  // Singles first, highest first; then the highest of the rest. Never the 1.
  const pool = hand.filter((c) => c !== 1);
  pool.sort((a, b) => (copies.get(a) > 1) - (copies.get(b) > 1) || b - a);
  return pool.slice(0, n).sort((a, b) => a - b);
}

function stalled(history, seat) {
  for (let i = history.length - 1; i >= 0; i--) {
    const e = history[i];
    if (e.action === 'play') return false;
    if (e.action === 'pass' && e.seat === seat) return true;
  }
  return false;
}

function chooseMove(msg) {
  const hand = msg.hand;
  const last = msg.last;
  if (last === null) {
    need(hand.includes(1), 'the round has not opened but the hand holds no 1');
    return { type: 'play', value: 1, count: 1, bonus: 0 };
  }
  const me = msg.players[msg.seat];
  let best = null;
  let bestCost = Infinity;
  for (const [value, count] of counts(hand)) {
    const bonus = value >= last ? 0 : Math.ceil((last - value) / game.bonusStep);
    if (bonus > me.bonus) continue;
    let cost = Math.max(0, value - (last + game.bonusStep * bonus) - 1) + game.bonusRefund * bonus;
    if (count === hand.length) cost -= game.finishRefund;
    if (cost < bestCost || (cost === bestCost && count > best.count)) {
      best = { type: 'play', value, count, bonus };
      bestCost = cost;
    }
  }
  if (best !== null && bestCost <= 1) return best;
  const othersPlaying = msg.players.some((p, s) => s !== msg.seat && p.status === 'playing');
  if (!msg.forced && othersPlaying && !stalled(msg.history, msg.seat)) return { type: 'pass' };
  if (best !== null && bestCost < hand.length) return best;
  return { type: 'drop' };
}

// ---------------------------------------------------------------------------------------------- messages

const handlers = {
  hello(msg) {
    if (msg.protocol !== PROTOCOL) log(`the referee speaks protocol ${JSON.stringify(msg.protocol)}; this bot speaks 1`);
    send({ type: 'hello', protocol: PROTOCOL, name: NAME, version: '1.0' });
  },
  game_start(msg) {
    need(typeof msg.game === 'string', 'game must be a string');
    need(Array.isArray(msg.players) && msg.players.length >= 2 && msg.players.length <= 4, 'players: 2 to 4 names');
    need(isInt(msg.seat, 0, msg.players.length - 1), 'seat must be a seat of the game');
    need(msg.time && isInt(msg.time.move_ms, 1), 'time.move_ms must be a positive integer');
    game = newGame(msg);
  },
  deal(msg) {
    checkGame(msg);
    checkCards(msg.hand, 'hand');
    need(isInt(msg.round, 1), 'round must be a positive integer');
    need(isInt(msg.discard, 0, msg.hand.length - 1), 'discard must be a count smaller than the hand');
    send({ type: 'discard', cards: chooseDiscard(msg.hand, msg.discard) });
  },
  turn(msg) {
    checkGame(msg);
    checkCards(msg.hand, 'hand');
    need(msg.hand.length >= 1, 'hand must not be empty on a turn');
    need(msg.last === null || isInt(msg.last, 1, 23), 'last must be null or a card');
    need(typeof msg.forced === 'boolean', 'forced must be true or false');
    checkPlayers(msg.players, 'players');
    need(isInt(msg.seat, 0, msg.players.length - 1), 'seat must be a seat of the game');
    checkHistory(msg.history, msg.players.length);
    send(chooseMove(msg));
  },
  round_end(msg) {
    checkGame(msg);
    checkPlayers(msg.players, 'players');
    checkHistory(msg.history, msg.players.length);
  },
  game_end(msg) {
    checkGame(msg);
    need(Array.isArray(msg.scores) && msg.scores.every((s) => isInt(s)), 'scores must be integers');
    need(Array.isArray(msg.ranks) && msg.ranks.every((r) => isInt(r, 1)), 'ranks must be positive integers');
    const mine = game.seat;
    log(`game ${game.id} over: score ${msg.scores[mine]}, rank ${msg.ranks[mine]}`);
    game = null;
  },
  error(msg) {
    log(`referee reports: ${msg.message}`);
  },
  bye() {
    process.exit(0);
  },
};

// Answers needed when a message cannot be understood: never leave the referee waiting.
const fallbacks = {
  deal: () => ({ type: 'discard', cards: [] }),
  turn: (msg) => (msg && msg.last === null ? { type: 'play', value: 1, count: 1, bonus: 0 } : { type: 'drop' }),
};

function handle(line) {
  if (line.trim() === '') return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (err) {
    log(`not JSON, ignored: ${line.slice(0, 80)}`);
    return;
  }
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) {
    log('not a JSON object, ignored');
    return;
  }
  const handler = Object.prototype.hasOwnProperty.call(handlers, msg.type) ? handlers[msg.type] : null;
  if (handler === null) return; // a message type this bot does not know: ignore it
  try {
    handler(msg);
  } catch (err) {
    if (!(err instanceof BadMessage)) throw err;
    log(`bad ${msg.type} message: ${err.message}`);
    if (fallbacks[msg.type]) send(fallbacks[msg.type](msg));
  }
}

const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
input.on('line', handle);
input.on('close', () => process.exit(0));
