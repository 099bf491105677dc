/* A bot for the card game 23 in C (C99 and POSIX, no libraries): a template to start from.
 *
 * The referee talks to the bot over stdin/stdout, one JSON object per line (protocol v1, see PROTOCOL.md).
 * `hello`, `deal` and `turn` need exactly one reply line; every other message needs none, and messages or
 * fields this bot does not know are ignored. Nothing but protocol lines may go to stdout, and each reply is
 * flushed at once (a reply left in stdout's buffer never reaches the referee). Log to stderr.
 *
 * Lines are read with getline(), which grows its buffer to any length: a turn late in a long round carries
 * the whole round's history (tens of kilobytes, see "Line length" in PROTOCOL.md). A fixed fgets() buffer
 * would cut such a line in two.
 *
 * Strategy (replace it with yours): discard the highest cards, open with the 1, then play the cheapest value
 * at or above the last play (all copies of it); pass when every play costs more than a pass, unless passing
 * cannot change anything (forced, alone in the round, or nobody has played since our own last pass: the
 * table is stalled); then lift a lower card over `last` with bonus chips, else drop.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "c-template"
#define MAX_CARDS 66

/* ------------------------------------------------------------------------------------------------------
 * A tiny JSON reader. parse() turns one line into a tree of nodes (kept in one array, linked by index);
 * strings are decoded in place inside the line. get(), integer() and friends read the tree.
 */

enum kind { J_NULL, J_FALSE, J_TRUE, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT };

typedef struct {
    enum kind kind;
    double number;
    const char *text; /* J_STRING: the decoded text */
    const char *key;  /* the key of an object member, else NULL */
    int child;        /* first element or member, -1 if none */
    int next;         /* next sibling, -1 if none */
} node;

static node *nodes;
static int n_nodes, cap_nodes;

static int new_node(enum kind kind) {
    if (n_nodes == cap_nodes) {
        cap_nodes = cap_nodes ? 2 * cap_nodes : 256;
        nodes = realloc(nodes, (size_t)cap_nodes * sizeof *nodes);
        if (!nodes) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
    }
    nodes[n_nodes] = (node){kind, 0, NULL, NULL, -1, -1};
    return n_nodes++;
}

static char *at; /* the parser's position in the line */

static void skip_space(void) {
    while (*at == ' ' || *at == '\t' || *at == '\r' || *at == '\n') at++;
}

static int hex4(const char *s) {
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= c - '0';
        else if (c >= 'a' && c <= 'f') v |= c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') v |= c - 'A' + 10;
        else return -1;
    }
    return v;
}

static char *put_utf8(char *out, long cp) {
    if (cp < 0x80) *out++ = (char)cp;
    else if (cp < 0x800) {
        *out++ = (char)(0xC0 | (cp >> 6));
        *out++ = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *out++ = (char)(0xE0 | (cp >> 12));
        *out++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *out++ = (char)(0x80 | (cp & 0x3F));
    } else {
        *out++ = (char)(0xF0 | (cp >> 18));
        *out++ = (char)(0x80 | ((cp >> 12) & 0x3F));
        *out++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *out++ = (char)(0x80 | (cp & 0x3F));
    }
    return out;
}

/* A string starting at the opening quote, decoded in place (escapes only ever shorten it). */
static const char *parse_string(void) {
    char *out = ++at, *start = at;
    while (*at != '"') {
        if (*at == '\0') return NULL;
        if (*at != '\\') {
            *out++ = *at++;
            continue;
        }
        at++;
        switch (*at++) {
        case '"': *out++ = '"'; break;
        case '\\': *out++ = '\\'; break;
        case '/': *out++ = '/'; break;
        case 'b': *out++ = '\b'; break;
        case 'f': *out++ = '\f'; break;
        case 'n': *out++ = '\n'; break;
        case 'r': *out++ = '\r'; break;
        case 't': *out++ = '\t'; break;
        case 'u': {
            long cp = hex4(at);
            if (cp < 0) return NULL;
            at += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && at[0] == '\\' && at[1] == 'u') {
                long low = hex4(at + 2);
                if (low >= 0xDC00 && low < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                    at += 6;
                }
            }
            out = put_utf8(out, cp);
            break;
        }
        default: return NULL;
        }
    }
    at++;
    *out = '\0'; /* out <= the closing quote, so this never overwrites anything still to be read */
    return start;
}

static int parse_value(int depth);

static int parse_container(enum kind kind, int depth) {
    int self = new_node(kind), last = -1;
    char close = kind == J_ARRAY ? ']' : '}';
    at++;
    skip_space();
    if (*at == close) {
        at++;
        return self;
    }
    for (;;) {
        const char *key = NULL;
        skip_space();
        if (kind == J_OBJECT) {
            if (*at != '"' || !(key = parse_string())) return -1;
            skip_space();
            if (*at++ != ':') return -1;
        }
        int item = parse_value(depth + 1);
        if (item < 0) return -1;
        nodes[item].key = key;
        if (last < 0) nodes[self].child = item;
        else nodes[last].next = item;
        last = item;
        skip_space();
        if (*at == ',') {
            at++;
            continue;
        }
        if (*at++ != close) return -1;
        return self;
    }
}

static int parse_value(int depth) {
    if (depth > 64) return -1;
    skip_space();
    if (*at == '{') return parse_container(J_OBJECT, depth);
    if (*at == '[') return parse_container(J_ARRAY, depth);
    if (*at == '"') {
        int self = new_node(J_STRING);
        const char *text = parse_string();
        if (!text) return -1;
        nodes[self].text = text;
        return self;
    }
    if (strncmp(at, "true", 4) == 0) {
        at += 4;
        return new_node(J_TRUE);
    }
    if (strncmp(at, "false", 5) == 0) {
        at += 5;
        return new_node(J_FALSE);
    }
    if (strncmp(at, "null", 4) == 0) {
        at += 4;
        return new_node(J_NULL);
    }
    char *end;
    double number = strtod(at, &end);
    if (end == at) return -1;
    at = end;
    int self = new_node(J_NUMBER);
    nodes[self].number = number;
    return self;
}

/* The root node of `line` (modified in place), or -1 when it is not JSON. */
static int parse(char *line) {
    n_nodes = 0;
    at = line;
    int root = parse_value(0);
    skip_space();
    return root >= 0 && *at == '\0' ? root : -1;
}

/* The member `key` of object `obj`, or -1. */
static int get(int obj, const char *key) {
    if (obj < 0 || nodes[obj].kind != J_OBJECT) return -1;
    for (int m = nodes[obj].child; m >= 0; m = nodes[m].next)
        if (strcmp(nodes[m].key, key) == 0) return m;
    return -1;
}

static int integer(int n, int fallback) {
    return n >= 0 && nodes[n].kind == J_NUMBER ? (int)nodes[n].number : fallback;
}

static int truthy(int n) { return n >= 0 && nodes[n].kind == J_TRUE; }

static int is_text(int n, const char *text) {
    return n >= 0 && nodes[n].kind == J_STRING && strcmp(nodes[n].text, text) == 0;
}

/* Element `i` of array `arr`, or -1. */
static int item(int arr, int i) {
    if (arr < 0 || nodes[arr].kind != J_ARRAY) return -1;
    int e = nodes[arr].child;
    while (e >= 0 && i-- > 0) e = nodes[e].next;
    return e;
}

/* The integers of array `arr` into `out` (at most `max`); how many. */
static int integers(int arr, int *out, int max) {
    int n = 0;
    for (int e = arr >= 0 && nodes[arr].kind == J_ARRAY ? nodes[arr].child : -1; e >= 0 && n < max; e = nodes[e].next)
        out[n++] = integer(e, 0);
    return n;
}

/* ------------------------------------------------------------------------------------------------------
 * The bot.
 */

static int bonus_step = 5; /* rules.bonus_step of game_start; 5 in the standard ruleset */

static void send(const char *line) {
    fputs(line, stdout);
    fputc('\n', stdout);
    fflush(stdout); /* every reply, at once */
}

static void send_play(int value, int count, int bonus) {
    char line[96];
    snprintf(line, sizeof line, "{\"type\":\"play\",\"value\":%d,\"count\":%d,\"bonus\":%d}", value, count, bonus);
    send(line);
}

static void on_deal(int msg) {
    int hand[MAX_CARDS], pool[MAX_CARDS], n = 0;
    int held = integers(get(msg, "hand"), hand, MAX_CARDS); /* sorted ascending */
    for (int i = 0; i < held; i++)
        if (hand[i] != 1) pool[n++] = hand[i]; /* the 1 may never be discarded */
    int k = integer(get(msg, "discard"), 0);
    /* The k highest cards. When k is 0 the list is empty: discard nothing. */
    char line[64 + 4 * MAX_CARDS];
    int len = snprintf(line, sizeof line, "{\"type\":\"discard\",\"cards\":[");
    for (int i = n - k < 0 ? 0 : n - k, first = 1; i < n; i++, first = 0)
        len += snprintf(line + len, sizeof line - len, "%s%d", first ? "" : ",", pool[i]);
    snprintf(line + len, sizeof line - len, "]}");
    send(line);
}

static void on_turn(int msg) {
    int hand[MAX_CARDS];
    int n = integers(get(msg, "hand"), hand, MAX_CARDS);
    int last_node = get(msg, "last");
    if (last_node < 0 || nodes[last_node].kind == J_NULL) { /* we hold the 1: the only legal first move */
        send_play(1, 1, 0);
        return;
    }
    int last = integer(last_node, 0);
    int seat = integer(get(msg, "seat"), -1);
    int players = get(msg, "players");

    int my_bonus = integer(get(item(players, seat), "bonus"), 0);
    int alone = 1;
    for (int i = 0, p; (p = item(players, i)) >= 0; i++)
        if (i != seat && is_text(get(p, "status"), "playing")) alone = 0;
    /* Stalled: our own previous action this round was a pass and nobody has played since. */
    int stalled = 0;
    int history = get(msg, "history");
    for (int e = history >= 0 ? nodes[history].child : -1; e >= 0; e = nodes[e].next) {
        if (is_text(get(e, "action"), "play")) stalled = 0;
        else if (is_text(get(e, "action"), "pass") && integer(get(e, "seat"), -1) == seat) stalled = 1;
    }

    /* The cheapest play without bonus chips: one penalty chip per value skipped over `last`. */
    int best = -1, best_count = 0, best_cost = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && hand[j] == hand[i]) j++;
        int cost = hand[i] - last - 1 > 0 ? hand[i] - last - 1 : 0;
        if (hand[i] >= last && (best < 0 || cost < best_cost)) {
            best = hand[i];
            best_count = j - i;
            best_cost = cost;
        }
        i = j;
    }
    /* Passing alone, or again when nobody has played since our own pass, would only repeat until the turn
     * limit. */
    int can_pass = !truthy(get(msg, "forced")) && !alone && !stalled;
    if (best >= 0 && (best_cost <= 1 || !can_pass)) {
        send_play(best, best_count, 0);
        return;
    }
    if (can_pass) {
        send("{\"type\":\"pass\"}");
        return;
    }
    /* Forced, alone or stalled with only lower cards: the highest one we can lift over `last`. */
    for (int j = n; j > 0;) {
        int i = j - 1;
        while (i > 0 && hand[i - 1] == hand[j - 1]) i--;
        int need = (last - hand[i] + bonus_step - 1) / bonus_step;
        if (need <= my_bonus) {
            send_play(hand[i], j - i, need);
            return;
        }
        j = i;
    }
    send("{\"type\":\"drop\"}");
}

int main(void) {
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, stdin) != -1) {
        int msg = parse(line);
        if (msg < 0) {
            fprintf(stderr, "not JSON, ignored\n");
            continue;
        }
        int type = get(msg, "type");
        if (is_text(type, "hello")) {
            send("{\"type\":\"hello\",\"protocol\":1,\"name\":\"" NAME "\"}");
        } else if (is_text(type, "game_start")) {
            bonus_step = integer(get(get(msg, "rules"), "bonus_step"), 5);
        } else if (is_text(type, "deal")) {
            on_deal(msg);
        } else if (is_text(type, "turn")) {
            on_turn(msg);
        } else if (is_text(type, "error")) {
            int text = get(msg, "message");
            fprintf(stderr, "referee says: %s\n", text >= 0 && nodes[text].text ? nodes[text].text : "?");
        } else if (is_text(type, "bye")) {
            break;
        } /* round_end, game_end and message types added later need no reply */
    }
    free(line);
    free(nodes);
    return 0;
}
