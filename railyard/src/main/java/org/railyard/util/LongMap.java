package org.railyard.util;

import java.util.Arrays;
import java.util.function.Consumer;

/**
 * A map from {@code long} keys to objects, open addressing with linear probing: lookups and
 * updates of keys already present allocate nothing (no boxing), which is what per-flow tables on
 * a hot path need. Not thread safe; no removal (flow tables only grow, bounded by the flows a
 * program uses).
 *
 * @param <V> value type
 */
public final class LongMap<V> {
    private long[] keys;
    private Object[] values;
    private boolean[] used;
    private int size;

    public LongMap() {
        keys = new long[16];
        values = new Object[16];
        used = new boolean[16];
    }

    /** The value of {@code key}, or null. */
    @SuppressWarnings("unchecked")
    public V get(long key) {
        int mask = keys.length - 1;
        for (int i = mix(key) & mask; used[i]; i = (i + 1) & mask) {
            if (keys[i] == key) {
                return (V) values[i];
            }
        }
        return null;
    }

    /** Sets the value of {@code key}. */
    public void put(long key, V value) {
        if (2 * (size + 1) > keys.length) {
            grow();
        }
        int mask = keys.length - 1;
        int i = mix(key) & mask;
        while (used[i]) {
            if (keys[i] == key) {
                values[i] = value;
                return;
            }
            i = (i + 1) & mask;
        }
        used[i] = true;
        keys[i] = key;
        values[i] = value;
        size++;
    }

    /** Number of keys. */
    public int size() {
        return size;
    }

    /** Every value, in no particular order. */
    @SuppressWarnings("unchecked")
    public void forEachValue(Consumer<V> action) {
        for (int i = 0; i < keys.length; i++) {
            if (used[i]) {
                action.accept((V) values[i]);
            }
        }
    }

    private void grow() {
        long[] k = keys;
        Object[] v = values;
        boolean[] u = used;
        keys = new long[k.length * 2];
        values = new Object[k.length * 2];
        used = new boolean[k.length * 2];
        size = 0;
        for (int i = 0; i < k.length; i++) {
            if (u[i]) {
                put(k[i], v[i] == null ? null : cast(v[i]));
            }
        }
        Arrays.fill(v, null);
    }

    @SuppressWarnings("unchecked")
    private V cast(Object o) {
        return (V) o;
    }

    private static int mix(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }
}
