package org.railyard.systest.ranks;

import static org.railyard.systest.ranks.RankSupport.await;
import static org.railyard.systest.ranks.RankSupport.expectFailure;
import static org.railyard.systest.ranks.RankSupport.fillBytes;
import static org.railyard.systest.ranks.RankSupport.fillInts;
import static org.railyard.systest.ranks.RankSupport.require;
import static org.railyard.systest.ranks.RankSupport.requireContains;
import static org.railyard.systest.ranks.RankSupport.requireEquals;
import static org.railyard.systest.ranks.RankSupport.verifyBytes;
import static org.railyard.systest.ranks.RankSupport.verifyInts;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.railyard.Comm;
import org.railyard.Datatype;
import org.railyard.Railyard;
import org.railyard.Request;
import org.railyard.Status;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * A rank program that checks the semantics of the public API across real processes, one named
 * check after the other (the arguments name the checks to run, in order; none means all). Every
 * rank takes part in every check, and a barrier separates checks. For each check every rank prints
 * {@code BEGIN <check> rank R}, then {@code OK <check> rank R}, or {@code FAIL <check> rank R: why}
 * and exits with code 1 (the launcher then stops the others).
 *
 * <p>Checks that need a pair work on the pairs (0,1), (2,3), ...; with an odd number of ranks the
 * last one only takes part in the barriers.
 */
public final class SemanticsRanks {
    /** Every check, in the order they run when none is named. */
    public static final List<String> CHECKS = List.of("ordering", "anysource", "truncate", "sizes", "ssend", "many",
            "probe", "cancel", "procnull", "self", "threads", "dupsplit", "collectives");
    /** The collective checks, also run on a number of ranks that is not a power of two. */
    public static final List<String> COLLECTIVE_CHECKS = List.of("dupsplit", "collectives");

    final Comm world;
    private final Railyard ry;
    final int rank;
    final int size;
    /** Largest message in bytes that still goes eagerly. */
    private final int limit;
    /** The checks the whole group takes part in. */
    private final GroupSemantics group;

    private SemanticsRanks(Railyard ry) {
        this.ry = ry;
        this.world = ry.world();
        this.rank = world.rank();
        this.size = world.size();
        this.limit = (int) ry.engine().eagerLimit();
        this.group = new GroupSemantics(this);
    }

    public static void main(String[] args) {
        List<String> checks = args.length == 0 ? CHECKS : List.of(args);
        try (Railyard ry = Railyard.init(args)) {
            SemanticsRanks s = new SemanticsRanks(ry);
            Map<String, Runnable> byName = s.checks();
            for (String c : checks) {
                Runnable check = byName.get(c);
                if (check == null) {
                    fail(c, ry.rank(), new IllegalArgumentException("unknown check; known: " + byName.keySet()));
                }
                System.out.println("BEGIN " + c + " rank " + ry.rank());
                try {
                    check.run();
                    ry.world().barrier();
                } catch (Throwable t) {
                    fail(c, ry.rank(), t);
                }
                System.out.println("OK " + c + " rank " + ry.rank());
            }
        }
        System.out.flush();
    }

    private static void fail(String check, int rank, Throwable t) {
        System.out.println("FAIL " + check + " rank " + rank + ": " + t.toString().replace('\n', ' '));
        System.out.flush();
        t.printStackTrace();
        System.err.flush();
        System.exit(1);
    }

    private Map<String, Runnable> checks() {
        return Map.ofEntries(
                Map.entry("ordering", this::ordering),
                Map.entry("anysource", this::anySource),
                Map.entry("truncate", this::truncate),
                Map.entry("sizes", this::sizes),
                Map.entry("ssend", this::ssend),
                Map.entry("many", this::manyOutstanding),
                Map.entry("probe", this::probe),
                Map.entry("cancel", this::cancel),
                Map.entry("procnull", this::procNull),
                Map.entry("self", this::selfSend),
                Map.entry("threads", this::threads),
                Map.entry("dupsplit", group::dupSplit),
                Map.entry("collectives", group::collectives),
                Map.entry("allpairs", group::allPairs));
    }

    /** My partner in the pair checks, or -1 (odd rank out). */
    private int partner() {
        int p = rank ^ 1;
        return p < size ? p : -1;
    }

    private boolean firstOfPair() {
        return (rank & 1) == 0;
    }

    void onPairs(Consumer<Integer> first, Consumer<Integer> second) {
        int p = partner();
        if (p < 0) {
            return;
        }
        if (firstOfPair()) {
            first.accept(p);
        } else {
            second.accept(p);
        }
    }

    // ================================================================== ordering

    /** Length in ints of message {@code seq} of the ordering check: eager, at the limit, and rendezvous. */
    private int orderingLength(int seq) {
        int[] lengths = {0, 1, limit / 4 - 1, limit / 4, limit / 4 + 1, 7, 200_000, 3, 2 * limit / 4 + 5};
        return lengths[seq % lengths.length];
    }

    /**
     * Non-overtaking, per source, whatever the protocol of each message: (1) every rank isends 50
     * messages of mixed sizes (every fourth with issend) to every other rank with tag = sequence number, and receives them all
     * with ANY_SOURCE and ANY_TAG: from each source the tags must come 0, 1, 2, ... (2) in a ring,
     * receives with one source and one tag are posted before the messages are sent: the i-th
     * receive must get the i-th message.
     */
    private void ordering() {
        int n = 50;
        int max = 0;
        for (int i = 0; i < n; i++) {
            max = Math.max(max, orderingLength(i));
        }
        List<Request> sends = new ArrayList<>();
        for (int seq = 0; seq < n; seq++) {
            for (int p = 0; p < size; p++) {
                if (p != rank) {
                    int len = orderingLength(seq);
                    int[] d = new int[len];
                    fillInts(d, 0, len, rank, seq);
                    // every fourth one synchronous: an RTS among eager messages keeps its place too
                    sends.add(seq % 4 == 1 ? world.issend(d, 0, len, p, seq) : world.isend(d, 0, len, p, seq));
                }
            }
        }
        int[] buf = new int[max];
        int[] next = new int[size];
        Status st = new Status();
        for (int k = 0; k < (size - 1) * n; k++) {
            world.recv(buf, 0, buf.length, Comm.ANY_SOURCE, Comm.ANY_TAG, st);
            int src = st.source();
            require(src >= 0 && src < size && src != rank, "ANY_SOURCE receive reported source " + src);
            require(st.tag() == next[src], "from rank " + src + " message " + st.tag() + " arrived when message "
                    + next[src] + " was due: a message overtook an earlier one");
            int len = orderingLength(st.tag());
            requireEquals(4L * len, st.bytes(), "bytes of message " + st.tag() + " from rank " + src);
            requireEquals(len, st.count(), "count of message " + st.tag() + " from rank " + src);
            verifyInts(buf, 0, len, src, st.tag(), "message " + st.tag() + " from rank " + src);
            next[src]++;
        }
        for (Request r : sends) {
            await(r, "isend of the ordering check");
        }
        world.barrier();

        // (2) posted receives of one source and tag match in send order
        int right = (rank + 1) % size;
        int left = (rank + size - 1) % size;
        Request[] recvs = new Request[n];
        int[][] in = new int[n][];
        for (int i = 0; i < n; i++) {
            in[i] = new int[orderingLength(i) + 1];
            recvs[i] = world.irecv(in[i], 0, in[i].length, left, 7);
        }
        world.barrier(); // every receive is posted before the first message leaves
        sends.clear();
        for (int i = 0; i < n; i++) {
            int len = orderingLength(i);
            int[] d = new int[len];
            fillInts(d, 0, len, rank, i);
            sends.add(world.isend(d, 0, len, right, 7));
        }
        for (int i = 0; i < n; i++) {
            Status s = await(recvs[i], "posted receive " + i + " from rank " + left);
            requireEquals(4L * orderingLength(i), s.bytes(), "bytes received by posted receive " + i + " (message "
                    + i + " expected)");
            verifyInts(in[i], 0, orderingLength(i), left, i, "posted receive " + i);
        }
        for (Request r : sends) {
            await(r, "isend of the ring");
        }
    }

    // ================================================================== wildcards

    /**
     * ANY_SOURCE and ANY_TAG report the real sender, tag, size and count; a wildcard on one field
     * still matches on the other.
     */
    private void anySource() {
        if (rank != 0) {
            world.send(new long[] {rank * 1000L}, 0, 1, 0, 100 + rank);
        } else {
            boolean[] seen = new boolean[size];
            for (int i = 1; i < size; i++) {
                long[] v = new long[1];
                Status st = world.recv(v, 0, 1, Comm.ANY_SOURCE, Comm.ANY_TAG);
                int src = st.source();
                require(src > 0 && src < size, "ANY_SOURCE reported source " + src);
                require(!seen[src], "rank " + src + " reported twice");
                seen[src] = true;
                requireEquals(100 + src, st.tag(), "tag reported for the message of rank " + src);
                requireEquals(8, st.bytes(), "bytes of the message of rank " + src);
                requireEquals(1, st.count(), "count of the message of rank " + src);
                requireEquals(src * 1000L, v[0], "value from rank " + src);
            }
        }
        world.barrier();
        // a message goes to the earliest posted receive that matches it, wildcard or not
        if (rank == 1) {
            world.send(new int[] {11}, 0, 1, 0, 150);
            world.send(new int[] {12}, 0, 1, 0, 150);
        } else if (rank == 0) {
            int[] a = new int[1];
            int[] b = new int[1];
            Request wild = world.irecv(a, 0, 1, Comm.ANY_SOURCE, Comm.ANY_TAG);
            Request specific = world.irecv(b, 0, 1, 1, 150);
            await(wild, "wildcard receive posted first");
            await(specific, "specific receive posted second");
            requireEquals(11, a[0], "the receive posted first (ANY_SOURCE, ANY_TAG) got");
            requireEquals(12, b[0], "the receive posted second (rank 1, tag 150) got");
        }
        world.barrier();
        if (rank != 0) {
            int[] d = new int[rank];
            fillInts(d, 0, rank, rank, 200);
            world.send(d, 0, rank, 0, 200);
            world.send(new double[] {rank + 0.5}, 0, 1, 0, 300 + rank);
            return;
        }
        // ANY_SOURCE with a tag: must skip the earlier messages of other tags
        for (int r = size - 1; r >= 1; r--) {
            double[] v = new double[1];
            Request q = world.irecv(v, 0, 1, Comm.ANY_SOURCE, 300 + r);
            Status st = await(q, "ANY_SOURCE receive of tag " + (300 + r));
            requireEquals(r, st.source(), "source of the only message with tag " + (300 + r));
            requireEquals(300 + r, st.tag(), "tag reported");
            require(v[0] == r + 0.5, "value with tag " + (300 + r) + " is " + v[0]);
            require(q.status() == st, "Request.status() differs from what await returned");
        }
        // a source with ANY_TAG: the oldest message left from that source
        for (int r = 1; r < size; r++) {
            int[] d = new int[r + 4];
            Status st = world.recv(d, 0, d.length, r, Comm.ANY_TAG);
            requireEquals(200, st.tag(), "tag of the oldest message left from rank " + r);
            requireEquals(r, st.source(), "source");
            requireEquals(r, st.count(), "count of ints from rank " + r);
            requireEquals(r, st.count(Datatype.INT), "count(INT) from rank " + r);
            requireEquals(4L * r, st.count(Datatype.BYTE), "count(BYTE) from rank " + r);
            verifyInts(d, 0, r, r, 200, "ints from rank " + r);
        }
        require(world.iprobe(Comm.ANY_SOURCE, Comm.ANY_TAG) == null, "a message is left over after the wildcard check");
    }

    // ================================================================== truncation

    /**
     * A message longer than the receive buffer fails that receive with TRUNCATE naming both sizes,
     * eager or rendezvous, blocking or not; the connection stays usable.
     */
    private void truncate() {
        onPairs(p -> {
            byte[] a = new byte[100];
            fillBytes(a, 0, 100, rank, 1);
            world.send(a, 0, 100, p, 1);
            byte[] b = new byte[300_000];
            fillBytes(b, 0, b.length, rank, 2);
            world.send(b, 0, b.length, p, 2);
            world.send(b, 0, b.length, p, 3);
            world.send(new byte[] {42}, 0, 1, p, 4);
            byte[] back = new byte[1];
            world.recv(back, 0, 1, p, 5);
            requireEquals(43, back[0], "answer after the truncations");
        }, p -> {
            byte[] small = new byte[50];
            RailyardException e = expectFailure(ErrorClass.TRUNCATE, "eager 100-byte message into 50 bytes",
                    () -> world.recv(small, 0, 50, p, 1));
            requireContains(e.getMessage(), "message of 100 bytes", "TRUNCATE message");
            requireContains(e.getMessage(), "holds 50 bytes", "TRUNCATE message");

            byte[] mid = new byte[1000];
            e = expectFailure(ErrorClass.TRUNCATE, "rendezvous 300000-byte message into 1000 bytes",
                    () -> world.recv(mid, 0, 1000, p, 2));
            requireContains(e.getMessage(), "message of 300000 bytes", "TRUNCATE message");
            requireContains(e.getMessage(), "holds 1000 bytes", "TRUNCATE message");

            Request r = world.irecv(new byte[299_999], 0, 299_999, p, 3);
            e = expectFailure(ErrorClass.TRUNCATE, "irecv of 300000 bytes into 299999", () -> r.await(RankSupport.BOUND));
            requireContains(e.getMessage(), "message of 300000 bytes", "TRUNCATE message");
            requireContains(e.getMessage(), "holds 299999 bytes", "TRUNCATE message");

            byte[] last = new byte[1];
            world.recv(last, 0, 1, p, 4);
            requireEquals(42, last[0], "the message after the truncated ones");
            world.send(new byte[] {43}, 0, 1, p, 5);
        });
    }

    // ================================================================== sizes

    /**
     * Sizes around the eager limit and large rendezvous messages (1 and 4 MiB) arrive intact and
     * land at the receive offset without touching the bytes around; echoed back, they arrive intact
     * again. Also doubles with offsets, a direct ByteBuffer and a MemorySegment.
     */
    private void sizes() {
        int[] lengths = {0, 1, limit - 1, limit, limit + 1, 2 * limit + 3, 1 << 20, 4 << 20};
        onPairs(p -> {
            for (int i = 0; i < lengths.length; i++) {
                int n = lengths[i];
                byte[] out = new byte[n + 7];
                fillBytes(out, 3, n, rank, i);
                world.send(out, 3, n, p, 10 + i);
                byte[] back = new byte[n + 10];
                Arrays.fill(back, (byte) 0x5a);
                Status st = world.recv(back, 5, n + 2, p, 10 + i);
                requireEquals(n, st.bytes(), "bytes of the echo of " + n + " bytes");
                verifyBytes(back, 5, n, rank, i, "echo of " + n + " bytes");
                require(back[4] == 0x5a && back[5 + n] == 0x5a, "echo of " + n + " bytes wrote outside its place");
            }
            for (int n : new int[] {limit / 8 - 1, limit / 8, limit / 8 + 1, 1 << 19}) {
                double[] d = new double[n + 3];
                for (int i = 0; i < d.length; i++) {
                    d[i] = i * 0.5 - 7;
                }
                world.send(d, 3, n, p, 30);
            }
            ByteBuffer direct = ByteBuffer.allocateDirect(4 << 20);
            for (int i = 0; i < direct.capacity(); i++) {
                direct.put(i, RankSupport.byteAt(rank, 40, i));
            }
            world.send(direct, 0, direct.capacity(), p, 40);
            try (Arena arena = Arena.ofShared()) {
                MemorySegment seg = arena.allocate(1 << 20);
                for (long i = 0; i < seg.byteSize(); i++) {
                    seg.set(ValueLayout.JAVA_BYTE, i, RankSupport.byteAt(rank, 41, i));
                }
                world.send(seg, 0, (int) seg.byteSize(), p, 41);
            }
        }, p -> {
            for (int i = 0; i < lengths.length; i++) {
                int n = lengths[i];
                byte[] in = new byte[n + 5];
                Arrays.fill(in, (byte) 0x33);
                Status st = world.recv(in, 2, n + 3, p, 10 + i);
                requireEquals(n, st.bytes(), "bytes of a message of " + n + " bytes");
                requireEquals(p, st.source(), "source");
                requireEquals(10 + i, st.tag(), "tag");
                verifyBytes(in, 2, n, p, i, "message of " + n + " bytes");
                require(in[1] == 0x33 && in[2 + n] == 0x33, "message of " + n + " bytes wrote outside its place");
                world.send(in, 2, n, p, 10 + i);
            }
            for (int n : new int[] {limit / 8 - 1, limit / 8, limit / 8 + 1, 1 << 19}) {
                double[] d = new double[n + 2];
                Status st = world.recv(d, 2, n, p, 30);
                requireEquals(8L * n, st.bytes(), "bytes of " + n + " doubles");
                for (int i = 0; i < n; i++) {
                    if (d[2 + i] != (3 + i) * 0.5 - 7) {
                        throw new AssertionError("double " + i + " of " + n + " is " + d[2 + i]);
                    }
                }
                require(d[0] == 0 && d[1] == 0, "doubles written before the receive offset");
            }
            ByteBuffer heap = ByteBuffer.allocate(4 << 20);
            world.recv(heap, 0, heap.capacity(), p, 40);
            for (int i = 0; i < heap.capacity(); i++) {
                if (heap.get(i) != RankSupport.byteAt(p, 40, i)) {
                    throw new AssertionError("direct ByteBuffer of 4 MiB: byte " + i + " differs");
                }
            }
            try (Arena arena = Arena.ofShared()) {
                MemorySegment seg = arena.allocate(1 << 20);
                world.recv(seg, 0, (int) seg.byteSize(), p, 41);
                for (long i = 0; i < seg.byteSize(); i++) {
                    if (seg.get(ValueLayout.JAVA_BYTE, i) != RankSupport.byteAt(p, 41, i)) {
                        throw new AssertionError("MemorySegment of 1 MiB: byte " + i + " differs");
                    }
                }
            }
        });
    }

    // ================================================================== synchronous send

    /**
     * A synchronous send does not complete before the receiver has matched it. The proof, without
     * any sleep: after the issend, a ping on another tag and its pong show the receiver has seen
     * the issend's envelope (the channel keeps order) and has not posted its receive; the issend
     * must still be pending then. Only after a "go" does the receiver post its receive, and then the
     * issend completes. Empty, eager-sized and rendezvous-sized, then a blocking ssend.
     */
    private void ssend() {
        int[] lengths = {0, 8, 1 << 20};
        onPairs(p -> {
            for (int k = 0; k < lengths.length; k++) {
                int base = 10 * k;
                byte[] data = new byte[lengths[k]];
                fillBytes(data, 0, data.length, rank, base);
                Request s = world.issend(data, 0, data.length, p, base + 1);
                byte[] one = new byte[1];
                world.send(one, 0, 1, p, base + 2);
                world.recv(one, 0, 1, p, base + 3);
                require(!s.test(), "issend of " + lengths[k] + " bytes completed before the receiver posted its receive");
                require(!s.isDone() && s.status() == null, "issend of " + lengths[k] + " bytes reports completion early");
                world.send(one, 0, 1, p, base + 4);
                await(s, "issend of " + lengths[k] + " bytes after the receiver posted its receive");
            }
            world.ssend(new int[] {77}, 0, 1, p, 50);
        }, p -> {
            for (int k = 0; k < lengths.length; k++) {
                int base = 10 * k;
                byte[] one = new byte[1];
                world.recv(one, 0, 1, p, base + 2);
                world.send(one, 0, 1, p, base + 3);
                world.recv(one, 0, 1, p, base + 4);
                byte[] data = new byte[lengths[k]];
                Status st = world.recv(data, 0, data.length, p, base + 1);
                requireEquals(lengths[k], st.bytes(), "bytes of the synchronous message");
                verifyBytes(data, 0, data.length, p, base, "synchronous message");
            }
            int[] v = new int[1];
            world.recv(v, 0, 1, p, 50);
            requireEquals(77, v[0], "blocking ssend value");
        });
    }

    // ================================================================== many requests

    private static int manyLength(int i) {
        return 1 + (i % 3 == 0 ? 20_000 : i % 50);
    }

    /**
     * 1000 isends and 1000 irecvs outstanding at once in a ring, a third of them rendezvous, the
     * receives posted in reverse tag order; every one completes with its own message.
     */
    private void manyOutstanding() {
        int n = 1000;
        int right = (rank + 1) % size;
        int left = (rank + size - 1) % size;
        Request[] recvs = new Request[n];
        int[][] in = new int[n][];
        for (int i = n - 1; i >= 0; i--) {
            in[i] = new int[manyLength(i)];
            recvs[i] = world.irecv(in[i], 0, in[i].length, left, i);
        }
        Request[] sends = new Request[n];
        for (int i = 0; i < n; i++) {
            int[] out = new int[manyLength(i)];
            fillInts(out, 0, out.length, rank, i);
            sends[i] = world.isend(out, 0, out.length, right, i);
        }
        int first = Request.awaitAny(recvs);
        require(first >= 0 && recvs[first].isDone(), "awaitAny returned " + first + " which is not complete");
        requireEquals(first, recvs[first].status().index(), "Status.index() of the request awaitAny returned");
        for (int i = 0; i < n; i++) {
            Status st = await(recvs[i], "irecv " + i + " of " + n);
            requireEquals(left, st.source(), "source of irecv " + i);
            requireEquals(i, st.tag(), "tag of irecv " + i);
            requireEquals(manyLength(i), st.count(), "count of irecv " + i);
            verifyInts(in[i], 0, in[i].length, left, i, "irecv " + i);
        }
        for (int i = 0; i < n; i++) {
            await(sends[i], "isend " + i + " of " + n);
        }
        require(Request.testAll(sends) && Request.testAll(recvs), "testAll is false after every request completed");
        requireEquals(n, Request.testSome(recvs).length, "testSome over completed receives");
    }

    // ================================================================== probe

    /** probe and iprobe describe a message (eager or rendezvous) without receiving it. */
    private void probe() {
        onPairs(p -> {
            short[] s = new short[77];
            for (int i = 0; i < s.length; i++) {
                s[i] = (short) (i * 3);
            }
            world.send(s, 0, 77, p, 5);
            byte[] b = new byte[500_000];
            fillBytes(b, 0, b.length, rank, 6);
            world.send(b, 0, b.length, p, 6);
        }, p -> {
            require(world.iprobe(p, 9) == null, "iprobe found a message with tag 9, which is never sent");
            Status st = world.probe(p, 5);
            requireEquals(p, st.source(), "probe source");
            requireEquals(5, st.tag(), "probe tag");
            requireEquals(154, st.bytes(), "probe bytes of 77 shorts");
            requireEquals(77, st.count(Datatype.SHORT), "probe count(SHORT)");
            st = world.probe(Comm.ANY_SOURCE, 6);
            requireEquals(p, st.source(), "probe(ANY_SOURCE) source");
            requireEquals(500_000, st.bytes(), "probe bytes of the rendezvous message");
            Status again = world.iprobe(Comm.ANY_SOURCE, Comm.ANY_TAG);
            require(again != null && again.tag() == 5, "iprobe(ANY, ANY) after probing: expected the tag 5 message still there, got " + again);
            short[] s = new short[77];
            world.recv(s, 0, 77, p, 5);
            for (int i = 0; i < s.length; i++) {
                requireEquals((short) (i * 3), s[i], "short " + i);
            }
            byte[] b = new byte[500_000];
            world.recv(b, 0, b.length, p, 6);
            verifyBytes(b, 0, b.length, p, 6, "probed rendezvous message");
            require(world.iprobe(Comm.ANY_SOURCE, Comm.ANY_TAG) == null, "iprobe finds a message after both were received");
        });
    }

    // ================================================================== cancel

    /** A cancelled receive never matches; the message it would have taken goes to the next receive. */
    private void cancel() {
        onPairs(p -> {
            world.recv(new int[1], 0, 1, p, 2);
            world.send(new int[] {31}, 0, 1, p, 1);
        }, p -> {
            int[] a = new int[1];
            Request r = world.irecv(a, 0, 1, p, 1);
            require(r.cancel(), "cancel of a pending receive returned false");
            require(r.isDone(), "a cancelled receive is not done");
            require(r.status() != null && r.status().cancelled(), "status of a cancelled receive: " + r.status());
            require(!r.cancel(), "a second cancel returned true");
            world.send(a, 0, 1, p, 2);
            int[] b = new int[1];
            Request r2 = world.irecv(b, 0, 1, p, 1);
            Status st = await(r2, "the receive after the cancelled one");
            require(!st.cancelled(), "the matched receive says cancelled");
            requireEquals(31, b[0], "value received by the second receive");
            requireEquals(0, a[0], "buffer of the cancelled receive");
            require(!r2.cancel(), "cancel of a completed receive returned true");
        });
    }

    // ================================================================== PROC_NULL

    /** Sends to and receives from PROC_NULL complete at once and move nothing. */
    private void procNull() {
        int[] buf = {5, 6, 7};
        world.send(buf, 0, 3, Comm.PROC_NULL, 1);
        world.ssend(buf, 0, 3, Comm.PROC_NULL, 1);
        Status st = world.recv(buf, 0, 3, Comm.PROC_NULL, 1);
        requireEquals(Comm.PROC_NULL, st.source(), "source of a receive from PROC_NULL");
        requireEquals(0, st.bytes(), "bytes of a receive from PROC_NULL");
        require(Arrays.equals(buf, new int[] {5, 6, 7}), "a receive from PROC_NULL wrote its buffer");
        Request s = world.isend(buf, 0, 3, Comm.PROC_NULL, 1);
        Request r = world.irecv(buf, 0, 3, Comm.PROC_NULL, 1);
        require(s.isDone() && r.isDone(), "isend/irecv with PROC_NULL are not complete at once");
        requireEquals(Comm.PROC_NULL, r.status().source(), "irecv PROC_NULL source");
        requireEquals(0, r.status().bytes(), "irecv PROC_NULL bytes");
        // a shift with PROC_NULL at the ends of the line of ranks
        int right = rank + 1 < size ? rank + 1 : Comm.PROC_NULL;
        int left = rank > 0 ? rank - 1 : Comm.PROC_NULL;
        int[] in = {-1};
        Status sr = world.sendrecv(new int[] {rank}, 0, 1, right, 3, in, 0, 1, left, 3);
        if (left == Comm.PROC_NULL) {
            requireEquals(-1, in[0], "sendrecv from PROC_NULL wrote the buffer");
            requireEquals(Comm.PROC_NULL, sr.source(), "sendrecv source");
        } else {
            requireEquals(left, in[0], "value shifted from the left");
        }
        require(world.iprobe(Comm.PROC_NULL, Comm.ANY_TAG) != null, "iprobe of PROC_NULL must succeed at once");
    }

    // ================================================================== self

    /** A process sends to itself, eager (unexpected first) and rendezvous, on world and on self. */
    private void selfSend() {
        for (Comm c : List.of(world, ry.self())) {
            int me = c.rank();
            byte[] small = new byte[100];
            fillBytes(small, 0, 100, rank, 1);
            c.send(small, 0, 100, me, 1); // eager: completes before any receive is posted
            byte[] in = new byte[100];
            Status st = c.recv(in, 0, 100, Comm.ANY_SOURCE, Comm.ANY_TAG);
            requireEquals(me, st.source(), "source of a message to myself on " + c.name());
            verifyBytes(in, 0, 100, rank, 1, "eager message to myself on " + c.name());

            byte[] big = new byte[700_000];
            fillBytes(big, 0, big.length, rank, 2);
            byte[] bigIn = new byte[700_000];
            Request r = c.irecv(bigIn, 0, bigIn.length, me, 2);
            c.send(big, 0, big.length, me, 2);
            await(r, "rendezvous receive from myself on " + c.name());
            verifyBytes(bigIn, 0, bigIn.length, rank, 2, "rendezvous message to myself on " + c.name());

            Request s = c.issend(small, 0, 10, me, 3);
            byte[] ten = new byte[10];
            c.recv(ten, 0, 10, me, 3);
            await(s, "issend to myself on " + c.name());
        }
        // the largest tag travels and is reported as it is
        world.send(new int[] {9}, 0, 1, rank, Comm.TAG_UB);
        Status top = world.recv(new int[1], 0, 1, rank, Comm.ANY_TAG);
        requireEquals(Comm.TAG_UB, top.tag(), "tag of a message sent with TAG_UB");
        requireEquals(0, ry.self().rank(), "rank in SELF");
        requireEquals(1, ry.self().size(), "size of SELF");
    }

    // ================================================================== threads

    /**
     * Several threads of one process call the library at once: in each pair, 4 threads per side
     * ping-pong 100 times each on their own tag, with eager and rendezvous sizes, and every message
     * arrives intact at the thread that waits for it.
     */
    private void threads() {
        int p = partner();
        if (p < 0) {
            return;
        }
        int threads = 4;
        int rounds = 100;
        java.util.concurrent.ConcurrentLinkedQueue<Throwable> errors = new java.util.concurrent.ConcurrentLinkedQueue<>();
        // rounds each thread finished: a thread past the bound says whether it stopped or went slowly
        java.util.concurrent.atomic.AtomicIntegerArray done = new java.util.concurrent.atomic.AtomicIntegerArray(threads);
        List<Thread> ts = new ArrayList<>();
        for (int k = 0; k < threads; k++) {
            int tag = 100 + k;
            int self = k;
            ts.add(Thread.ofPlatform().name("systest-thread-" + k).start(() -> {
                try {
                    for (int i = 0; i < rounds; i++) {
                        int len = i % 10 == 9 ? 30_000 : 1 + (i * 7 + tag) % 200;
                        int seq = tag * 1000 + i;
                        int[] out = new int[len];
                        int[] in = new int[len];
                        if (firstOfPair()) {
                            fillInts(out, 0, len, rank, seq);
                            world.send(out, 0, len, p, tag);
                            Status st = world.recv(in, 0, len, p, tag);
                            requireEquals(4L * len, st.bytes(), "thread " + tag + " round " + i + ": bytes of the pong");
                            verifyInts(in, 0, len, p, seq, "thread " + tag + " round " + i + " pong");
                        } else {
                            Status st = world.recv(in, 0, len, p, tag);
                            requireEquals(4L * len, st.bytes(), "thread " + tag + " round " + i + ": bytes of the ping");
                            verifyInts(in, 0, len, p, seq, "thread " + tag + " round " + i + " ping");
                            fillInts(out, 0, len, rank, seq);
                            world.send(out, 0, len, p, tag);
                        }
                        done.incrementAndGet(self);
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            }));
        }
        for (Thread t : ts) {
            try {
                require(t.join(RankSupport.BOUND), t.getName() + " still runs after " + RankSupport.BOUND.toSeconds()
                        + " s (rounds done of " + rounds + ", per thread: " + done + ")");
            } catch (InterruptedException e) {
                throw new AssertionError("interrupted", e);
            }
        }
        if (!errors.isEmpty()) {
            AssertionError e = new AssertionError("a thread failed: " + errors.peek(), errors.peek());
            throw e;
        }
    }
}
