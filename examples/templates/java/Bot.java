// A bot for the card game 23 in Java (standard library only): a template to start from.
//
// The referee talks to the bot over stdin/stdout, one JSON object per line (protocol v1, see PROTOCOL.md).
// `hello`, `deal` and `turn` need exactly one reply line; every other message needs none, and messages or
// fields this bot does not know are ignored. Nothing but protocol lines may go to stdout, and each reply is
// flushed at once (System.out does not flush on its own when stdout is a pipe); log to System.err.
//
// Lines are read with BufferedReader.readLine, which takes a line of any length: a turn late in a long round
// carries the whole round's history (tens of kilobytes, see "Line length" in PROTOCOL.md). The JDK has no
// JSON reader, so a small one is below (Json.parse): objects become Maps, arrays Lists, numbers Doubles.
//
// Strategy (replace it with yours): discard the highest cards, open with the 1, then play the cheapest value
// at or above the last play (all copies of it); pass when every play costs more than a pass, unless passing
// cannot change anything (forced, alone in the round, or nobody has played since our own last pass: the
// table is stalled); then lift a lower card over `last` with bonus chips, else drop.
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public class Bot {
    static final String NAME = "java-template";

    // ------------------------------------------------------------------------------------ a tiny JSON reader

    static final class Json {
        private final String s;
        private int i;

        private Json(String s) {
            this.s = s;
        }

        /** The value on one line: Map, List, String, Double, Boolean or null. Throws on text that is not JSON. */
        static Object parse(String text) {
            Json p = new Json(text);
            Object value = p.value(0);
            p.space();
            if (p.i != p.s.length()) throw p.error();
            return value;
        }

        private IllegalArgumentException error() {
            return new IllegalArgumentException("not JSON at character " + i);
        }

        private void space() {
            while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) i++;
        }

        private boolean eat(char c) {
            space();
            if (i < s.length() && s.charAt(i) == c) {
                i++;
                return true;
            }
            return false;
        }

        private Object value(int depth) {
            if (depth > 64) throw error();
            space();
            if (i >= s.length()) throw error();
            char c = s.charAt(i);
            if (c == '{') {
                i++;
                Map<String, Object> members = new LinkedHashMap<>();
                if (eat('}')) return members;
                do {
                    space();
                    String key = string();
                    if (!eat(':')) throw error();
                    members.put(key, value(depth + 1));
                } while (eat(','));
                if (!eat('}')) throw error();
                return members;
            }
            if (c == '[') {
                i++;
                List<Object> items = new ArrayList<>();
                if (eat(']')) return items;
                do {
                    items.add(value(depth + 1));
                } while (eat(','));
                if (!eat(']')) throw error();
                return items;
            }
            if (c == '"') return string();
            if (s.startsWith("true", i)) {
                i += 4;
                return Boolean.TRUE;
            }
            if (s.startsWith("false", i)) {
                i += 5;
                return Boolean.FALSE;
            }
            if (s.startsWith("null", i)) {
                i += 4;
                return null;
            }
            int start = i;
            while (i < s.length() && "+-.eE0123456789".indexOf(s.charAt(i)) >= 0) i++;
            try {
                return Double.parseDouble(s.substring(start, i));
            } catch (NumberFormatException e) {
                throw error();
            }
        }

        private String string() {
            if (i >= s.length() || s.charAt(i) != '"') throw error();
            i++;
            StringBuilder out = new StringBuilder();
            while (true) {
                if (i >= s.length()) throw error();
                char c = s.charAt(i++);
                if (c == '"') return out.toString();
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                if (i >= s.length()) throw error();
                char e = s.charAt(i++);
                switch (e) {
                    case '"': case '\\': case '/': out.append(e); break;
                    case 'b': out.append('\b'); break;
                    case 'f': out.append('\f'); break;
                    case 'n': out.append('\n'); break;
                    case 'r': out.append('\r'); break;
                    case 't': out.append('\t'); break;
                    case 'u':
                        if (i + 4 > s.length()) throw error();
                        try {
                            out.append((char) Integer.parseInt(s.substring(i, i + 4), 16)); // surrogates pair up
                        } catch (NumberFormatException x) {
                            throw error();
                        }
                        i += 4;
                        break;
                    default: throw error();
                }
            }
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> object(Object o) {
        return o instanceof Map ? (Map<String, Object>) o : Map.of();
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object o) {
        return o instanceof List ? (List<Object>) o : List.of();
    }

    static int integer(Object o, int fallback) {
        return o instanceof Double ? ((Double) o).intValue() : fallback;
    }

    static List<Integer> cards(Object o) {
        List<Integer> out = new ArrayList<>();
        for (Object card : list(o)) out.add(integer(card, 0));
        return out;
    }

    // ------------------------------------------------------------------------------------------------ the bot

    int bonusStep = 5; // rules.bonus_step of game_start; 5 in the standard ruleset

    static String play(int value, int count, int bonus) {
        return "{\"type\":\"play\",\"value\":" + value + ",\"count\":" + count + ",\"bonus\":" + bonus + "}";
    }

    String discard(Map<String, Object> msg) {
        // The n highest cards (hand is sorted); never the 1, and none at all when n is 0.
        List<Integer> pool = new ArrayList<>();
        for (int card : cards(msg.get("hand"))) if (card != 1) pool.add(card);
        int n = Math.max(0, Math.min(integer(msg.get("discard"), 0), pool.size()));
        StringBuilder out = new StringBuilder("{\"type\":\"discard\",\"cards\":[");
        for (int i = pool.size() - n; i < pool.size(); i++) {
            if (i > pool.size() - n) out.append(',');
            out.append(pool.get(i));
        }
        return out.append("]}").toString();
    }

    String turn(Map<String, Object> msg) {
        Object lastField = msg.get("last");
        if (lastField == null) return play(1, 1, 0); // we hold the 1: the only legal first move
        int last = integer(lastField, 0);
        int seat = integer(msg.get("seat"), -1);
        List<Object> players = list(msg.get("players"));
        boolean alone = true;
        for (int s = 0; s < players.size(); s++) {
            if (s != seat && "playing".equals(object(players.get(s)).get("status"))) alone = false;
        }
        // Stalled: our own previous action this round was a pass and nobody has played since.
        boolean stalled = false;
        for (Object e : list(msg.get("history"))) {
            Map<String, Object> event = object(e);
            if ("play".equals(event.get("action"))) stalled = false;
            else if ("pass".equals(event.get("action")) && integer(event.get("seat"), -2) == seat) stalled = true;
        }

        // Equal cards of the sorted hand: values[k] held counts[k] times.
        List<Integer> values = new ArrayList<>(), counts = new ArrayList<>();
        for (int card : cards(msg.get("hand"))) {
            if (!values.isEmpty() && values.get(values.size() - 1) == card) counts.set(counts.size() - 1, counts.get(counts.size() - 1) + 1);
            else {
                values.add(card);
                counts.add(1);
            }
        }
        // The cheapest play without bonus chips: one penalty chip per value skipped over last.
        int best = -1, bestCost = 0;
        for (int k = 0; k < values.size(); k++) {
            int cost = Math.max(0, values.get(k) - last - 1);
            if (values.get(k) >= last && (best < 0 || cost < bestCost)) {
                best = k;
                bestCost = cost;
            }
        }
        // Passing alone, or again when nobody has played since our own pass, would only repeat until the turn
        // limit.
        boolean canPass = !Boolean.TRUE.equals(msg.get("forced")) && !alone && !stalled;
        if (best >= 0 && (bestCost <= 1 || !canPass)) return play(values.get(best), counts.get(best), 0);
        if (canPass) return "{\"type\":\"pass\"}";
        // Forced, alone or stalled with only lower cards: the highest one we can lift over last.
        int myBonus = seat >= 0 && seat < players.size() ? integer(object(players.get(seat)).get("bonus"), 0) : 0;
        for (int k = values.size() - 1; k >= 0; k--) {
            int need = (last - values.get(k) + bonusStep - 1) / bonusStep;
            if (need <= myBonus) return play(values.get(k), counts.get(k), need);
        }
        return "{\"type\":\"drop\"}";
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        Bot bot = new Bot();
        String line;
        while ((line = in.readLine()) != null) {
            Map<String, Object> msg;
            try {
                msg = object(Json.parse(line));
            } catch (IllegalArgumentException e) {
                System.err.println(e.getMessage() + ", ignored");
                continue;
            }
            String reply = null;
            switch (String.valueOf(msg.get("type"))) {
                case "hello":
                    reply = "{\"type\":\"hello\",\"protocol\":1,\"name\":\"" + NAME + "\"}";
                    break;
                case "game_start":
                    int step = integer(object(msg.get("rules")).get("bonus_step"), 5);
                    bot.bonusStep = step > 0 ? step : 5;
                    break;
                case "deal":
                    reply = bot.discard(msg);
                    break;
                case "turn":
                    reply = bot.turn(msg);
                    break;
                case "error":
                    System.err.println("referee says: " + msg.get("message"));
                    break;
                case "bye":
                    return;
                default:
                    break; // round_end, game_end and message types added later need no reply
            }
            if (reply != null) {
                out.print(reply + "\n");
                out.flush(); // every reply, at once
            }
        }
    }
}
