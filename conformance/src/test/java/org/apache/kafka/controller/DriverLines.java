package org.apache.kafka.controller;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

/** One driver, spoken to line by line as isrfuzz does (PROTOCOL.md, BROKERS.md). */
final class DriverLines {
    final ConformanceDriver driver = new ConformanceDriver();

    /** The answer to one request line: exactly one line, parsed. */
    @SuppressWarnings("unchecked")
    Map<String, Object> send(String line) {
        String answer = driver.handle(line);
        assertFalse(answer.contains("\n"), answer);
        return (Map<String, Object>) ConformanceJson.parse(answer);
    }

    /** An answer that must be NONE with no fault. */
    Map<String, Object> ok(String line) {
        Map<String, Object> a = send(line);
        assertEquals("NONE", a.get("error"), () -> line + " -> " + a);
        assertNull(a.get("fault"), () -> line + " -> " + a);
        return a;
    }
}
