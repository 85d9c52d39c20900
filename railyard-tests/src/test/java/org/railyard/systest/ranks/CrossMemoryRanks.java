package org.railyard.systest.ranks;

import static org.railyard.systest.ranks.RankSupport.await;
import static org.railyard.systest.ranks.RankSupport.expectFailure;
import static org.railyard.systest.ranks.RankSupport.require;
import static org.railyard.systest.ranks.RankSupport.requireEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.railyard.Comm;
import org.railyard.Datatype;
import org.railyard.Railyard;
import org.railyard.Request;
import org.railyard.Status;
import org.railyard.engine.Engine;
import org.railyard.error.ErrorClass;

/**
 * Large messages between processes of one node whose buffers are in native memory (the
 * cross-memory read of a rendezvous payload, {@code railyard.cma}), and every mix of native and
 * heap buffers around it. Each check prints {@code OK <check> rank R reads N bytes B}: the
 * cross-memory reads this rank made during the check, which the test compares with what the
 * setting and the buffers allow. Run with at least 3 ranks.
 */
public final class CrossMemoryRanks {
    /** Sizes just above the eager limit, a frame-sized one, and large odd ones. */
    private static final int[] SIZES = {64 * 1024 + 1, 256 * 1024, 1024 * 1024 + 7, 3 * 1024 * 1024 + 5};

    private final Railyard ry;
    private final Comm world;
    private final int rank;
    private final Arena arena = Arena.ofShared();

    private CrossMemoryRanks(Railyard ry) {
        this.ry = ry;
        this.world = ry.world();
        this.rank = ry.rank();
    }

    public static void main(String[] args) {
        try (Railyard ry = Railyard.init(args)) {
            require(ry.size() >= 3, "run with at least 3 ranks, got " + ry.size());
            CrossMemoryRanks s = new CrossMemoryRanks(ry);
            s.connectAll();
            Engine engine = ry.engine();
            for (Map.Entry<String, Runnable> c : s.checks().entrySet()) {
                System.out.println("BEGIN " + c.getKey() + " rank " + ry.rank());
                long reads = engine.remoteReads();
                long bytes = engine.remoteReadBytes();
                try {
                    c.getValue().run();
                    ry.world().barrier();
                } catch (Throwable t) {
                    System.out.println("FAIL " + c.getKey() + " rank " + ry.rank() + ": " + t.toString().replace('\n', ' '));
                    System.out.flush();
                    t.printStackTrace();
                    System.exit(1);
                }
                System.out.println("OK " + c.getKey() + " rank " + ry.rank() + " reads " + (engine.remoteReads() - reads)
                        + " bytes " + (engine.remoteReadBytes() - bytes));
            }
        }
        System.out.flush();
    }

    /**
     * A small message each way between every pair and to itself, so that every channel is up
     * before the checks: a payload is offered for reading only on a channel already up over
     * shared memory.
     */
    private void connectAll() {
        byte[] one = new byte[1];
        byte[] in = new byte[1];
        for (int peer = 0; peer < ry.size(); peer++) {
            world.sendrecv(one, 0, 1, peer, 1, in, 0, 1, peer, 1);
        }
    }

    /** The checks, in the order they run; the test knows their names. */
    public static final List<String> CHECKS = List.of("native-to-native", "native-to-heap", "heap-to-native",
            "direct-buffers", "unexpected", "truncate", "alltoall", "to-self", "bcast-pair", "allgather-pair");

    private Map<String, Runnable> checks() {
        Map<String, Runnable> m = new LinkedHashMap<>();
        m.put("native-to-native", () -> pairs(true, true));
        m.put("native-to-heap", () -> pairs(true, false));
        m.put("heap-to-native", () -> pairs(false, true));
        m.put("direct-buffers", this::directBuffers);
        m.put("unexpected", this::unexpected);
        m.put("truncate", this::truncate);
        m.put("alltoall", this::alltoall);
        m.put("to-self", this::toSelf);
        m.put("bcast-pair", this::bcastPair);
        m.put("allgather-pair", this::allgatherPair);
        require(m.keySet().equals(new java.util.LinkedHashSet<>(CHECKS)), "check list out of date");
        return m;
    }

    /** The byte at {@code i} of the message from {@code from} to {@code to}. */
    private static byte pattern(int from, int to, long i) {
        return (byte) (i * 31 + from * 7 + to * 13 + (i >>> 11));
    }

    /**
     * Rank 0 sends every size to rank 1 and rank 2 at once (from element 3 of its buffer), each
     * receiver into element 5 of its buffer; bytes around the message must stay untouched.
     */
    private void pairs(boolean nativeSend, boolean nativeRecv) {
        for (int size : SIZES) {
            if (rank == 0) {
                Object[] bufs = new Object[3];
                Request[] rs = new Request[2];
                for (int to = 1; to <= 2; to++) {
                    bufs[to] = buffer(nativeSend, size + 3);
                    for (int i = 0; i < size; i++) {
                        put(bufs[to], 3 + i, pattern(0, to, i));
                    }
                    rs[to - 1] = world.isend(bufs[to], 3, size, to, size & 0x7fff);
                }
                await(rs[0], "send to 1");
                await(rs[1], "send to 2");
            } else if (rank <= 2) {
                Object buf = buffer(nativeRecv, size + 10);
                for (int i = 0; i < size + 10; i++) {
                    put(buf, i, (byte) 0x5a);
                }
                Status st = await(world.irecv(buf, 5, size, 0, size & 0x7fff), "receive of " + size + " B");
                requireEquals(size, st.count(Datatype.BYTE), "received count");
                verify(buf, 5, size, 0, rank);
                for (int i : new int[] {0, 4, size + 5, size + 9}) {
                    requireEquals(0x5a, get(buf, i), "byte " + i + " outside the message");
                }
            }
        }
    }

    private void directBuffers() {
        int size = 2 * 1024 * 1024 + 3;
        if (rank == 1) {
            ByteBuffer b = ByteBuffer.allocateDirect(size);
            for (int i = 0; i < size; i++) {
                b.put(i, pattern(1, 2, i));
            }
            world.send(b, 0, size, 2, 9);
        } else if (rank == 2) {
            ByteBuffer b = ByteBuffer.allocateDirect(size);
            world.recv(b, 0, size, 1, 9);
            for (int i = 0; i < size; i++) {
                if (b.get(i) != pattern(1, 2, i)) {
                    throw new AssertionError("direct buffer byte " + i + ": " + b.get(i) + " != " + pattern(1, 2, i));
                }
            }
        }
    }

    /**
     * The RTS arrives before the receive is posted: rank 0's barrier message follows its RTS on the
     * same connection, so rank 2 has it in its unexpected list when it leaves the barrier.
     */
    private void unexpected() {
        int size = 1024 * 1024;
        if (rank == 0) {
            MemorySegment s = arena.allocate(size, 64);
            fill(s, 0, size, 0, 2);
            Request r = world.isend(s, 0, size, 2, 4);
            world.barrier();
            await(r, "send");
        } else {
            world.barrier();
            if (rank == 2) {
                MemorySegment d = arena.allocate(size, 64);
                Status st = world.recv(d, 0, size, 0, 4);
                requireEquals(size, st.count(Datatype.BYTE), "count");
                verify(d, 0, size, 0, 2);
            }
        }
    }

    /** A message longer than the native receive buffer: TRUNCATE, and the connection still works. */
    private void truncate() {
        int size = 512 * 1024;
        if (rank == 0) {
            MemorySegment s = arena.allocate(size, 64);
            fill(s, 0, size, 0, 1);
            world.send(s, 0, size, 1, 5);
            world.send(s, 0, size, 1, 6);
        } else if (rank == 1) {
            MemorySegment small = arena.allocate(size / 2, 64);
            expectFailure(ErrorClass.TRUNCATE, "receive of " + size + " B into " + size / 2 + " B",
                    () -> world.recv(small, 0, size / 2, 0, 5));
            MemorySegment d = arena.allocate(size, 64);
            world.recv(d, 0, size, 0, 6);
            verify(d, 0, size, 0, 1);
        }
    }

    private void alltoall() {
        int p = ry.size();
        int block = 300 * 1024 + 8;
        MemorySegment s = arena.allocate((long) block * p, 64);
        MemorySegment d = arena.allocate((long) block * p, 64);
        for (int to = 0; to < p; to++) {
            fill(s, (long) to * block, block, rank, to);
        }
        for (int round = 0; round < 3; round++) {
            d.fill((byte) 0);
            world.alltoall(s, 0, block, d, 0, block);
            for (int from = 0; from < p; from++) {
                verify(d, (long) from * block, block, from, rank);
            }
        }
    }

    /** Rank 1 sends 1 MiB to itself: over the self link, read from its own memory. */
    private void toSelf() {
        int size = 1024 * 1024 + 1;
        if (rank == 1) {
            MemorySegment s = arena.allocate(size, 64);
            MemorySegment d = arena.allocate(size, 64);
            fill(s, 0, size, 1, 1);
            Request r = world.irecv(d, 0, size, 1, 8);
            world.send(s, 0, size, 1, 8);
            await(r, "receive from itself");
            verify(d, 0, size, 1, 1);
        }
    }

    /**
     * A bcast of 1 MiB of native memory in a communicator of two processes (ranks 0 and 1): the
     * receiver does not read the root's memory, the message goes through the channel, where the
     * two copies overlap (CollTree.binomialBcast); three times, so a pooled send is reused.
     */
    private void bcastPair() {
        int size = 1024 * 1024 + 7;
        MemorySegment b = arena.allocate(size, 64);
        onPair((pair, round) -> {
            if (rank == 0) {
                fill(b, 0, size, 0, round);
            } else {
                b.fill((byte) 0);
            }
            pair.bcast(b, 0, size, 0);
            verify(b, 0, size, 0, round);
        });
    }

    /** Runs {@code body} three times (rounds 0 to 2) on a communicator of ranks 0 and 1; the others only split. */
    private void onPair(java.util.function.ObjIntConsumer<Comm> body) {
        Comm pair = world.split(rank < 2 ? 0 : Comm.UNDEFINED, rank);
        if (pair == null) {
            return;
        }
        for (int round = 0; round < 3; round++) {
            body.accept(pair, round);
        }
        pair.free();
    }

    /**
     * An allgather of 512 KiB blocks of native memory in a communicator of two processes (ranks 0
     * and 1): both send and receive at once, and by default neither reads the other's memory
     * (railyard.coll.exchange.reads); three times.
     */
    private void allgatherPair() {
        int block = 512 * 1024 + 8;
        MemorySegment s = arena.allocate(block, 64);
        MemorySegment d = arena.allocate(2L * block, 64);
        onPair((pair, round) -> {
            fill(s, 0, block, rank, round);
            d.fill((byte) 0);
            pair.allgather(s, 0, block, d, 0, block);
            for (int from = 0; from < 2; from++) {
                verify(d, (long) from * block, block, from, round);
            }
        });
    }

    private Object buffer(boolean nativeMemory, int bytes) {
        return nativeMemory ? arena.allocate(bytes, 64) : new byte[bytes];
    }

    private static void put(Object buf, long i, byte v) {
        if (buf instanceof MemorySegment s) {
            s.set(ValueLayout.JAVA_BYTE, i, v);
        } else {
            ((byte[]) buf)[(int) i] = v;
        }
    }

    private static int get(Object buf, long i) {
        return (buf instanceof MemorySegment s ? s.get(ValueLayout.JAVA_BYTE, i) : ((byte[]) buf)[(int) i]) & 0xff;
    }

    private static void fill(MemorySegment s, long at, long n, int from, int to) {
        for (long i = 0; i < n; i++) {
            s.set(ValueLayout.JAVA_BYTE, at + i, pattern(from, to, i));
        }
    }

    private static void verify(Object buf, long at, long n, int from, int to) {
        for (long i = 0; i < n; i++) {
            int want = pattern(from, to, i) & 0xff;
            int got = get(buf, at + i);
            if (got != want) {
                throw new AssertionError("message " + from + "->" + to + " byte " + i + ": got " + got + ", expected " + want);
            }
        }
    }
}
