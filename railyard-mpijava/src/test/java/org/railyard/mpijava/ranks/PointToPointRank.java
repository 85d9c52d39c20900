package org.railyard.mpijava.ranks;

import java.nio.ByteBuffer;
import java.time.Duration;
import mpi.Comm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Prequest;
import mpi.Request;
import mpi.Status;
import org.railyard.testkit.Await;

/**
 * Point-to-point calls of {@code mpi.Comm}, {@code mpi.Request}, {@code mpi.Prequest} and
 * {@code mpi.Status}, and the environment calls of {@code mpi.MPI}, on any number of ranks >= 2.
 * Prints "done" at the end.
 */
public class PointToPointRank extends Ring {
    /** How long a polled request may take to complete once its message was sent. */
    private static final Duration BOUND = Duration.ofSeconds(60);

    public static void main(String[] args) throws Exception {
        String[] rest = start(args);
        Check.equal(rest.length, args.length, "Init returns the program's arguments");

        environment();
        everyBasicType();
        sendModes();
        zeroCountsAndProcNull();
        wildcardsAndProbe();
        manyRequests();
        cancelPendingReceive();
        persistent();
        buffered();
        errors();
        finish();
    }

    private static void environment() {
        Check.that(MPI.Initialized(), "Initialized after Init");
        Check.that(MPI.isMainThread(), "the thread that called Init is the main thread");
        Check.equal(MPI.queryThread(), MPI.THREAD_MULTIPLE, "thread level");
        Check.that(!MPI.Get_processor_name().isEmpty(), "processor name");
        double t0 = MPI.Wtime();
        Check.that(MPI.Wtick() > 0 && MPI.Wtick() < 1e-3, "Wtick is a fine resolution");
        Check.that(MPI.Wtime() >= t0, "Wtime does not go back");
        Check.equal(MPI.COMM_SELF.Size(), 1, "COMM_SELF size");
        Check.equal(MPI.COMM_SELF.Rank(), 0, "COMM_SELF rank");
        Check.equal(world.Group().Size(), np, "world group size");
        Check.equal(world.Group().Rank(), me, "world group rank");
        Check.equal(Comm.Compare(world, world), MPI.IDENT, "a communicator is identical to itself");
        Intracomm dup = (Intracomm) world.clone();
        Check.equal(Comm.Compare(world, dup), MPI.CONGRUENT, "a duplicate is congruent");
        Check.equal(Comm.Compare(world, MPI.COMM_SELF), np == 1 ? MPI.CONGRUENT : MPI.UNEQUAL, "world and self");
        Check.equal(world.Topo_test(), MPI.UNDEFINED, "no topology");
        Check.that(!world.Test_inter(), "world is an intracommunicator");
        Check.equal(world.Attr_get(MPI.TAG_UB), MPI.TAG_UB, "TAG_UB attribute");
        Check.equal(world.Attr_get(MPI.HOST), MPI.PROC_NULL, "HOST attribute");
        Check.fails(() -> world.Attr_get(12345), "no attribute", "unknown attribute key");
        Check.fails(() -> world.Attr_delete(MPI.TAG_UB), "cannot be deleted", "predefined attributes stay");
        Check.equal(MPI.Errorhandler_get(), MPI.ERRORS_RETURN, "errors are returned by default");
        // A duplicate is a separate matching context: a message on dup is not received on world.
        int[] v = {me};
        int[] got = {-1};
        Request r = world.Irecv(got, 0, 1, MPI.INT, left, 5);
        dup.Send(v, 0, 1, MPI.INT, right, 5);
        world.Send(new int[] {100 + me}, 0, 1, MPI.INT, right, 5);
        r.Wait();
        Check.equal(got[0], 100 + left, "world receive gets the world message, not the dup one");
        dup.Recv(got, 0, 1, MPI.INT, left, 5);
        Check.equal(got[0], left, "dup receive gets the dup message");
        dup.Free();
        Check.fails(() -> dup.Send(v, 0, 1, MPI.INT, right, 5), "freed", "a freed communicator cannot be used");
        Check.fails(() -> world.Free(), "cannot be freed", "COMM_WORLD cannot be freed");
    }

    /** Every basic type around the ring, at an offset, with Sendrecv. */
    private static void everyBasicType() {
        byte[] b = {0, 0, (byte) me, (byte) (me + 1)};
        byte[] rb = new byte[5];
        world.Sendrecv(b, 2, 2, MPI.BYTE, right, 1, rb, 1, 2, MPI.BYTE, left, 1);
        Check.equal(rb[1] + "," + rb[2], left + "," + (left + 1), "bytes");
        char[] c = {'x', (char) ('a' + me)};
        char[] rc = new char[1];
        world.Sendrecv(c, 1, 1, MPI.CHAR, right, 2, rc, 0, 1, MPI.CHAR, left, 2);
        Check.equal(rc[0], (char) ('a' + left), "chars");
        short[] s = {(short) -me};
        short[] rs = new short[1];
        world.Sendrecv(s, 0, 1, MPI.SHORT, right, 3, rs, 0, 1, MPI.SHORT, left, 3);
        Check.equal(rs[0], (short) -left, "shorts");
        boolean[] z = {me % 2 == 0, true, false};
        boolean[] rz = new boolean[3];
        world.Sendrecv(z, 0, 3, MPI.BOOLEAN, right, 4, rz, 0, 3, MPI.BOOLEAN, left, 4);
        Check.equal(rz, new boolean[] {left % 2 == 0, true, false}, "booleans");
        long[] l = {Long.MIN_VALUE + me, Long.MAX_VALUE};
        long[] rl = new long[2];
        world.Sendrecv(l, 0, 2, MPI.LONG, right, 5, rl, 0, 2, MPI.LONG, left, 5);
        Check.equal(rl, new long[] {Long.MIN_VALUE + left, Long.MAX_VALUE}, "longs");
        float[] f = {me + 0.5f};
        float[] rf = new float[1];
        world.Sendrecv(f, 0, 1, MPI.FLOAT, right, 6, rf, 0, 1, MPI.FLOAT, left, 6);
        Check.equal(rf[0], left + 0.5f, "floats");
        double[] d = new double[100_000]; // large enough for Railyard's rendezvous protocol
        for (int i = 0; i < d.length; i++) {
            d[i] = me * 1e6 + i;
        }
        double[] rd = new double[d.length + 10];
        Status st = world.Sendrecv(d, 0, d.length, MPI.DOUBLE, right, 7, rd, 10, d.length, MPI.DOUBLE, left, 7);
        Check.equal(rd[10 + 99_999], left * 1e6 + 99_999, "large doubles");
        Check.equal(st.source, left, "Sendrecv status source");
        Check.equal(st.tag, 7, "Sendrecv status tag");
        Check.equal(st.Get_count(MPI.DOUBLE), d.length, "Sendrecv count");
        Check.equal(st.Get_elements(MPI.BYTE), d.length * 8, "Get_elements counts bytes for MPI.BYTE");
        // Sendrecv_replace: the buffer goes right and what came from the left replaces it.
        int[] x = {me, me * 10, me * 100};
        world.Sendrecv_replace(x, 0, 3, MPI.INT, right, 8, left, 8);
        Check.equal(x, new int[] {left, left * 10, left * 100}, "Sendrecv_replace");
    }

    private static void sendModes() {
        int[] in = new int[4];
        int[] out = {me, 1, 2, 3};
        // Standard (eager), synchronous (rendezvous in any case), ready, buffered: even ranks send first.
        String[] modes = {"Send", "Ssend", "Rsend", "Bsend"};
        for (String mode : modes) {
            Request pre = world.Irecv(in, 0, 4, MPI.INT, left, 20);
            world.Barrier(); // every receive is posted: Rsend is legal
            switch (mode) {
                case "Send" -> world.Send(out, 0, 4, MPI.INT, right, 20);
                case "Ssend" -> world.Ssend(out, 0, 4, MPI.INT, right, 20);
                case "Rsend" -> world.Rsend(out, 0, 4, MPI.INT, right, 20);
                default -> world.Bsend(out, 0, 4, MPI.INT, right, 20);
            }
            Status s = pre.Wait();
            Check.equal(in, new int[] {left, 1, 2, 3}, mode);
            Check.equal(s.source, left, mode + " source");
            Check.that(pre.Is_null(), "a waited request is null");
        }
        // The non-blocking forms.
        Request[] sends = {
            world.Isend(out, 0, 1, MPI.INT, right, 21),
            world.Issend(out, 1, 1, MPI.INT, right, 22),
            world.Ibsend(out, 2, 1, MPI.INT, right, 23),
        };
        int[] a = new int[3];
        world.Recv(a, 2, 1, MPI.INT, left, 23);
        world.Recv(a, 1, 1, MPI.INT, left, 22);
        world.Recv(a, 0, 1, MPI.INT, left, 21);
        Request.Waitall(sends);
        Check.equal(a, new int[] {left, 1, 2}, "Isend, Issend, Ibsend");
        Request ir = world.Irecv(a, 0, 1, MPI.INT, left, 24);
        world.Barrier();
        Request.Waitall(new Request[] {world.Irsend(out, 3, 1, MPI.INT, right, 24), ir});
        Check.equal(a[0], 3, "Irsend");
        // Issend is not complete before the receive is posted.
        if (np >= 2) {
            if (me == 0) {
                Request r = world.Issend(out, 0, 1, MPI.INT, 1, 25);
                Check.that(r.Test() == null, "Issend incomplete before the receive is posted");
                world.Send(out, 0, 0, MPI.INT, 1, 26);
                r.Wait();
            } else if (me == 1) {
                world.Recv(a, 0, 0, MPI.INT, 0, 26);
                world.Recv(a, 0, 1, MPI.INT, 0, 25);
            }
        }
    }

    private static void zeroCountsAndProcNull() {
        int[] none = new int[0];
        world.Send(none, 0, 0, MPI.INT, right, 30);
        Status s = world.Recv(none, 0, 0, MPI.INT, left, 30);
        Check.equal(s.Get_count(MPI.INT), 0, "zero count");
        Check.equal(s.source, left, "zero-count message source");
        // A zero-count receive matches a zero-count message but not a longer one (truncation).
        world.Send(new int[] {1}, 0, 1, MPI.INT, MPI.PROC_NULL, 31);
        Status p = world.Recv(new int[1], 0, 1, MPI.INT, MPI.PROC_NULL, 31);
        Check.equal(p.source, MPI.PROC_NULL, "receive from PROC_NULL: source");
        Check.equal(p.tag, MPI.ANY_TAG, "receive from PROC_NULL: tag");
        Check.equal(p.Get_count(MPI.INT), 0, "receive from PROC_NULL: count");
        Request r = world.Irecv(new int[1], 0, 1, MPI.INT, MPI.PROC_NULL, 31);
        Check.equal(r.Wait().source, MPI.PROC_NULL, "Irecv from PROC_NULL completes at once");
        Request.Waitall(new Request[] {world.Isend(new int[1], 0, 1, MPI.INT, MPI.PROC_NULL, 31)});
        // A non-periodic shift: the ends talk to PROC_NULL.
        int up = me + 1 < np ? me + 1 : MPI.PROC_NULL;
        int down = me > 0 ? me - 1 : MPI.PROC_NULL;
        int[] got = {-7};
        Status sh = world.Sendrecv(new int[] {me}, 0, 1, MPI.INT, up, 32, got, 0, 1, MPI.INT, down, 32);
        Check.equal(got[0], me > 0 ? me - 1 : -7, "shift with PROC_NULL ends");
        Check.equal(sh.source, down, "shift source");
        Check.equal(world.Iprobe(MPI.PROC_NULL, 0).source, MPI.PROC_NULL, "Iprobe of PROC_NULL");
    }

    private static void wildcardsAndProbe() {
        if (me != 0) {
            int[] v = new int[me];
            java.util.Arrays.fill(v, me);
            world.Send(v, 0, me, MPI.INT, 0, 40 + me);
        } else {
            boolean[] seen = new boolean[np];
            for (int i = 1; i < np; i++) {
                Status p = world.Probe(MPI.ANY_SOURCE, MPI.ANY_TAG);
                Check.equal(p.tag, 40 + p.source, "probed tag");
                Check.equal(p.Get_count(MPI.INT), p.source, "probed count");
                Check.equal(p.Get_count(MPI.LONG), p.source % 2 == 0 ? p.source / 2 : MPI.UNDEFINED, "count as longs");
                int[] buf = new int[np];
                Status s = world.Recv(buf, 0, np, MPI.INT, MPI.ANY_SOURCE, MPI.ANY_TAG);
                Check.equal(s.source, p.source, "the probed message is the one received");
                Check.that(!seen[s.source], "each source once");
                seen[s.source] = true;
                Check.equal(s.Get_count(MPI.INT), s.source, "received count");
                Check.equal(buf[0], s.source == 0 ? 0 : s.source, "received value");
            }
            Check.that(world.Iprobe(MPI.ANY_SOURCE, 49) == null, "Iprobe finds nothing");
        }
        world.Barrier();
    }

    private static void manyRequests() {
        // Waitany / Waitsome / Testany / Testall / Testsome over receives from the left, sends to the right.
        int n = 6;
        int[][] in = new int[n][1];
        Request[] rs = new Request[n + 1];
        for (int i = 0; i < n; i++) {
            rs[i] = world.Irecv(in[i], 0, 1, MPI.INT, left, 50 + i);
        }
        rs[n] = null; // null entries are skipped
        for (int i = n - 1; i >= 0; i--) {
            world.Send(new int[] {me * 100 + i}, 0, 1, MPI.INT, right, 50 + i);
        }
        boolean[] done = new boolean[n];
        Status first = Request.Waitany(rs);
        Check.that(first.index >= 0 && first.index < n, "Waitany index");
        done[first.index] = true;
        Check.equal(first.tag, 50 + first.index, "Waitany status belongs to the request at its index");
        Check.that(rs[first.index].Is_null(), "the completed request is null");
        int count = 1;
        while (count < n) {
            Status[] some = Request.Waitsome(rs);
            Check.that(some.length >= 1, "Waitsome completes at least one");
            for (Status s : some) {
                Check.that(!done[s.index], "each request completes once");
                done[s.index] = true;
                Check.equal(s.tag, 50 + s.index, "Waitsome status");
                count++;
            }
        }
        for (int i = 0; i < n; i++) {
            Check.equal(in[i][0], left * 100 + i, "value " + i);
        }
        Check.equal(Request.Waitany(rs).index, MPI.UNDEFINED, "Waitany over null requests");
        Check.equal(Request.Waitsome(rs).length, 0, "Waitsome over null requests");
        Check.equal(Request.Testany(rs).index, MPI.UNDEFINED, "Testany over null requests");
        // Testall: null until every one is done, then every status.
        Request r1 = world.Irecv(in[0], 0, 1, MPI.INT, left, 60);
        Request r2 = world.Irecv(in[1], 0, 1, MPI.INT, left, 61);
        Request[] two = {r1, r2};
        Check.that(Request.Testall(two) == null, "Testall before any send");
        Check.that(Request.Testany(two) == null, "Testany before any send");
        Check.equal(Request.Testsome(two).length, 0, "Testsome before any send");
        Check.that(r1.Test() == null, "Test before the send");
        world.Barrier(); // every rank checked before any sends
        world.Send(new int[] {1}, 0, 1, MPI.INT, right, 60);
        world.Send(new int[] {2}, 0, 1, MPI.INT, right, 61);
        Status[] all = Await.awaitValue(() -> Request.Testall(two), BOUND, "Testall of two received messages");
        Check.equal(all[0].tag + all[1].tag, 121, "Testall statuses");
        Check.that(r1.Is_null() && r2.Is_null(), "Testall leaves null requests");
        Check.that(MPI.REQUEST_NULL.Is_null(), "REQUEST_NULL is null");
        Check.equal(MPI.REQUEST_NULL.Wait().source, MPI.ANY_SOURCE, "waiting on the null request gives an empty status");
        Request r3 = world.Irecv(in[2], 0, 1, MPI.INT, left, 62);
        world.Send(new int[] {3}, 0, 1, MPI.INT, right, 62);
        Status t = Await.awaitValue(() -> Request.Testany(new Request[] {null, r3}), BOUND, "Testany of a received message");
        Check.equal(t.index, 1, "Testany index");
        Request r4 = world.Irecv(in[3], 0, 1, MPI.INT, left, 63);
        world.Send(new int[] {4}, 0, 1, MPI.INT, right, 63);
        Status[] some = Await.awaitValue(() -> {
            Status[] s = Request.Testsome(new Request[] {r4});
            return s.length == 0 ? null : s;
        }, BOUND, "Testsome of a received message");
        Check.equal(some[0].index, 0, "Testsome index");
        Check.equal(in[3][0], 4, "Testsome value");
    }

    private static void cancelPendingReceive() {
        int[] buf = {-1};
        Request r = world.Irecv(buf, 0, 1, MPI.INT, MPI.ANY_SOURCE, 70); // nobody sends tag 70
        r.Cancel();
        Status s = r.Wait();
        Check.that(s.Test_cancelled(), "a pending receive is cancelled");
        Check.equal(s.Get_count(MPI.INT), 0, "a cancelled receive got nothing");
        Check.that(r.Is_null(), "a cancelled request is null after its wait");
        // A receive that already matched is not cancelled.
        Request m = world.Irecv(buf, 0, 1, MPI.INT, left, 71);
        world.Send(new int[] {9}, 0, 1, MPI.INT, right, 71);
        world.Barrier();
        Await.awaitValue(m::Test, BOUND, "Test of a matched receive");
        m.Cancel(); // null request now: nothing to cancel
        Check.equal(buf[0], 9, "the matched receive kept its data");
        // After a cancel, a later message with that tag goes to the next receive.
        Request c = world.Irecv(buf, 0, 1, MPI.INT, left, 72);
        c.Cancel();
        Check.that(c.Wait().Test_cancelled(), "cancelled before the send");
        world.Barrier(); // every rank cancelled before any sends
        world.Send(new int[] {11}, 0, 1, MPI.INT, right, 72);
        world.Recv(buf, 0, 1, MPI.INT, left, 72);
        Check.equal(buf[0], 11, "the cancelled receive did not take the message");
    }

    private static void persistent() {
        int[] out = new int[2];
        int[] in = new int[2];
        Prequest send = world.Send_init(out, 0, 2, MPI.INT, right, 80);
        Prequest recv = world.Recv_init(in, 0, 2, MPI.INT, left, 80);
        Check.that(!send.Is_null(), "a persistent request is not null");
        Check.equal(send.Wait().source, MPI.ANY_SOURCE, "waiting on an inactive persistent request");
        for (int round = 0; round < 3; round++) {
            out[0] = me;
            out[1] = round; // the buffer is read at each start
            Prequest.Startall(new Prequest[] {recv, send});
            Status[] st = Request.Waitall(new Request[] {send, recv});
            Check.equal(in, new int[] {left, round}, "persistent round " + round);
            Check.equal(st[1].source, left, "persistent receive status");
            Check.that(!recv.Is_null(), "inactive again, not null");
        }
        recv.Start();
        Check.fails(recv::Start, "still active", "a persistent request cannot start twice");
        Prequest ss = world.Ssend_init(out, 0, 2, MPI.INT, right, 80);
        ss.Start();
        recv.Wait();
        ss.Wait();
        Prequest bs = world.Bsend_init(out, 0, 1, MPI.INT, right, 81);
        Prequest rs = world.Rsend_init(out, 1, 1, MPI.INT, right, 82);
        Prequest r1 = world.Recv_init(in, 0, 1, MPI.INT, left, 81);
        Prequest r2 = world.Recv_init(in, 1, 1, MPI.INT, left, 82);
        Prequest.Startall(new Prequest[] {r1, r2});
        world.Barrier();
        Prequest.Startall(new Prequest[] {bs, rs});
        Request.Waitall(new Request[] {bs, rs, r1, r2});
        Check.equal(in, new int[] {left, 2}, "Bsend_init and Rsend_init");
    }

    private static void buffered() {
        // Without an attached buffer, buffered sends still work (as on MPJ Express).
        double[] big = new double[50_000];
        world.Bsend(big, 0, big.length, MPI.DOUBLE, right, 90);
        world.Recv(big, 0, big.length, MPI.DOUBLE, left, 90);
        // With one, the bytes in flight are bounded by it.
        MPI.Buffer_attach(ByteBuffer.allocate(1000));
        Check.fails(() -> MPI.Buffer_attach(ByteBuffer.allocate(10)), "already attached", "one buffer at a time");
        int[] data = {me, me, me};
        world.Bsend(data, 0, 3, MPI.INT, right, 91); // 12 bytes
        data[0] = -1; // a buffered send copied the data
        Check.fails(() -> world.Bsend(new int[300], 0, 300, MPI.INT, right, 92), "do not fit the attached buffer",
                "a buffered send larger than the buffer");
        int[] got = new int[3];
        world.Recv(got, 0, 3, MPI.INT, left, 91);
        Check.equal(got, new int[] {left, left, left}, "buffered send delivers the copy");
        MPI.Buffer_detach();
        MPI.Buffer_attach(ByteBuffer.allocateDirect(64));
        MPI.Buffer_detach();
    }

    private static void errors() {
        int[] v = new int[4];
        Check.fails(() -> world.Send(v, 0, 1, MPI.INT, np, 0), "RANK", "destination out of range");
        Check.fails(() -> world.Send(v, 0, 1, MPI.INT, right, -5), "TAG", "negative tag");
        Check.fails(() -> world.Send(v, 0, 1, MPI.DOUBLE, right, 0), "does not hold datatype", "buffer of another type");
        Check.fails(() -> world.Send(v, 2, 3, MPI.INT, right, 0), "outside the buffer", "count past the end");
        Check.fails(() -> world.Send(v, 0, 1, MPI.LB, right, 0), "cannot describe message data", "a marker is not data");
        // A message longer than the receive buffer: TRUNCATE at the receiver.
        world.Send(v, 0, 4, MPI.INT, right, 99);
        try {
            world.Recv(v, 0, 2, MPI.INT, left, 99);
            Check.that(false, "truncated receive must fail");
        } catch (MPIException e) {
            Check.that(e.getMessage().startsWith("TRUNCATE"), "truncation error: " + e.getMessage());
        }
    }
}
