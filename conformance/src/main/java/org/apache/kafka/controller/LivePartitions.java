package org.apache.kafka.controller;

import org.apache.kafka.common.Uuid;

import java.util.ArrayList;

/**
 * The model's partition indices over the real topics (PROTOCOL.md): index n is the n-th
 * partition created and not deleted since. A created topic is {@code t<k>} (k counts the
 * topics created in the history, so a name is never used twice) with its partition 0;
 * createPartitions appends the topic's next partition; a deletion takes out every
 * partition of its topic, and the indices after them move down, as in the model.
 */
final class LivePartitions {
    /** One live partition: its topic's id and name, and its number within the topic. */
    record Entry(Uuid topicId, String topic, int partition) {
    }

    private final ArrayList<Entry> entries = new ArrayList<>();
    private int topicsCreated;

    void clear() {
        entries.clear();
        topicsCreated = 0;
    }

    int size() {
        return entries.size();
    }

    Entry get(int index) {
        return entries.get(index);
    }

    /** The name the next created topic gets. */
    String nextTopicName() {
        return "t" + topicsCreated;
    }

    void topicCreated(Uuid id, String name) {
        entries.add(new Entry(id, name, 0));
        topicsCreated++;
    }

    /** The topic of index {@code index} got its next partition. */
    void partitionAdded(int index) {
        Entry of = entries.get(index);
        entries.add(new Entry(of.topicId(), of.topic(), partitionCount(index)));
    }

    void topicDeleted(Uuid id) {
        entries.removeIf(e -> e.topicId().equals(id));
    }

    /** The topic's partition count, for the topic of index {@code index}. */
    int partitionCount(int index) {
        Uuid id = entries.get(index).topicId();
        int n = 0;
        for (Entry e : entries) if (e.topicId().equals(id)) n++;
        return n;
    }

    boolean has(int index) {
        return index >= 0 && index < entries.size();
    }

    /** The topic name of an index; for one not live, a name no topic has. */
    String topic(int index) {
        return has(index) ? entries.get(index).topic() : "missing" + index;
    }

    /** The partition number of an index within its topic (0 for one not live). */
    int partition(int index) {
        return has(index) ? entries.get(index).partition() : 0;
    }

    /** The topic id of an index; for one not live, an id no topic has. */
    Uuid topicId(int index) {
        if (has(index)) return entries.get(index).topicId();
        return new Uuid(0x7E57000000000000L, 1L + (index & 0xffffffffL));
    }

    /**
     * The index of a topic's partition, or -1. A name {@link #topic} gave an index that is
     * not live ({@code missing<n>}) maps back to n: an election that names it is answered
     * for that index.
     */
    int index(String topic, int partition) {
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            if (e.topic().equals(topic) && e.partition() == partition) return i;
        }
        if (topic.startsWith("missing") && partition == 0) {
            try {
                return Integer.parseInt(topic.substring("missing".length()));
            } catch (NumberFormatException e) {
                return -1;
            }
        }
        return -1;
    }
}
