package org.railyard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/** Bad input to windows: each fails at once with its class and a message naming what was wrong. */
class WindowErrorsTest {
    private static void fails(Runnable r, ErrorClass c, String... parts) {
        assertThatThrownBy(r::run).isInstanceOf(RailyardException.class)
                .satisfies(x -> assertThat(((RailyardException) x).errorClass()).isEqualTo(c))
                .satisfies(x -> {
                    for (String p : parts) {
                        assertThat(x.getMessage()).contains(p);
                    }
                });
    }

    @ParameterizedTest
    @CsvSource({"array,shm", "alloc,shm", "alloc,tcp"})
    void badInputFailsWithAClearMessage(String path, String transports) throws Exception {
        WorldJob.run(2, transports, (w, me) -> {
            Window win = path.equals("array") ? Window.create(w, new int[8], 4) : Window.allocate(w, 32, 4);
            String name = win.name();
            // no epoch yet
            fails(() -> win.put(new int[1], 0, 1, 1 - me, 0), ErrorClass.RMA_SYNC, "put to rank " + (1 - me), name,
                    "outside an access epoch");
            win.fence();
            // displacement or count outside the window
            fails(() -> win.put(new int[4], 0, 4, 1 - me, 6), ErrorClass.ARG, name, "target rank " + (1 - me),
                    "bytes [24, 40)", "outside its 32 bytes");
            fails(() -> win.get(new int[1], 0, 1, 1 - me, -1), ErrorClass.ARG, "target rank " + (1 - me));
            fails(() -> win.put(new int[1], 0, 1, 5, 0), ErrorClass.RANK, "target rank 5");
            // mismatched types
            fails(() -> win.put(new int[2], 0, 2, Datatype.INT, 1 - me, 0, 1, Datatype.INT), ErrorClass.TYPE,
                    "mismatched types");
            fails(() -> win.put(new long[1], 0, 1, Datatype.LONG, 1 - me, 0, 2, Datatype.INT), ErrorClass.TYPE,
                    "mismatched types");
            if (path.equals("array")) {
                fails(() -> win.put(new long[1], 0, 1, 1 - me, 0), ErrorClass.TYPE, "INT array");
            }
            fails(() -> win.accumulate(new int[1], 0, 1, 1 - me, 0, Op.ofInt(Integer::sum, true)), ErrorClass.OP,
                    "predefined operations");
            fails(() -> win.unlock(1 - me), ErrorClass.RMA_SYNC, "holds no lock");
            fails(() -> win.complete(), ErrorClass.RMA_SYNC, "without start");
            fails(() -> win.waitFor(), ErrorClass.RMA_SYNC, "without post");
            fails(() -> win.sharedQuery(0), ErrorClass.ARG, "not a shared window");
            fails(() -> win.lock(7, 0), ErrorClass.ARG, "lock type 7");
            // free with operations pending (on a mapped window a put is complete when it returns)
            win.put(new int[] {3}, 0, 1, 1 - me, 0);
            if (!(path.equals("alloc") && transports.equals("shm"))) {
                fails(win::free, ErrorClass.RMA_SYNC, "free of window " + name, "operations pending");
            }
            win.fence();
            win.lock(Window.LOCK_SHARED, 1 - me);
            fails(() -> win.fence(), ErrorClass.RMA_SYNC, "inside a lock");
            fails(() -> win.lock(Window.LOCK_SHARED, 1 - me), ErrorClass.RMA_SYNC, "already holds a lock");
            fails(win::free, ErrorClass.RMA_SYNC, "inside a lock epoch");
            win.unlock(1 - me);
            win.fence(Window.MODE_NOSUCCEED);
            win.free();
            fails(() -> win.fence(), ErrorClass.ARG, "was freed");
            fails(() -> Window.create(w, new int[1], 0), ErrorClass.ARG, "displacement unit 0");
            fails(() -> Window.allocate(w, -1, 1), ErrorClass.ARG, "-1 bytes");
        });
    }

    @ParameterizedTest
    @CsvSource({"shm", "tcp"})
    void aDynamicWindowRefusesMemoryNotAttached(String transports) throws Exception {
        WorldJob.run(2, transports, (w, me) -> {
            try (Window win = Window.createDynamic(w)) {
                win.lockAll();
                win.put(new long[] {1}, 0, 1, 1 - me, 4096);
                fails(() -> win.flush(1 - me), ErrorClass.ARG, win.name(), "target rank " + (1 - me),
                        "bytes [4096, 4104)", "outside its memory");
                win.unlockAll();
                w.barrier();
            }
        });
    }
}
