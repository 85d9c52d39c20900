package org.railyard.mpijava.ranks;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import mpi.Datatype;
import mpi.MPI;
import mpi.MPIException;
import mpi.Prequest;
import mpi.Request;
import mpi.Status;

/**
 * {@code MPI.OBJECT}: serializable objects in every point-to-point form, messages small (one
 * message) and large (a head and a tail), probes that size the receive, a receive that must
 * complete while the receiver sits in another call, non-serializable objects, truncation,
 * broadcasts. Any number of ranks >= 2; prints "done".
 */
public class ObjectRank extends Ring {
    /** A program's own class, serialized by value. */
    record Particle(int id, double[] position, String label) implements Serializable {
        @Override
        public boolean equals(Object o) {
            return o instanceof Particle p && p.id == id && Arrays.equals(p.position, position) && p.label.equals(label);
        }

        @Override
        public int hashCode() {
            return id;
        }
    }

    /** Not serializable. */
    static final class Handle {
        final int x = 1;
    }

    public static void main(String[] args) throws Exception {
        start(args);
        small();
        large();
        probeThenReceive();
        tailWhileBlockedElsewhere();
        manyAtOnce();
        notSerializable();
        truncationAndEdges();
        derivedOverObjects();
        broadcast();
        finish();
    }

    private static Particle particle(int id, int n) {
        double[] p = new double[n];
        for (int i = 0; i < n; i++) {
            p[i] = id + i * 0.25;
        }
        return new Particle(id, p, "p" + id);
    }

    private static void small() {
        List<Integer> shared = new ArrayList<>(List.of(1, 2, 3));
        Object[] out = {"hello from " + me, particle(me, 3), shared, shared, null, 42L};
        Object[] in = new Object[6];
        world.Send(out, 0, 6, MPI.OBJECT, right, 1);
        Status s = world.Recv(in, 0, 6, MPI.OBJECT, left, 1);
        Check.equal(in[0], "hello from " + left, "a string");
        Check.equal(in[1], particle(left, 3), "a record of the program");
        Check.equal(in[2], List.of(1, 2, 3), "a list");
        Check.that(in[2] == in[3], "an object shared by two elements stays shared");
        Check.that(in[4] == null, "null elements");
        Check.equal(in[5], 42L, "a boxed long");
        Check.equal(s.Get_count(MPI.OBJECT), 6, "object count");
        Check.equal(s.source, left, "source");
        // At an offset, in each send mode.
        Object[] buf = new Object[4];
        // Synchronous sends around a ring would deadlock: even ranks send first.
        if (me % 2 == 0) {
            world.Ssend(new Object[] {"x", "s" + me}, 1, 1, MPI.OBJECT, right, 2);
            world.Recv(buf, 2, 1, MPI.OBJECT, left, 2);
        } else {
            world.Recv(buf, 2, 1, MPI.OBJECT, left, 2);
            world.Ssend(new Object[] {"x", "s" + me}, 1, 1, MPI.OBJECT, right, 2);
        }
        Check.equal(buf[2], "s" + left, "Ssend of an object at an offset");
        world.Bsend(new Object[] {"b" + me}, 0, 1, MPI.OBJECT, right, 3);
        world.Recv(buf, 0, 1, MPI.OBJECT, left, 3);
        Check.equal(buf[0], "b" + left, "Bsend of an object");
        Request r = world.Irecv(buf, 0, 2, MPI.OBJECT, left, 4);
        world.Barrier();
        world.Rsend(new Object[] {"r" + me, me}, 0, 2, MPI.OBJECT, right, 4);
        Check.equal(r.Wait().Get_count(MPI.OBJECT), 2, "Rsend count");
        Check.equal(buf[1], left, "Rsend of objects");
        Prequest ps = world.Send_init(new Object[] {"persistent " + me}, 0, 1, MPI.OBJECT, right, 5);
        Prequest pr = world.Recv_init(buf, 3, 1, MPI.OBJECT, left, 5);
        for (int i = 0; i < 2; i++) {
            Prequest.Startall(new Prequest[] {pr, ps});
            Request.Waitall(new Request[] {pr, ps});
            Check.equal(buf[3], "persistent " + left, "persistent object round " + i);
        }
    }

    private static void large() {
        // 400 kB of doubles: far past the inline room of a head, so the payload travels as a tail.
        Object[] out = {particle(me, 50_000), "after"};
        Object[] in = new Object[2];
        world.Sendrecv(out, 0, 2, MPI.OBJECT, right, 10, in, 0, 2, MPI.OBJECT, left, 10);
        Check.equal(in[0], particle(left, 50_000), "a large object");
        Check.equal(in[1], "after", "the object after it");
        Request a = world.Irecv(in, 0, 1, MPI.OBJECT, left, 11);
        Request b = world.Isend(out, 0, 1, MPI.OBJECT, right, 11);
        Request c = world.Issend(new Object[] {particle(-me, 40_000)}, 0, 1, MPI.OBJECT, right, 12);
        Object[] in2 = new Object[1];
        world.Recv(in2, 0, 1, MPI.OBJECT, left, 12);
        Request.Waitall(new Request[] {a, b, c});
        Check.equal(in[0], particle(left, 50_000), "Isend/Irecv of a large object");
        Check.equal(in2[0], particle(-left, 40_000), "Issend of a large object");
        // Many objects: one byte of inline room each past the first eight.
        Object[] many = new Object[5000];
        for (int i = 0; i < many.length; i++) {
            many[i] = "item " + i + " of " + me;
        }
        Object[] got = new Object[many.length];
        world.Sendrecv(many, 0, many.length, MPI.OBJECT, right, 13, got, 0, many.length, MPI.OBJECT, left, 13);
        Check.equal(got[4999], "item 4999 of " + left, "many objects");
        world.Sendrecv_replace(many, 0, many.length, MPI.OBJECT, right, 14, left, 14);
        Check.equal(many[7], "item 7 of " + left, "Sendrecv_replace of objects");
    }

    private static void probeThenReceive() {
        // The count of a probed object message is known before receiving it.
        if (me != 0) {
            Object[] out = new Object[me + 1];
            Arrays.fill(out, "from " + me);
            world.Send(out, 0, out.length, MPI.OBJECT, 0, 20);
            world.Send(new Object[] {particle(me, 30_000), "tail"}, 0, 2, MPI.OBJECT, 0, 21);
        } else {
            for (int i = 1; i < np; i++) {
                Status p = world.Probe(MPI.ANY_SOURCE, 20);
                int n = p.Get_count(MPI.OBJECT);
                Check.equal(n, p.source + 1, "probed object count");
                Object[] in = new Object[n];
                Status s = world.Recv(in, 0, n, MPI.OBJECT, p.source, 20);
                Check.equal(in[n - 1], "from " + s.source, "probed then received");
                Status q = world.Probe(s.source, 21);
                Check.equal(q.Get_count(MPI.OBJECT), 2, "probed count of a large object message");
                Object[] big = new Object[2];
                world.Recv(big, 0, 2, MPI.OBJECT, s.source, 21);
                Check.equal(big[0], particle(s.source, 30_000), "large message after a probe");
            }
        }
        world.Barrier();
    }

    /**
     * A posted receive must complete even if its owner is blocked in another call: rank 0 posts
     * the receive of a large object, then blocks receiving an int that rank 1 sends only after
     * its large blocking send returns.
     */
    private static void tailWhileBlockedElsewhere() {
        if (me == 0) {
            Object[] in = new Object[1];
            Request r = world.Irecv(in, 0, 1, MPI.OBJECT, 1, 30);
            int[] x = new int[1];
            world.Recv(x, 0, 1, MPI.INT, 1, 31);
            r.Wait();
            Check.equal(in[0], particle(7, 60_000), "tail received while blocked in another receive");
        } else if (me == 1) {
            world.Send(new Object[] {particle(7, 60_000)}, 0, 1, MPI.OBJECT, 0, 30);
            world.Send(new int[] {1}, 0, 1, MPI.INT, 0, 31);
        }
        world.Barrier();
    }

    private static void manyAtOnce() {
        int n = 4;
        Object[][] in = new Object[n][1];
        Request[] rs = new Request[n];
        for (int i = 0; i < n; i++) {
            rs[i] = world.Irecv(in[i], 0, 1, MPI.OBJECT, left, 40 + i);
        }
        Request[] ss = new Request[n];
        for (int i = n - 1; i >= 0; i--) {
            ss[i] = world.Isend(new Object[] {i % 2 == 0 ? "small " + i : particle(i, 20_000)}, 0, 1, MPI.OBJECT, right, 40 + i);
        }
        boolean[] seen = new boolean[n];
        for (int k = 0; k < n; k++) {
            Status s = Request.Waitany(rs);
            Check.that(!seen[s.index], "Waitany returns each once");
            seen[s.index] = true;
            Check.equal(s.tag, 40 + s.index, "Waitany status of an object receive");
        }
        Request.Waitall(ss);
        Check.equal(in[3][0], particle(3, 20_000), "large object through Waitany");
        Check.equal(in[2][0], "small 2", "small object through Waitany");
        // Cancel a pending object receive.
        Request c = world.Irecv(new Object[1], 0, 1, MPI.OBJECT, MPI.ANY_SOURCE, 49);
        c.Cancel();
        Check.that(c.Wait().Test_cancelled(), "object receive cancelled");
    }

    private static void notSerializable() {
        Object[] bad = {"fine", new Handle()};
        try {
            world.Send(bad, 0, 2, MPI.OBJECT, right, 50);
            Check.that(false, "sending a non-serializable object must fail");
        } catch (MPIException e) {
            Check.that(e.getMessage().contains("element 1") && e.getMessage().contains(Handle.class.getName())
                    && e.getMessage().contains("nothing was sent"), "the error names the element and class: " + e.getMessage());
        }
        Check.fails(() -> world.Isend(new Object[] {List.of(new Handle())}, 0, 1, MPI.OBJECT, right, 50),
                "Serializable", "a non-serializable object inside a serializable one");
        // Nothing was sent: the next message with that tag is the good one.
        world.Send(new Object[] {"good"}, 0, 1, MPI.OBJECT, right, 50);
        Object[] in = new Object[1];
        world.Recv(in, 0, 1, MPI.OBJECT, left, 50);
        Check.equal(in[0], "good", "the failed sends left nothing behind");
    }

    private static void truncationAndEdges() {
        world.Send(new Object[] {1, 2, 3}, 0, 3, MPI.OBJECT, right, 60);
        Check.fails(() -> world.Recv(new Object[2], 0, 2, MPI.OBJECT, left, 60), "TRUNCATE", "three objects into two");
        world.Send(new Object[0], 0, 0, MPI.OBJECT, right, 61);
        Status z = world.Recv(new Object[0], 0, 0, MPI.OBJECT, left, 61);
        Check.equal(z.Get_count(MPI.OBJECT), 0, "zero objects");
        world.Send(new Object[] {"x"}, 0, 1, MPI.OBJECT, MPI.PROC_NULL, 62);
        Object[] keep = {"kept"};
        Status p = world.Recv(keep, 0, 1, MPI.OBJECT, MPI.PROC_NULL, 62);
        Check.equal(p.Get_count(MPI.OBJECT), 0, "objects from PROC_NULL");
        Check.equal(keep[0], "kept", "nothing written from PROC_NULL");
        Check.equal(world.Irecv(keep, 0, 1, MPI.OBJECT, MPI.PROC_NULL, 62).Wait().source, MPI.PROC_NULL,
                "Irecv of objects from PROC_NULL");
        // Fewer objects than the receive has room for.
        world.Send(new Object[] {"one"}, 0, 1, MPI.OBJECT, right, 63);
        Object[] room = new Object[10];
        Check.equal(world.Recv(room, 0, 10, MPI.OBJECT, left, 63).Get_count(MPI.OBJECT), 1, "one object into ten");
        Check.fails(() -> world.Send(new int[1], 0, 1, MPI.OBJECT, right, 64), "does not hold datatype",
                "an int array is not an object buffer");
        // String[] is an Object[]; an object of another class does not fit it.
        world.Send(new Object[] {42}, 0, 1, MPI.OBJECT, right, 65);
        Check.fails(() -> world.Recv(new String[1], 0, 1, MPI.OBJECT, left, 65), "does not fit", "Integer into String[]");
    }

    private static void derivedOverObjects() {
        Datatype every3rd = Datatype.Vector(3, 1, 3, MPI.OBJECT);
        Object[] out = new Object[9];
        for (int i = 0; i < 9; i++) {
            out[i] = me + ":" + i;
        }
        Object[] in = new Object[9];
        world.Sendrecv(out, 0, 1, every3rd, right, 70, in, 0, 1, every3rd, left, 70);
        Check.equal(in, new Object[] {left + ":0", null, null, left + ":3", null, null, left + ":6", null, null},
                "a vector of objects");
        Object[] ir = new Object[9];
        Request r = world.Irecv(ir, 1, 1, every3rd, left, 71);
        world.Send(out, 0, 3, MPI.OBJECT, right, 71);
        Check.equal(r.Wait().Get_count(every3rd), 1, "count of a vector of objects");
        Check.equal(ir[4], left + ":1", "Irecv into a vector of objects");
    }

    private static void broadcast() {
        for (int root = 0; root < np; root++) {
            Object[] b = new Object[3];
            if (me == root) {
                b = new Object[] {"root " + root, particle(root, root == 0 ? 50_000 : 2), List.of(root)};
            }
            world.Bcast(b, 0, 3, MPI.OBJECT, root);
            Check.equal(b[0], "root " + root, "Bcast of objects from " + root);
            Check.equal(b[1], particle(root, root == 0 ? 50_000 : 2), "Bcast of a large object from " + root);
        }
    }
}
