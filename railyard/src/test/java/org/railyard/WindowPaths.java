package org.railyard;

import java.lang.foreign.ValueLayout;

/**
 * The two paths of the window tests to a window's memory, named by a parameter: {@code "array"}, a
 * Java array the window wraps ({@link Window#create}), or any other name, memory the window
 * allocates ({@link Window#allocate}); and reading an element back whichever path it took.
 */
final class WindowPaths {
    private WindowPaths() {
    }

    /** A window of {@code ints} ints on {@code w}, by {@code path}. */
    static Window window(Comm w, String path, int ints) {
        return path.equals("array") ? Window.create(w, new int[ints], 4) : Window.allocate(w, 4L * ints, 4);
    }

    /** A window of longs on {@code w}, by {@code path}: over {@code mem} itself, or as long as it. */
    static Window window(Comm w, String path, long[] mem) {
        return path.equals("array") ? Window.create(w, mem, 8) : Window.allocate(w, 8L * mem.length, 8);
    }

    /** Int {@code i} of this rank's part of an int window. */
    static int at(Window win, int i) {
        return win.buffer() instanceof int[] a ? a[i] : win.memory().getAtIndex(ValueLayout.JAVA_INT, i);
    }

    /** Long {@code i} of this rank's part of a long window. */
    static long longAt(Window win, int i) {
        return win.buffer() instanceof long[] a ? a[i] : win.memory().getAtIndex(ValueLayout.JAVA_LONG, i);
    }
}
