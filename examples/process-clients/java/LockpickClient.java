// A small helper for lockpick's process client protocol (docs/process-clients.md), for Java.
//
// Copy this one file next to your client; lockpick never requires it (the protocol is a few
// JSON lines). Implement LockpickClient.Lock and call serve():
//
//     public static void main(String[] args) {
//         LockpickClient.serve(start -> new MyLock(start));   // start: the start message, parsed
//     }
//
// acquire returns a Held, or null when the lock is busy (certainly not acquired); release returns
// true (released) or false (lost: no longer ours). Throw Failed when an operation certainly did
// not happen; any other exception is an error of unknown outcome. point("after-compare") offers
// lockpick a place to pause the client. System.out is sent to stderr (the client's log).
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

public final class LockpickClient {
    public interface Lock {
        Held acquire(String key, long ttlMs, long waitMs) throws Exception;
        /** A semaphore's or read-write lock's acquire: the request as sent (its "mode", "permits", "limit"). */
        default Held acquire(String key, long ttlMs, long waitMs, Map<String, Object> request) throws Exception { return acquire(key, ttlMs, waitMs); }
        boolean release(String key, Object state) throws Exception;
        default boolean renew(String key, long ttlMs, Object state) throws Exception { throw new Failed("this client does not renew"); }
        default void close() throws Exception {}
    }

    public interface Factory { Lock start(Map<String, Object> start) throws Exception; }

    /** The operation certainly did not take effect (recorded as fail). */
    public static final class Failed extends Exception {
        public Failed(String why) { super(why); }
    }

    public static final class Held {
        public Object token;          // a fencing token (a Long), if the lock hands one out
        public Double validUntilMs;   // on CLOCK_MONOTONIC: monotonicMs() + the validity it promises
        public Object state;          // anything JSON that release/renew get back
    }

    /** The protocol's clock for validUntilMs (System.nanoTime is CLOCK_MONOTONIC on Linux). */
    public static double monotonicMs() { return System.nanoTime() / 1e6; }

    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    private static final BufferedReader IN = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));

    @SuppressWarnings("unchecked")
    private static Map<String, Object> read() throws Exception {
        String line = IN.readLine();
        if (line == null) System.exit(0);   // lockpick closed our stdin: it is done with us
        return (Map<String, Object>) new Json(line).value();
    }

    private static void send(Map<String, Object> m) { OUT.println(Json.write(m)); }

    /** A named point: lockpick may pause this client here; returns once lockpick says go. */
    public static void point(String name) throws Exception {
        send(Map.of("t", "point", "name", name));
        while (!"go".equals(read().get("t"))) { /* only go can come while a request waits */ }
    }

    public static long num(Map<String, Object> m, String k) { return ((Number) m.get(k)).longValue(); }

    public static void serve(Factory factory) {
        System.setOut(System.err);   // println in the lock goes to the client's log, never into the protocol
        try {
            Lock lock = factory.start(read());
            send(Map.of("t", "ready"));
            while (true) {
                Map<String, Object> m = read();
                Object t = m.get("t"), id = m.get("id");
                Map<String, Object> reply = new LinkedHashMap<>();
                if ("close".equals(t)) {
                    try { lock.close(); } catch (Exception e) { System.err.println("close: " + e); }
                    reply.put("t", "closed");
                    reply.put("id", id);
                    send(reply);
                    System.exit(0);
                }
                try {
                    String key = (String) m.get("key");
                    if ("acquire".equals(t)) {
                        Held h = lock.acquire(key, num(m, "ttlMs"), num(m, "waitMs"), m);
                        reply.put("t", h == null ? "busy" : "held");
                        if (h != null && h.token != null) reply.put("token", h.token);
                        if (h != null && h.validUntilMs != null) reply.put("validUntilMs", h.validUntilMs);
                        if (h != null && h.state != null) reply.put("state", h.state);
                    } else if ("release".equals(t)) {
                        reply.put("t", lock.release(key, m.get("state")) ? "released" : "lost");
                    } else if ("renew".equals(t)) {
                        reply.put("t", lock.renew(key, num(m, "ttlMs"), m.get("state")) ? "renewed" : "lost");
                    } else {
                        reply.put("t", "error");
                        reply.put("error", "unknown request " + t);
                    }
                } catch (Failed e) {
                    reply.put("t", "failed");
                    reply.put("error", e.getMessage());
                } catch (Exception e) {   // anything else: it may or may not have happened
                    reply.put("t", "error");
                    reply.put("error", e.toString());
                }
                reply.put("id", id);
                send(reply);
            }
        } catch (Exception e) {
            e.printStackTrace();
            System.exit(1);
        }
    }

    /** Just enough JSON: objects, arrays, strings, numbers (Long or Double), true, false, null. */
    static final class Json {
        private final String s;
        private int i;
        Json(String s) { this.s = s; }

        Object value() {
            skip();
            char c = s.charAt(i);
            if (c == '{') {
                Map<String, Object> m = new LinkedHashMap<>();
                i++;
                while (skip() != '}') {
                    String k = (String) value();
                    skip(); i++;   // ':'
                    m.put(k, value());
                    if (skip() == ',') i++;
                }
                i++;
                return m;
            }
            if (c == '[') {
                List<Object> l = new ArrayList<>();
                i++;
                while (skip() != ']') {
                    l.add(value());
                    if (skip() == ',') i++;
                }
                i++;
                return l;
            }
            if (c == '"') {
                StringBuilder b = new StringBuilder();
                for (i++; s.charAt(i) != '"'; i++) {
                    char d = s.charAt(i);
                    if (d != '\\') { b.append(d); continue; }
                    d = s.charAt(++i);
                    if (d == 'u') { b.append((char) Integer.parseInt(s.substring(i + 1, i + 5), 16)); i += 4; }
                    else b.append(switch (d) { case 'n' -> '\n'; case 't' -> '\t'; case 'r' -> '\r'; case 'b' -> '\b'; case 'f' -> '\f'; default -> d; });
                }
                i++;
                return b.toString();
            }
            int start = i;
            while (i < s.length() && ",}] \t\r\n".indexOf(s.charAt(i)) < 0) i++;
            String w = s.substring(start, i);
            if (w.equals("true")) return true;
            if (w.equals("false")) return false;
            if (w.equals("null")) return null;
            return w.matches("-?\\d+") ? (Object) Long.valueOf(w) : (Object) Double.valueOf(w);
        }

        private char skip() {
            while (Character.isWhitespace(s.charAt(i))) i++;
            return s.charAt(i);
        }

        static String write(Object v) {
            if (v == null) return "null";
            if (v instanceof String str) {
                StringBuilder b = new StringBuilder("\"");
                for (char c : str.toCharArray()) {
                    if (c == '"' || c == '\\') b.append('\\').append(c);
                    else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
                    else b.append(c);
                }
                return b.append('"').toString();
            }
            if (v instanceof Map<?, ?> m) {
                StringJoiner j = new StringJoiner(",", "{", "}");
                m.forEach((k, x) -> j.add(write(String.valueOf(k)) + ":" + write(x)));
                return j.toString();
            }
            if (v instanceof List<?> l) {
                StringJoiner j = new StringJoiner(",", "[", "]");
                l.forEach((x) -> j.add(write(x)));
                return j.toString();
            }
            return String.valueOf(v);   // numbers and booleans
        }
    }
}
