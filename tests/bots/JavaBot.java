// An honest test bot for the JVM (run as `java JavaBot.java`): discards its highest cards, plays the lowest
// card not below last, else drops. Reads only the few fields it needs, with regular expressions.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class JavaBot {
    static String field(String line, String name) {
        Matcher m = Pattern.compile("\"" + name + "\":\\s*(\"[^\"]*\"|\\[[^\\]]*\\]|[^,}]+)").matcher(line);
        return m.find() ? m.group(1).trim() : null;
    }

    static List<Integer> cards(String list) {
        List<Integer> out = new ArrayList<>();
        for (String s : list.replaceAll("[\\[\\]\\s]", "").split(",")) {
            if (!s.isEmpty()) out.add(Integer.parseInt(s));
        }
        return out;
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        String line;
        while ((line = in.readLine()) != null) {
            String type = field(line, "type");
            if (type == null) continue;
            if (type.equals("\"hello\"")) {
                System.out.println("{\"type\":\"hello\",\"protocol\":1,\"name\":\"java\"}");
            } else if (type.equals("\"deal\"")) {
                List<Integer> hand = cards(field(line, "hand"));
                int n = Integer.parseInt(field(line, "discard"));
                List<Integer> keep = new ArrayList<>();
                for (int c : hand) if (c != 1) keep.add(c);
                System.out.println("{\"type\":\"discard\",\"cards\":" + keep.subList(keep.size() - n, keep.size()) + "}");
            } else if (type.equals("\"turn\"")) {
                List<Integer> hand = cards(field(line, "hand"));
                String last = field(line, "last");
                if (last.equals("null")) {
                    System.out.println("{\"type\":\"play\",\"value\":1,\"count\":1,\"bonus\":0}");
                    continue;
                }
                int l = Integer.parseInt(last);
                int best = -1;
                for (int c : hand) if (c >= l && (best < 0 || c < best)) best = c;
                if (best >= 0) System.out.println("{\"type\":\"play\",\"value\":" + best + ",\"count\":1,\"bonus\":0}");
                else System.out.println("{\"type\":\"drop\"}");
            } else if (type.equals("\"bye\"")) {
                break;
            }
            System.out.flush();
        }
    }
}
