// A bot for the card game 23 in Go (standard library only): a template to start from.
//
// The referee talks to the bot over stdin/stdout, one JSON object per line (protocol v1, see PROTOCOL.md).
// `hello`, `deal` and `turn` need exactly one reply line; every other message needs none, and messages or
// fields this bot does not know are ignored (encoding/json skips unknown fields). Nothing but protocol lines
// may go to stdout; log to stderr.
//
// Lines are read with bufio.Reader.ReadBytes, which takes a line of any length: a turn late in a long round
// carries the whole round's history (tens of kilobytes, see "Line length" in PROTOCOL.md). bufio.Scanner
// would stop at its 64 KiB default token size.
//
// Strategy (replace it with yours): discard the highest cards, open with the 1, then play the cheapest value
// at or above the last play (all copies of it); pass when every play costs more than a pass, unless passing
// cannot change anything (forced, alone in the round, or nobody has played since our own last pass: the
// table is stalled); then lift a lower card over `last` with bonus chips, else drop.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

const name = "go-template"

// Message holds the fields of every referee message this bot reads; the others are ignored.
// "players" has two shapes: names (strings) in game_start, Player objects in turn and round_end, so it is
// kept raw here and decoded where its shape is known (tablePlayers).
type Message struct {
	Type    string          `json:"type"`
	Seat    int             `json:"seat"`
	Hand    []int           `json:"hand"`
	Discard int             `json:"discard"`
	Last    *int            `json:"last"` // nil before the 1 is played
	Forced  bool            `json:"forced"`
	Players json.RawMessage `json:"players"`
	History []Event         `json:"history"`
	Rules   struct {
		BonusStep int `json:"bonus_step"`
	} `json:"rules"`
	Message string `json:"message"`
}

type Player struct {
	Bonus  int    `json:"bonus"`
	Status string `json:"status"`
}

type Event struct {
	Seat   int    `json:"seat"`
	Action string `json:"action"`
}

// Reply is any of the bot's replies; fields left empty are not written.
type Reply struct {
	Type     string `json:"type"`
	Protocol int    `json:"protocol,omitempty"`
	Name     string `json:"name,omitempty"`
	Cards    *[]int `json:"cards,omitempty"`
	Value    *int   `json:"value,omitempty"`
	Count    *int   `json:"count,omitempty"`
	Bonus    *int   `json:"bonus,omitempty"`
}

var bonusStep = 5 // rules.bonus_step of game_start; 5 in the standard ruleset

func send(reply Reply) {
	line, _ := json.Marshal(reply)
	os.Stdout.Write(append(line, '\n')) // os.Stdout is unbuffered: the line goes out at once
}

func play(value, count, bonus int) Reply {
	return Reply{Type: "play", Value: &value, Count: &count, Bonus: &bonus}
}

func chooseDiscard(hand []int, n int) []int {
	pool := []int{}
	for _, card := range hand {
		if card != 1 { // the 1 may never be discarded
			pool = append(pool, card)
		}
	}
	if n > len(pool) {
		n = len(pool)
	}
	return pool[len(pool)-n:] // the n highest (hand is sorted); none when n is 0
}

// groups of equal cards of a sorted hand: values and counts, ascending.
func groups(hand []int) (values, counts []int) {
	for _, card := range hand {
		if len(values) > 0 && values[len(values)-1] == card {
			counts[len(counts)-1]++
		} else {
			values = append(values, card)
			counts = append(counts, 1)
		}
	}
	return
}

// tablePlayers decodes the players of a turn or round_end: one object per seat.
func tablePlayers(msg *Message) []Player {
	var players []Player
	if err := json.Unmarshal(msg.Players, &players); err != nil {
		fmt.Fprintln(os.Stderr, "players not understood, ignored:", err)
	}
	return players
}

func chooseMove(msg *Message) Reply {
	players := tablePlayers(msg)
	if msg.Last == nil {
		return play(1, 1, 0) // we hold the 1: the only legal first move
	}
	last := *msg.Last
	alone := true
	for seat, p := range players {
		if seat != msg.Seat && p.Status == "playing" {
			alone = false
		}
	}
	// Stalled: our own previous action this round was a pass and nobody has played since.
	stalled := false
	for _, e := range msg.History {
		if e.Action == "play" {
			stalled = false
		} else if e.Action == "pass" && e.Seat == msg.Seat {
			stalled = true
		}
	}

	values, counts := groups(msg.Hand)
	best, bestCost := -1, 0 // the cheapest play without bonus chips: a chip per value skipped over last
	for i, v := range values {
		cost := v - last - 1
		if cost < 0 {
			cost = 0
		}
		if v >= last && (best < 0 || cost < bestCost) {
			best, bestCost = i, cost
		}
	}
	// Passing alone, or again when nobody has played since our own pass, would only repeat until the turn
	// limit.
	canPass := !msg.Forced && !alone && !stalled
	if best >= 0 && (bestCost <= 1 || !canPass) {
		return play(values[best], counts[best], 0)
	}
	if canPass {
		return Reply{Type: "pass"}
	}
	// Forced, alone or stalled with only lower cards: the highest one we can lift over last.
	myBonus := 0
	if msg.Seat >= 0 && msg.Seat < len(players) {
		myBonus = players[msg.Seat].Bonus
	}
	for i := len(values) - 1; i >= 0; i-- {
		need := (last - values[i] + bonusStep - 1) / bonusStep
		if need <= myBonus {
			return play(values[i], counts[i], need)
		}
	}
	return Reply{Type: "drop"}
}

func main() {
	in := bufio.NewReader(os.Stdin)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			var msg Message
			if jerr := json.Unmarshal(line, &msg); jerr != nil {
				fmt.Fprintln(os.Stderr, "not a message, ignored:", jerr)
			} else {
				switch msg.Type {
				case "hello":
					send(Reply{Type: "hello", Protocol: 1, Name: name})
				case "game_start":
					bonusStep = 5
					if msg.Rules.BonusStep > 0 {
						bonusStep = msg.Rules.BonusStep
					}
				case "deal":
					cards := chooseDiscard(msg.Hand, msg.Discard)
					send(Reply{Type: "discard", Cards: &cards})
				case "turn":
					send(chooseMove(&msg))
				case "error":
					fmt.Fprintln(os.Stderr, "referee says:", msg.Message)
				case "bye":
					return
				}
				// round_end, game_end and message types added later need no reply
			}
		}
		if err == io.EOF {
			return
		} else if err != nil {
			fmt.Fprintln(os.Stderr, "reading stdin:", err)
			os.Exit(1)
		}
	}
}
