package org.apache.kafka.controller;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A small strict JSON reader for the protocol's request lines: objects become {@code Map},
 * arrays {@code List}, integers {@code Long}, other numbers {@code Double}, strings,
 * booleans and null as themselves. Kafka's Jackson is a runtime-only dependency of the
 * Kafka jars (and its version differs per release), so the driver reads its few flat
 * requests itself.
 */
public final class ConformanceJson {
    private final String s;
    private int i;

    private ConformanceJson(String s) {
        this.s = s;
    }

    /** Parses one JSON value that spans the whole string (surrounding blanks allowed). */
    public static Object parse(String text) {
        ConformanceJson p = new ConformanceJson(text);
        p.blank();
        Object v = p.value();
        p.blank();
        if (p.i != text.length()) throw p.error("trailing characters");
        return v;
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("bad JSON at " + i + ": " + what);
    }

    private void blank() {
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') i++;
            else break;
        }
    }

    private Object value() {
        if (i >= s.length()) throw error("unexpected end");
        char c = s.charAt(i);
        switch (c) {
            case '{': return object();
            case '[': return array();
            case '"': return string();
            case 't': return word("true", Boolean.TRUE);
            case 'f': return word("false", Boolean.FALSE);
            case 'n': return word("null", null);
            default:
                if (c == '-' || (c >= '0' && c <= '9')) return number();
                throw error("unexpected '" + c + "'");
        }
    }

    private Object word(String w, Object v) {
        if (!s.startsWith(w, i)) throw error("expected " + w);
        i += w.length();
        return v;
    }

    private Map<String, Object> object() {
        Map<String, Object> m = new HashMap<>();
        i++;
        blank();
        if (i < s.length() && s.charAt(i) == '}') {
            i++;
            return m;
        }
        while (true) {
            blank();
            if (i >= s.length() || s.charAt(i) != '"') throw error("expected a key");
            String k = string();
            blank();
            if (i >= s.length() || s.charAt(i) != ':') throw error("expected ':'");
            i++;
            blank();
            m.put(k, value());
            blank();
            if (i >= s.length()) throw error("unexpected end");
            char c = s.charAt(i++);
            if (c == '}') return m;
            if (c != ',') throw error("expected ',' or '}'");
        }
    }

    private List<Object> array() {
        List<Object> l = new ArrayList<>();
        i++;
        blank();
        if (i < s.length() && s.charAt(i) == ']') {
            i++;
            return l;
        }
        while (true) {
            blank();
            l.add(value());
            blank();
            if (i >= s.length()) throw error("unexpected end");
            char c = s.charAt(i++);
            if (c == ']') return l;
            if (c != ',') throw error("expected ',' or ']'");
        }
    }

    private String string() {
        i++;
        StringBuilder b = null;
        int start = i;
        while (true) {
            if (i >= s.length()) throw error("unterminated string");
            char c = s.charAt(i);
            if (c == '"') {
                String r = b == null ? s.substring(start, i) : b.append(s, start, i).toString();
                i++;
                return r;
            }
            if (c < 0x20) throw error("control character in string");
            if (c == '\\') {
                if (b == null) b = new StringBuilder();
                b.append(s, start, i);
                i++;
                if (i >= s.length()) throw error("unterminated escape");
                char e = s.charAt(i++);
                switch (e) {
                    case '"': b.append('"'); break;
                    case '\\': b.append('\\'); break;
                    case '/': b.append('/'); break;
                    case 'b': b.append('\b'); break;
                    case 'f': b.append('\f'); break;
                    case 'n': b.append('\n'); break;
                    case 'r': b.append('\r'); break;
                    case 't': b.append('\t'); break;
                    case 'u':
                        if (i + 4 > s.length()) throw error("short \\u escape");
                        try {
                            b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        } catch (NumberFormatException x) {
                            throw error("bad \\u escape");
                        }
                        i += 4;
                        break;
                    default:
                        throw error("bad escape");
                }
                start = i;
            } else {
                i++;
            }
        }
    }

    private Object number() {
        int start = i;
        if (s.charAt(i) == '-') i++;
        int digits = i;
        while (i < s.length() && Character.isDigit(s.charAt(i))) i++;
        if (i == digits) throw error("expected digits");
        boolean integral = true;
        if (i < s.length() && s.charAt(i) == '.') {
            integral = false;
            i++;
            while (i < s.length() && Character.isDigit(s.charAt(i))) i++;
        }
        if (i < s.length() && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
            integral = false;
            i++;
            if (i < s.length() && (s.charAt(i) == '+' || s.charAt(i) == '-')) i++;
            while (i < s.length() && Character.isDigit(s.charAt(i))) i++;
        }
        String n = s.substring(start, i);
        if (integral) {
            try {
                return Long.parseLong(n);
            } catch (NumberFormatException e) {
                return Double.parseDouble(n);
            }
        }
        return Double.parseDouble(n);
    }
}
