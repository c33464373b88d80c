package org.apache.kafka.controller;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The request fields and answer lines of the cluster ops (PROTOCOL.md): flat JSON objects
 * whose values are strings, numbers, booleans, null, lists and objects of those.
 */
final class ClusterJson {
    private ClusterJson() {}

    static Object field(Map<String, Object> req, String name) {
        Object v = req.get(name);
        if (v == null) throw new IllegalArgumentException("missing field " + name);
        return v;
    }

    static int integer(Map<String, Object> req, String name) {
        Object v = field(req, name);
        if (v instanceof Long && (Long) v >= Integer.MIN_VALUE && (Long) v <= Integer.MAX_VALUE) {
            return (int) (long) (Long) v;
        }
        throw new IllegalArgumentException("field " + name + " is not an int");
    }

    static boolean bool(Map<String, Object> req, String name) {
        Object v = field(req, name);
        if (!(v instanceof Boolean)) throw new IllegalArgumentException("field " + name + " is not a boolean");
        return (Boolean) v;
    }

    static String text(Map<String, Object> req, String name) {
        Object v = field(req, name);
        if (!(v instanceof String)) throw new IllegalArgumentException("field " + name + " is not a string");
        return (String) v;
    }

    static List<Integer> intList(Map<String, Object> req, String name) {
        Object v = field(req, name);
        if (!(v instanceof List)) throw new IllegalArgumentException("field " + name + " is not an array");
        List<Integer> out = new ArrayList<>();
        for (Object e : (List<?>) v) {
            if (!(e instanceof Long)) throw new IllegalArgumentException("field " + name + " holds a non-integer");
            out.add((int) (long) (Long) e);
        }
        return out;
    }

    static List<String> textList(Map<String, Object> req, String name) {
        Object v = field(req, name);
        if (!(v instanceof List)) throw new IllegalArgumentException("field " + name + " is not an array");
        List<String> out = new ArrayList<>();
        for (Object e : (List<?>) v) out.add(String.valueOf(e));
        return out;
    }

    /** A JSON object of string values, in its order. */
    static Map<String, String> strings(Map<String, Object> req, String name) {
        Object v = field(req, name);
        if (!(v instanceof Map)) throw new IllegalArgumentException("field " + name + " is not an object");
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
            out.put(String.valueOf(e.getKey()), String.valueOf(e.getValue()));
        }
        return out;
    }

    static void write(Object v, StringBuilder out) {
        if (v == null) {
            out.append("null");
        } else if (v instanceof String) {
            ConformanceDriver.string(out, (String) v);
        } else if (v instanceof Number || v instanceof Boolean) {
            out.append(v);
        } else if (v instanceof Map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                if (!first) out.append(',');
                first = false;
                ConformanceDriver.string(out, String.valueOf(e.getKey()));
                out.append(':');
                write(e.getValue(), out);
            }
            out.append('}');
        } else if (v instanceof Iterable) {
            out.append('[');
            boolean first = true;
            for (Object e : (Iterable<?>) v) {
                if (!first) out.append(',');
                first = false;
                write(e, out);
            }
            out.append(']');
        } else {
            ConformanceDriver.string(out, String.valueOf(v));
        }
    }
}
