package org.apache.kafka.controller;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A request line's fields, typed; a missing or mistyped one is a DriverException. */
final class RequestFields {
    private RequestFields() {
    }

    static Object field(Map<String, Object> req, String name) {
        Object v = req.get(name);
        if (v == null) throw new ConformanceDriver.DriverException("missing field " + name);
        return v;
    }

    static int toInt(Object v, String name) {
        if (v instanceof Long) {
            long l = (Long) v;
            if (l >= Integer.MIN_VALUE && l <= Integer.MAX_VALUE) return (int) l;
        }
        throw new ConformanceDriver.DriverException("field " + name + " is not an int");
    }

    static long longField(Map<String, Object> req, String name) {
        Object v = field(req, name);
        if (!(v instanceof Long)) throw new ConformanceDriver.DriverException("field " + name + " is not an integer");
        return (Long) v;
    }

    static int integer(Map<String, Object> req, String name) {
        return toInt(field(req, name), name);
    }

    static boolean bool(Map<String, Object> req, String name) {
        Object v = field(req, name);
        if (!(v instanceof Boolean)) throw new ConformanceDriver.DriverException("field " + name + " is not a boolean");
        return (Boolean) v;
    }

    static String text(Map<String, Object> req, String name) {
        Object v = field(req, name);
        if (!(v instanceof String)) throw new ConformanceDriver.DriverException("field " + name + " is not a string");
        return (String) v;
    }

    static List<Integer> intList(Map<String, Object> req, String name) {
        Object v = field(req, name);
        if (!(v instanceof List)) throw new ConformanceDriver.DriverException("field " + name + " is not an array");
        List<?> raw = (List<?>) v;
        List<Integer> list = new ArrayList<>(raw.size());
        for (Object e : raw) list.add(toInt(e, name));
        return list;
    }
}
