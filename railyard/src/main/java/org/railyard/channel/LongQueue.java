package org.railyard.channel;

/** A growable FIFO of longs (no boxing): the channel's queue of frames to send again. */
final class LongQueue {
    private long[] items = new long[256];
    private int head;
    private int size;

    void add(long v) {
        if (size == items.length) {
            items = Rings.unwrapped(items, head, size, size * 2);
            head = 0;
        }
        items[(head + size++) % items.length] = v;
    }

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    long peek() {
        return items[head];
    }

    long poll() {
        long v = items[head];
        head = (head + 1) % items.length;
        size--;
        return v;
    }

    void clear() {
        head = 0;
        size = 0;
    }
}
