package org.railyard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.engine.EngineJob;
import org.railyard.testkit.Blocks;
import org.railyard.types.CartTopology;
import org.railyard.types.Topology;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * Neighbourhood collectives with a count per neighbour (allgatherv, alltoallv, alltoallw),
 * blocking and not, on Cartesian grids (non-periodic edges that leave holes, periodic dimensions
 * of size 1 and 2 where both links go to one process) and on graphs (double links, a process
 * without neighbours). Every receive buffer starts full of a sentinel and is compared whole with
 * one built from the topology's neighbour lists: blocks from neighbours, holes and the gaps
 * between blocks left as they were. Counts differ per sender and per link, zero included, so a
 * block from the wrong link has the wrong length or values.
 */
final class NeighbourVTest {
    private static final long SENTINEL = -1;
    private static final byte SENTINEL_BYTE = 0x5A;
    /** Bytes per block slot in the alltoallw byte buffers: room for 3 elements of 8 bytes. */
    private static final int SLOT = 32;
    private static final Datatype[] TYPES = {Datatype.INT, Datatype.DOUBLE, Datatype.SHORT};

    /** The count that process s sends on its link i (alltoallv, alltoallw): 0 to 3. */
    static int count(int s, int i) {
        return (s * 5 + i * 3 + 1) % 4;
    }

    /** The count that process s sends to every neighbour in allgatherv: 0 to 2. */
    static int gatherCount(int s) {
        return (s * 2 + 1) % 3;
    }

    /** Element e of the block process s sends on its link i. */
    static int value(int s, int i, int e) {
        return s * 1000 + i * 10 + e + 1;
    }

    /** The alltoallw type of the block process s sends on its link i. */
    static Datatype type(int s, int i) {
        return TYPES[(s + i) % TYPES.length];
    }

    /**
     * Which of neighbour j's links (its block index) points back at rank r, worked out from the
     * topology: on a grid, the process one step back along a dimension sends its "+1" block and
     * the one ahead its "-1" block; on a graph, the k-th link of r naming s pairs with the k-th link
     * of s naming r.
     */
    static int sourceBlock(Topology topo, int r, int j) {
        int[] nb = topo.neighbours(r);
        int s = nb[j];
        if (topo instanceof CartTopology cart) {
            int d = j / 2;
            int i = j % 2 == 0 ? 2 * d + 1 : 2 * d;
            int[] sd = cart.shift(s, d, 1);
            assertThat(sd[i % 2]).as("grid link %d of %d points back at %d", i, s, r).isEqualTo(r);
            return i;
        }
        int k = 0;
        for (int i = 0; i < j; i++) {
            if (nb[i] == s) {
                k++;
            }
        }
        int[] snb = topo.neighbours(s);
        for (int i = 0; i < snb.length; i++) {
            if (snb[i] == r && k-- == 0) {
                return i;
            }
        }
        throw new AssertionError("graph link " + j + " of " + r + " to " + s + " has no link back");
    }

    /** Displacements for blocks laid out last block first, one spare element before each: {@code displs, total}. */
    static int[][] layout(int[] counts) {
        Blocks blocks = Blocks.backwards(counts, 1, 1);
        return new int[][] {blocks.displs(), {blocks.length()}};
    }

    static long[] filled(int n) {
        long[] a = new long[n];
        Arrays.fill(a, SENTINEL);
        return a;
    }

    /** The topologies every rank count is tried on: each uses all n processes. */
    static List<Comm> topologies(Comm w) {
        int n = w.size();
        List<Comm> out = new ArrayList<>();
        // a non-periodic line: both ends have a hole (for n = 1, two)
        out.add(w.createCart(new int[] {n}, new boolean[] {false}, false));
        // a balanced grid, non-periodic rows and periodic columns
        out.add(w.createCart(Comm.dimsCreate(n, new int[2]), new boolean[] {false, true}, false));
        // holes along dimension 0, two links to one process along a periodic dimension of 2 (or of 1)
        // and two links to itself along a periodic dimension of 1
        int[] dims = n % 2 == 0 ? new int[] {n / 2, 2, 1} : new int[] {n, 1, 1};
        out.add(w.createCart(dims, new boolean[] {false, true, true}, false));
        out.add(w.createGraph(graphIndex(n), graphEdges(n), false));
        return out;
    }

    /** Graph nodes: a ring over the first m processes (m = n - 1 from 4 up, leaving the last isolated) with chords i - i + 2 for even i. */
    static List<List<Integer>> graph(int n) {
        int m = n >= 4 ? n - 1 : n;
        List<List<Integer>> adj = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            adj.add(new ArrayList<>());
        }
        for (int i = 0; i < m; i++) {
            adj.get(i).add((i + 1) % m);
            adj.get(i).add((i + m - 1) % m);
        }
        for (int i = 0; i + 2 < m; i += 2) {
            adj.get(i).add(i + 2);
            adj.get(i + 2).add(i);
        }
        return adj;
    }

    static int[] graphIndex(int n) {
        List<List<Integer>> adj = graph(n);
        int[] index = new int[n];
        int at = 0;
        for (int i = 0; i < n; i++) {
            at += adj.get(i).size();
            index[i] = at;
        }
        return index;
    }

    static int[] graphEdges(int n) {
        return graph(n).stream().flatMap(List::stream).mapToInt(Integer::intValue).toArray();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 6})
    void varyingCountsOnGridsAndGraphs(int n) throws Exception {
        EngineJob.run(n, "shm", e -> {
            Comm w = new Comm(e, e.world());
            for (Comm t : topologies(w)) {
                assertThat(t).isNotNull();
                for (boolean blocking : new boolean[] {true, false}) {
                    for (boolean typed : new boolean[] {false, true}) {
                        exchange(t, blocking, typed);
                    }
                }
            }
            assertThat(e.describeChoices()).contains("neighbour_allgatherv").contains("neighbour_alltoallv")
                    .contains("neighbour_alltoallw");
        });
    }

    /** All three collectives on {@code t}, each result compared with one computed from the topology. */
    private static void exchange(Comm t, boolean blocking, boolean typed) {
        Topology topo = t.topology();
        int me = t.rank();
        int[] nb = t.neighbours();
        int k = nb.length;
        String label = (topo instanceof CartTopology c ? "grid " + Arrays.toString(c.dims()) : "graph") + " rank " + me
                + (blocking ? " blocking" : " non-blocking") + (typed ? " typed" : "");

        // allgatherv: my gatherCount(me) elements to everyone; block j from neighbour j
        long[] gsend = new long[gatherCount(me) + 2];
        for (int e = 0; e < gatherCount(me); e++) {
            gsend[2 + e] = value(me, 0, e);
        }
        int[] gcounts = new int[k];
        for (int j = 0; j < k; j++) {
            gcounts[j] = nb[j] == Comm.PROC_NULL ? 2 : gatherCount(nb[j]);
        }
        int[][] gl = layout(gcounts);
        long[] grecv = filled(gl[1][0] + 1);
        long[] gexpect = filled(grecv.length);
        for (int j = 0; j < k; j++) {
            if (nb[j] != Comm.PROC_NULL) {
                for (int e = 0; e < gcounts[j]; e++) {
                    gexpect[1 + gl[0][j] + e] = value(nb[j], 0, e);
                }
            }
        }

        // alltoallv: block i (count(me, i) elements) to neighbour i; block j from neighbour j's link back
        int[] scounts = new int[k];
        for (int i = 0; i < k; i++) {
            scounts[i] = count(me, i);
        }
        int[][] sl = layout(scounts);
        long[] vsend = filled(3 + sl[1][0]);
        for (int i = 0; i < k; i++) {
            for (int e = 0; e < scounts[i]; e++) {
                vsend[3 + sl[0][i] + e] = value(me, i, e);
            }
        }
        int[] rcounts = new int[k];
        int[] from = new int[k];
        for (int j = 0; j < k; j++) {
            from[j] = nb[j] == Comm.PROC_NULL ? -1 : sourceBlock(topo, me, j);
            rcounts[j] = nb[j] == Comm.PROC_NULL ? 3 : count(nb[j], from[j]);
        }
        int[][] rl = layout(rcounts);
        long[] vrecv = filled(2 + rl[1][0]);
        long[] vexpect = filled(vrecv.length);
        for (int j = 0; j < k; j++) {
            if (nb[j] != Comm.PROC_NULL) {
                for (int e = 0; e < rcounts[j]; e++) {
                    vexpect[2 + rl[0][j] + e] = value(nb[j], from[j], e);
                }
            }
        }

        // alltoallw: block i of type(me, i) in slot k - 1 - i of a byte buffer; displacements in elements of each type
        ByteBuffer wsend = bytes(8 + SLOT * k);
        int[] wsdispls = new int[k];
        Datatype[] stypes = new Datatype[k];
        for (int i = 0; i < k; i++) {
            stypes[i] = type(me, i);
            int at = 8 + SLOT * (k - 1 - i);
            wsdispls[i] = at / size(stypes[i]);
            for (int e = 0; e < scounts[i]; e++) {
                put(wsend, stypes[i], at + e * size(stypes[i]), value(me, i, e));
            }
        }
        ByteBuffer wrecv = bytes(16 + SLOT * k);
        ByteBuffer wexpect = bytes(wrecv.capacity());
        int[] wrdispls = new int[k];
        Datatype[] rtypes = new Datatype[k];
        for (int j = 0; j < k; j++) {
            rtypes[j] = nb[j] == Comm.PROC_NULL ? Datatype.DOUBLE : type(nb[j], from[j]);
            int at = 16 + SLOT * (k - 1 - j);
            wrdispls[j] = at / size(rtypes[j]);
            if (nb[j] != Comm.PROC_NULL) {
                for (int e = 0; e < rcounts[j]; e++) {
                    put(wexpect, rtypes[j], at + e * size(rtypes[j]), value(nb[j], from[j], e));
                }
            }
        }

        // a process without neighbours may pass null arrays
        int[] vsc = k == 0 ? null : scounts;
        int[] vsd = k == 0 ? null : sl[0];
        if (blocking) {
            if (typed) {
                t.neighbourAllgatherv(gsend, 2, gatherCount(me), Datatype.LONG, grecv, 1, gcounts, gl[0], Datatype.LONG);
                t.neighbourAlltoallv(vsend, 3, vsc, vsd, Datatype.LONG, vrecv, 2, rcounts, rl[0], Datatype.LONG);
            } else {
                t.neighbourAllgatherv(gsend, 2, gatherCount(me), grecv, 1, gcounts, gl[0]);
                t.neighbourAlltoallv(vsend, 3, vsc, vsd, vrecv, 2, rcounts, rl[0]);
            }
            t.neighbourAlltoallw(wsend, scounts, wsdispls, stypes, wrecv, rcounts, wrdispls, rtypes);
        } else {
            Request[] rs = new Request[3];
            if (typed) {
                rs[0] = t.ineighbourAllgatherv(gsend, 2, gatherCount(me), Datatype.LONG, grecv, 1, gcounts, gl[0],
                        Datatype.LONG);
                rs[1] = t.ineighbourAlltoallv(vsend, 3, vsc, vsd, Datatype.LONG, vrecv, 2, rcounts, rl[0], Datatype.LONG);
            } else {
                rs[0] = t.ineighbourAllgatherv(gsend, 2, gatherCount(me), grecv, 1, gcounts, gl[0]);
                rs[1] = t.ineighbourAlltoallv(vsend, 3, vsc, vsd, vrecv, 2, rcounts, rl[0]);
            }
            rs[2] = t.ineighbourAlltoallw(wsend, scounts, wsdispls, stypes, wrecv, rcounts, wrdispls, rtypes);
            // all three outstanding on one communicator at once
            Request.awaitAll(rs);
        }
        assertThat(grecv).as("allgatherv, %s", label).containsExactly(gexpect);
        assertThat(vrecv).as("alltoallv, %s", label).containsExactly(vexpect);
        assertThat(wrecv.array()).as("alltoallw, %s", label).containsExactly(wexpect.array());
    }

    static ByteBuffer bytes(int n) {
        ByteBuffer b = ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
        Arrays.fill(b.array(), SENTINEL_BYTE);
        return b;
    }

    static int size(Datatype t) {
        return t == Datatype.SHORT ? 2 : t == Datatype.INT ? 4 : 8;
    }

    static void put(ByteBuffer b, Datatype t, int at, int v) {
        if (t == Datatype.SHORT) {
            b.putShort(at, (short) v);
        } else if (t == Datatype.INT) {
            b.putInt(at, v);
        } else {
            b.putDouble(at, v + 0.25);
        }
    }

    @Test
    void sizeTwoPeriodicDimensionKeepsTheTwoLinksApart() throws Exception {
        // the two links of a periodic dimension of 2 go to one process; different counts on them
        // show each block arrives on its own link (a crossing would truncate or misplace them)
        EngineJob.run(2, "shm", e -> {
            Comm t = new Comm(e, e.world()).createCart(new int[] {2}, new boolean[] {true}, false);
            int me = t.rank();
            int other = 1 - me;
            assertThat(t.neighbours()).containsExactly(other, other);
            // link 0 (the "-1" side) carries 1 element, link 1 (the "+1" side) carries 3
            long[] send = {me * 10 + 1, me * 10 + 2, me * 10 + 3, me * 10 + 4};
            long[] recv = filled(6);
            t.neighbourAlltoallv(send, 0, new int[] {1, 3}, new int[] {0, 1}, recv, 0, new int[] {3, 1},
                    new int[] {0, 4});
            // my "-1" neighbour's "+1" block (3 elements) arrives in block 0, its "-1" block in block 1
            assertThat(recv).containsExactly(other * 10 + 2, other * 10 + 3, other * 10 + 4, SENTINEL, other * 10 + 1,
                    SENTINEL);
        });
    }

    @Test
    void argumentErrorsNameWhatIsWrong() throws Exception {
        EngineJob.run(4, "shm", e -> {
            Comm w = new Comm(e, e.world());
            // a 2 x 2 grid, rows not periodic: 4 neighbours each, two of them holes
            Comm t = w.createCart(new int[] {2, 2}, new boolean[] {false, true}, false);
            String who = "rank " + t.rank() + " of " + t.name() + " has 4 neighbours";
            long[] send = new long[8];
            long[] recv = new long[10];
            int[] four = {1, 1, 1, 1};
            int[] at = {0, 2, 4, 6};

            // no topology
            assertError(() -> w.neighbourAllgatherv(send, 0, 1, recv, 0, four, at), ErrorClass.COMM,
                    "neighbour_allgatherv needs a communicator with a topology; " + w.name() + " has none");
            assertError(() -> w.ineighbourAlltoallv(send, 0, four, at, recv, 0, four, at), ErrorClass.COMM,
                    "neighbour_alltoallv needs a communicator with a topology");
            assertError(() -> w.neighbourAlltoallw(send, four, at, longs(4), recv, four, at, longs(4)), ErrorClass.COMM,
                    "neighbour_alltoallw needs a communicator with a topology");

            // arrays shorter than the neighbour count, or missing
            assertError(() -> t.neighbourAlltoallv(send, 0, new int[3], at, recv, 0, four, at), ErrorClass.ARG,
                    "neighbour_alltoallv send counts have 3 entries but " + who);
            assertError(() -> t.ineighbourAlltoallv(send, 0, four, at, recv, 0, four, new int[] {0, 2}), ErrorClass.ARG,
                    "neighbour_alltoallv receive displacements have 2 entries but " + who);
            assertError(() -> t.neighbourAllgatherv(send, 0, 1, recv, 0, four, null), ErrorClass.ARG,
                    "neighbour_allgatherv receive displacements are null but " + who);
            assertError(() -> t.neighbourAlltoallw(send, four, at, longs(4), recv, four, at, longs(3)), ErrorClass.TYPE,
                    "neighbour_alltoallw receive types have 3 entries but " + who);
            Datatype[] oneNull = longs(4);
            oneNull[2] = null;
            assertError(() -> t.neighbourAlltoallw(send, four, at, longs(4), recv, four, at, oneNull), ErrorClass.TYPE,
                    "datatype is null");

            // negative counts
            assertError(() -> t.neighbourAlltoallv(send, 0, four, at, recv, 0, new int[] {1, -2, 1, 1}, at),
                    ErrorClass.COUNT, "neighbour_alltoallv receive: count -2 for neighbour 1 is negative");
            assertError(() -> t.ineighbourAllgatherv(send, 0, 1, recv, 0, new int[] {0, 0, 0, -1}, at),
                    ErrorClass.COUNT, "neighbour_allgatherv receive: count -1 for neighbour 3 is negative");
            assertError(() -> t.neighbourAllgatherv(send, 0, -1, recv, 0, four, at), ErrorClass.COUNT,
                    "neighbour_allgatherv send buffer: count -1 is negative");

            // blocks that run past the buffer, or start before it
            assertError(() -> t.neighbourAllgatherv(send, 0, 1, recv, 0, four, new int[] {0, 2, 10, 6}),
                    ErrorClass.COUNT, "neighbour_allgatherv receive block of neighbour 2: count 1 at offset 10 exceeds"
                            + " the buffer of 10 LONG elements");
            assertError(() -> t.neighbourAllgatherv(send, 0, 1, recv, 8, new int[] {1, 1, 1, 3}, new int[] {0, 0, 0, 0}),
                    ErrorClass.COUNT, "neighbour_allgatherv receive block of neighbour 3: count 3 at offset 8 exceeds");
            assertError(() -> t.neighbourAlltoallv(send, 0, four, new int[] {0, -1, 2, 3}, recv, 0, four, at),
                    ErrorClass.BUFFER, "neighbour_alltoallv send block of neighbour 1: offset -1 is out of range");
            assertError(() -> t.neighbourAllgatherv(send, 6, 3, recv, 0, four, at), ErrorClass.COUNT,
                    "neighbour_allgatherv send buffer: count 3 at offset 6 exceeds the buffer of 8 LONG elements");
            // alltoallw displacements are in elements of each block's type: 7 doubles in is byte 56 of 64
            ByteBuffer b = ByteBuffer.allocate(64);
            Datatype[] d = {Datatype.DOUBLE, Datatype.DOUBLE, Datatype.DOUBLE, Datatype.DOUBLE};
            assertError(() -> t.neighbourAlltoallw(b, new int[] {2, 0, 0, 0}, new int[] {7, 0, 0, 0}, d, b, four,
                    at, d), ErrorClass.COUNT, "neighbour_alltoallw send block of neighbour 0: count 2 at offset 7 exceeds"
                    + " the buffer of 8 DOUBLE elements");
            // a zero count needs no room
            assertError(() -> t.ineighbourAlltoallw(b, four, at, d, b, new int[] {0, 0, 0, 1}, new int[] {99, 99, 99, 8},
                    d), ErrorClass.COUNT, "neighbour_alltoallw receive block of neighbour 3: count 1 at offset 8");

            // the failed calls sent nothing: the communicator still works
            int[] nb = t.neighbours();
            long[] got = filled(4);
            t.neighbourAllgatherv(new long[] {t.rank()}, 0, 1, got, 0, four, new int[] {0, 1, 2, 3});
            for (int j = 0; j < 4; j++) {
                assertThat(got[j]).isEqualTo(nb[j] == Comm.PROC_NULL ? SENTINEL : nb[j]);
            }
        });
    }

    static Datatype[] longs(int n) {
        Datatype[] d = new Datatype[n];
        Arrays.fill(d, Datatype.LONG);
        return d;
    }

    private static void assertError(Runnable call, ErrorClass ec, String message) {
        assertThatThrownBy(call::run).isInstanceOf(RailyardException.class).hasMessageContaining(message)
                .satisfies(x -> assertThat(((RailyardException) x).errorClass()).isEqualTo(ec));
    }
}
