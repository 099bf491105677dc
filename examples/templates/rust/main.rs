//! A bot for the card game 23 in Rust (standard library only, no crates): a template to start from.
//!
//! The referee talks to the bot over stdin/stdout, one JSON object per line (protocol v1, see PROTOCOL.md).
//! `hello`, `deal` and `turn` need exactly one reply line; every other message needs none, and messages or
//! fields this bot does not know are ignored. Nothing but protocol lines may go to stdout, and each reply is
//! flushed at once; log to stderr (eprintln!).
//!
//! Lines are read with `read_line`, which takes a line of any length: a turn late in a long round carries
//! the whole round's history (tens of kilobytes, see "Line length" in PROTOCOL.md). The small JSON reader
//! below (`Json::parse`) keeps the bot free of crates, so it builds with `rustc` alone, offline.
//!
//! Strategy (replace it with yours): discard the highest cards, open with the 1, then play the cheapest value
//! at or above the last play (all copies of it); pass when every play costs more than a pass, unless passing
//! cannot change anything (forced, alone in the round, or nobody has played since our own last pass: the
//! table is stalled); then lift a lower card over `last` with bonus chips, else drop.

use std::io::{self, BufRead, Write};

const NAME: &str = "rust-template";

// ------------------------------------------------------------------------------------------ a tiny JSON reader

#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Number(f64),
    Str(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// The value on one line, or None when it is not JSON.
    fn parse(text: &str) -> Option<Json> {
        let mut p = Parser { s: text.as_bytes(), i: 0 };
        let value = p.value(0)?;
        p.space();
        if p.i == p.s.len() {
            Some(value)
        } else {
            None
        }
    }

    /// The member `key` of an object (Null when absent or not an object).
    fn get(&self, key: &str) -> &Json {
        match self {
            Json::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v).unwrap_or(&Json::Null),
            _ => &Json::Null,
        }
    }

    fn int(&self) -> Option<i64> {
        match self {
            Json::Number(n) => Some(*n as i64),
            _ => None,
        }
    }

    fn text(&self) -> &str {
        match self {
            Json::Str(s) => s,
            _ => "",
        }
    }

    fn items(&self) -> &[Json] {
        match self {
            Json::Array(items) => items,
            _ => &[],
        }
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Parser<'a> {
    fn space(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\r' | b'\n') {
            self.i += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        self.space();
        if self.s.get(self.i) == Some(&byte) {
            self.i += 1;
            Some(())
        } else {
            None
        }
    }

    fn literal(&mut self, word: &str, value: Json) -> Option<Json> {
        if self.s[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Some(value)
        } else {
            None
        }
    }

    fn value(&mut self, depth: usize) -> Option<Json> {
        if depth > 64 {
            return None;
        }
        self.space();
        match *self.s.get(self.i)? {
            b'{' => {
                self.i += 1;
                let mut members = Vec::new();
                if self.eat(b'}').is_some() {
                    return Some(Json::Object(members));
                }
                loop {
                    self.space();
                    let key = self.string()?;
                    self.eat(b':')?;
                    members.push((key, self.value(depth + 1)?));
                    if self.eat(b',').is_none() {
                        self.eat(b'}')?;
                        return Some(Json::Object(members));
                    }
                }
            }
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                if self.eat(b']').is_some() {
                    return Some(Json::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    if self.eat(b',').is_none() {
                        self.eat(b']')?;
                        return Some(Json::Array(items));
                    }
                }
            }
            b'"' => self.string().map(Json::Str),
            b't' => self.literal("true", Json::Bool(true)),
            b'f' => self.literal("false", Json::Bool(false)),
            b'n' => self.literal("null", Json::Null),
            _ => {
                let start = self.i;
                while self.i < self.s.len() && matches!(self.s[self.i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
                    self.i += 1;
                }
                std::str::from_utf8(&self.s[start..self.i]).ok()?.parse().ok().map(Json::Number)
            }
        }
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = std::str::from_utf8(self.s.get(self.i..self.i + 4)?).ok()?;
        self.i += 4;
        u32::from_str_radix(digits, 16).ok()
    }

    fn string(&mut self) -> Option<String> {
        if self.s.get(self.i) != Some(&b'"') {
            return None;
        }
        self.i += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let byte = *self.s.get(self.i)?;
            self.i += 1;
            match byte {
                b'"' => return String::from_utf8(out).ok(),
                b'\\' => {
                    let escape = *self.s.get(self.i)?;
                    self.i += 1;
                    let simple = match escape {
                        b'"' => Some('"'),
                        b'\\' => Some('\\'),
                        b'/' => Some('/'),
                        b'b' => Some('\u{8}'),
                        b'f' => Some('\u{c}'),
                        b'n' => Some('\n'),
                        b'r' => Some('\r'),
                        b't' => Some('\t'),
                        b'u' => None,
                        _ => return None,
                    };
                    let c = match simple {
                        Some(c) => c,
                        None => {
                            let mut code = self.hex4()?;
                            if (0xD800..0xDC00).contains(&code) && self.s[self.i..].starts_with(b"\\u") {
                                self.i += 2;
                                let low = self.hex4()?;
                                code = 0x10000 + ((code - 0xD800) << 10) + (low.wrapping_sub(0xDC00) & 0x3FF);
                            }
                            char::from_u32(code).unwrap_or('\u{FFFD}')
                        }
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                _ => out.push(byte),
            }
        }
    }
}

// ------------------------------------------------------------------------------------------------- the bot

struct Bot {
    bonus_step: i64, // rules.bonus_step of game_start; 5 in the standard ruleset
}

fn play(value: i64, count: usize, bonus: i64) -> String {
    format!("{{\"type\":\"play\",\"value\":{},\"count\":{},\"bonus\":{}}}", value, count, bonus)
}

/// Equal cards of a sorted hand, as (value, count), ascending.
fn groups(hand: &[i64]) -> Vec<(i64, usize)> {
    let mut out: Vec<(i64, usize)> = Vec::new();
    for &card in hand {
        match out.last_mut() {
            Some(last) if last.0 == card => last.1 += 1,
            _ => out.push((card, 1)),
        }
    }
    out
}

fn cards(value: &Json) -> Vec<i64> {
    value.items().iter().filter_map(Json::int).collect()
}

impl Bot {
    fn discard(&self, msg: &Json) -> String {
        // The n highest cards (hand is sorted); never the 1, and none at all when n is 0.
        let pool: Vec<i64> = cards(msg.get("hand")).into_iter().filter(|&c| c != 1).collect();
        let n = (msg.get("discard").int().unwrap_or(0).max(0) as usize).min(pool.len());
        let chosen: Vec<String> = pool[pool.len() - n..].iter().map(|c| c.to_string()).collect();
        format!("{{\"type\":\"discard\",\"cards\":[{}]}}", chosen.join(","))
    }

    fn turn(&self, msg: &Json) -> String {
        let last = match msg.get("last").int() {
            Some(last) => last,
            None => return play(1, 1, 0), // we hold the 1: the only legal first move
        };
        let seat = msg.get("seat").int().unwrap_or(-1);
        let players = msg.get("players").items();
        let alone = players
            .iter()
            .enumerate()
            .all(|(s, p)| s as i64 == seat || p.get("status").text() != "playing");
        // Stalled: our own previous action this round was a pass and nobody has played since.
        let mut stalled = false;
        for event in msg.get("history").items() {
            match event.get("action").text() {
                "play" => stalled = false,
                "pass" if event.get("seat").int() == Some(seat) => stalled = true,
                _ => {}
            }
        }

        let hand = groups(&cards(msg.get("hand")));
        // The cheapest play without bonus chips: one penalty chip per value skipped over last.
        let best = hand
            .iter()
            .filter(|(value, _)| *value >= last)
            .min_by_key(|(value, _)| (value - last - 1).max(0))
            .copied();
        // Passing alone, or again when nobody has played since our own pass, would only repeat until the
        // turn limit.
        let can_pass = msg.get("forced") != &Json::Bool(true) && !alone && !stalled;
        if let Some((value, count)) = best {
            if value - last - 1 <= 1 || !can_pass {
                return play(value, count, 0);
            }
        }
        if can_pass {
            return "{\"type\":\"pass\"}".to_string();
        }
        // Forced, alone or stalled with only lower cards: the highest one we can lift over last.
        let my_bonus = players.get(seat.max(0) as usize).map(|p| p.get("bonus").int().unwrap_or(0)).unwrap_or(0);
        for &(value, count) in hand.iter().rev() {
            let need = (last - value + self.bonus_step - 1) / self.bonus_step;
            if need <= my_bonus {
                return play(value, count, need);
            }
        }
        "{\"type\":\"drop\"}".to_string()
    }
}

fn main() {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut bot = Bot { bonus_step: 5 };
    let mut line = String::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) => return, // stdin closed
            Ok(_) => {}
            Err(err) => {
                eprintln!("reading stdin: {}", err);
                std::process::exit(1);
            }
        }
        let msg = match Json::parse(&line) {
            Some(msg) => msg,
            None => {
                eprintln!("not JSON, ignored");
                continue;
            }
        };
        let reply = match msg.get("type").text() {
            "hello" => Some(format!("{{\"type\":\"hello\",\"protocol\":1,\"name\":\"{}\"}}", NAME)),
            "game_start" => {
                bot.bonus_step = msg.get("rules").get("bonus_step").int().filter(|&s| s > 0).unwrap_or(5);
                None
            }
            "deal" => Some(bot.discard(&msg)),
            "turn" => Some(bot.turn(&msg)),
            "error" => {
                eprintln!("referee says: {}", msg.get("message").text());
                None
            }
            "bye" => return,
            _ => None, // round_end, game_end and message types added later need no reply
        };
        if let Some(reply) = reply {
            // One line, flushed at once.
            if writeln!(out, "{}", reply).and_then(|_| out.flush()).is_err() {
                return; // the referee closed our stdout
            }
        }
    }
}
