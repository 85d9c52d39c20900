package org.railyard.systest.ranks;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.zip.CRC32;
import org.railyard.Comm;
import org.railyard.Op;
import org.railyard.Railyard;
import org.railyard.Request;

/**
 * Rank program of SiteCollectivesSystemTest: every collective on random data, checked against a
 * sequential computation from the same seeds, on the world (spanning several sites), on a
 * communicator split by a key that reverses the rank order (spanning sites, ranks not grouped by
 * site), on a communicator of one site, and across an intercommunicator whose groups each span
 * sites. Every result is also printed as {@code DIGEST <check> rank R <crc>}, so the test can
 * compare a run with {@code railyard.coll.sites} on against one with it off.
 *
 * <p>Arguments: the site of each world rank, comma separated (e.g. {@code a,a,b,b,b,c}), and a
 * seed. Each rank sets {@code railyard.site} from that list, and {@code railyard.node} to its site
 * and the parity of its rank, so a site of several ranks spans two nodes (its collectives inside
 * the site go node-aware) and two sites never share a node.
 */
public final class SiteCollRanks {
    /** The bound of each wait for a non-blocking collective. */
    private static final java.time.Duration WAIT = java.time.Duration.ofSeconds(60);

    private final long seed;
    private final int worldRank;

    private SiteCollRanks(long seed, int worldRank) {
        this.seed = seed;
        this.worldRank = worldRank;
    }

    public static void main(String[] args) {
        String[] sites = args[0].split(",");
        long seed = Long.parseLong(args[1]);
        int rank = Integer.parseInt(System.getenv("RAILYARD_RANK"));
        System.setProperty("railyard.site", sites[rank]);
        System.setProperty("railyard.node", "node-" + sites[rank] + "-" + rank % 2);
        try (Railyard ry = Railyard.init(args)) {
            SiteCollRanks r = new SiteCollRanks(seed, ry.rank());
            Comm world = ry.world();
            r.all("world", world);
            // spanning sites, in reverse rank order: no site's ranks are at the front
            Comm reversed = world.split(0, -world.rank());
            r.all("reversed", reversed);
            // one site only
            Comm site = world.split(Arrays.asList(sites).indexOf(sites[ry.rank()]), world.rank());
            r.all("site", site);
            // halves by parity, each spanning sites; the intercommunicator joins them
            Comm half = world.split(ry.rank() % 2, ry.rank());
            r.all("half", half);
            Comm inter = half.createIntercomm(0, world, ry.rank() % 2 == 0 ? 1 : 0, 77);
            r.inter(inter, half);
            world.barrier();
            System.out.println("OK site-collectives rank " + ry.rank());
        } catch (Throwable t) {
            System.out.println("FAIL site-collectives rank " + rank + ": " + t);
            t.printStackTrace(System.out);
            System.exit(1);
        }
    }

    /** Comm rank {@code r}'s contribution to check {@code tag}: n seeded random longs. */
    private long[] data(String comm, int tag, int r, int n) {
        SplittableRandom rnd = new SplittableRandom(seed * 1_000_003L + comm.hashCode() * 31L + tag * 7919L + r);
        long[] v = new long[n];
        for (int i = 0; i < n; i++) {
            v[i] = rnd.nextLong(-1_000_000_000L, 1_000_000_000L);
        }
        return v;
    }

    private void digest(String check, long[] v) {
        CRC32 crc = new CRC32();
        for (long x : v) {
            for (int b = 0; b < 8; b++) {
                crc.update((int) (x >>> (8 * b)));
            }
        }
        System.out.println("DIGEST " + check + " rank " + worldRank + " " + Long.toHexString(crc.getValue()));
    }

    private static void same(String check, long[] expected, long[] actual) {
        same(check, expected, actual, null, null);
    }

    /**
     * Fails unless {@code actual} equals {@code expected}; the message names the first wrong
     * element, how many are wrong, and whether {@code actual} is all {@code mine} (this rank's own
     * contribution: the collective wrote nothing after its first local copy) or all {@code before}
     * (what the buffer held before the call: it wrote nothing at all). Either may be null.
     */
    private static void same(String check, long[] expected, long[] actual, long[] mine, long[] before) {
        if (Arrays.equals(expected, actual)) {
            return;
        }
        int i = Arrays.mismatch(expected, actual);
        int wrong = 0;
        for (int j = 0; j < Math.min(expected.length, actual.length); j++) {
            if (expected[j] != actual[j]) {
                wrong++;
            }
        }
        String whole = Arrays.equals(actual, mine) ? "; the buffer holds exactly this rank's own contribution"
                : Arrays.equals(actual, before) ? "; the buffer holds exactly what it held before the call" : "";
        throw new AssertionError(check + ": element " + i + " is " + (i < actual.length ? actual[i] : "missing")
                + ", expected " + (i < expected.length ? expected[i] : "none") + " (" + wrong + " of " + expected.length
                + " elements wrong" + whole + ")");
    }

    /**
     * Waits for a non-blocking collective at most {@code bound}, and fails naming {@code check} if
     * it is still under way then: its buffers would be read while the library may still write them.
     */
    private static void await(String check, Request r, java.time.Duration bound) {
        if (r.await(bound) == null) {
            throw new AssertionError(check + ": not complete after " + bound.toSeconds() + " s (the rank's stall report,"
                    + " railyard.stall.report, says what it waited for)");
        }
    }

    private void check(String check, long[] expected, long[] actual) {
        same(check, expected, actual);
        digest(check, actual);
    }

    /** Every collective of an intracommunicator {@code c} (named {@code name} in the checks). */
    private void all(String name, Comm c) {
        int p = c.size();
        int me = c.rank();
        int tag = 0;
        c.barrier();
        for (int n : new int[] {1, 1000, 70_000}) {
            for (int root = 0; root < p; root++) {
                tag++;
                long[] b = me == root ? data(name, tag, root, n) : new long[n];
                c.bcast(b, 0, n, root);
                check(name + " bcast n=" + n + " root=" + root, data(name, tag, root, n), b);
            }
        }
        for (int n : new int[] {1, 3000, 20_000}) {
            tag++;
            long[] sum = new long[n];
            long[] max = new long[n];
            Arrays.fill(max, Long.MIN_VALUE);
            for (int r = 0; r < p; r++) {
                long[] d = data(name, tag, r, n);
                for (int i = 0; i < n; i++) {
                    sum[i] += d[i];
                    max[i] = Math.max(max[i], d[i]);
                }
            }
            long[] out = new long[n];
            c.allreduce(data(name, tag, me, n), 0, out, 0, n, Op.SUM);
            check(name + " allreduce sum n=" + n, sum, out);
            c.allreduce(data(name, tag, me, n), 0, out, 0, n, Op.MAX);
            check(name + " allreduce max n=" + n, max, out);
            long[] mine = data(name, tag, me, n);
            long[] before = out.clone();
            Request req = c.iallreduce(mine, 0, out, 0, n, Op.SUM);
            await(name + " iallreduce sum n=" + n, req, WAIT);
            same(name + " iallreduce sum n=" + n, sum, out, mine, before);
            digest(name + " iallreduce sum n=" + n, out);
            for (int root = 0; root < p; root++) {
                long[] red = new long[n];
                c.reduce(data(name, tag, me, n), 0, red, 0, n, Op.SUM, root);
                if (me == root) {
                    check(name + " reduce n=" + n + " root=" + root, sum, red);
                }
            }
        }
        for (int n : new int[] {1, 500}) {
            tag++;
            long[] everyone = new long[p * n];
            for (int r = 0; r < p; r++) {
                System.arraycopy(data(name, tag, r, n), 0, everyone, r * n, n);
            }
            for (int root = 0; root < p; root++) {
                long[] g = new long[p * n];
                c.gather(data(name, tag, me, n), 0, n, g, 0, n, root);
                if (me == root) {
                    check(name + " gather n=" + n + " root=" + root, everyone, g);
                }
                long[] part = new long[n];
                c.scatter(me == root ? everyone : null, 0, n, part, 0, n, root);
                check(name + " scatter n=" + n + " root=" + root, Arrays.copyOfRange(everyone, me * n, me * n + n), part);
            }
            long[] ag = new long[p * n];
            c.allgather(data(name, tag, me, n), 0, n, ag, 0, n);
            check(name + " allgather n=" + n, everyone, ag);
            long[] a2a = new long[p * n];
            c.alltoall(data(name, tag, me, p * n), 0, n, a2a, 0, n);
            long[] a2aExpected = new long[p * n];
            for (int r = 0; r < p; r++) {
                System.arraycopy(data(name, tag, r, p * n), me * n, a2aExpected, r * n, n);
            }
            check(name + " alltoall n=" + n, a2aExpected, a2a);
        }
        vectors(name, c, ++tag);
    }

    /** gatherv, scatterv, allgatherv, alltoallv with uneven (and zero) counts and displacements with gaps, reversed. */
    private void vectors(String name, Comm c, int tag) {
        int p = c.size();
        int me = c.rank();
        int[] counts = new int[p];
        int[] displs = new int[p];
        int at = 3;
        for (int r = p - 1; r >= 0; r--) {
            counts[r] = r % 3 == 1 ? 0 : 5 + 97 * r;
            displs[r] = at;
            at += counts[r] + 2;
        }
        int len = at;
        long[] everyone = new long[len];
        for (int r = 0; r < p; r++) {
            System.arraycopy(data(name, tag, r, counts[r]), 0, everyone, displs[r], counts[r]);
        }
        long[] mine = data(name, tag, me, counts[me]);
        for (int root = 0; root < p; root++) {
            long[] g = new long[len];
            c.gatherv(mine, 0, counts[me], g, 0, counts, displs, root);
            if (me == root) {
                check(name + " gatherv root=" + root, everyone, g);
            }
            long[] part = new long[counts[me]];
            c.scatterv(me == root ? everyone : null, 0, counts, displs, part, 0, counts[me], root);
            check(name + " scatterv root=" + root, mine, part);
        }
        // the non-blocking forms, gatherv and scatterv at two roots and alltoallv below, all in flight at once
        int[] roots = {0, p - 1};
        long[][] ig = new long[2][len];
        long[][] is = new long[2][counts[me]];
        Request[] pending = new Request[4];
        for (int x = 0; x < 2; x++) {
            pending[2 * x] = c.igatherv(mine, 0, counts[me], ig[x], 0, counts, displs, roots[x]);
            pending[2 * x + 1] = c.iscatterv(me == roots[x] ? everyone : null, 0, counts, displs, is[x], 0, counts[me],
                    roots[x]);
        }
        long[] agv = new long[len];
        c.allgatherv(mine, 0, counts[me], agv, 0, counts, displs);
        check(name + " allgatherv", everyone, agv);
        // alltoallv: rank i sends (i + j) % 4 * 50 (zero for some pairs) elements to j
        int[] sc = new int[p];
        int[] sd = new int[p];
        int[] rc = new int[p];
        int[] rd = new int[p];
        int s = 0;
        int r2 = 1;
        for (int j = 0; j < p; j++) {
            sc[j] = (me + j) % 4 * 50;
            sd[j] = s;
            s += sc[j] + 1;
            rc[j] = (j + me) % 4 * 50;
            rd[j] = r2;
            r2 += rc[j];
        }
        long[] send = data(name, tag + 1, me, s);
        long[] irecv = new long[r2];
        Request ia = c.ialltoallv(send, 0, sc, sd, irecv, 0, rc, rd);
        for (int x = 0; x < pending.length; x++) {
            await(name + (x % 2 == 0 ? " igatherv" : " iscatterv") + " root=" + roots[x / 2], pending[x], WAIT);
        }
        await(name + " ialltoallv", ia, WAIT);
        for (int x = 0; x < 2; x++) {
            if (me == roots[x]) {
                check(name + " igatherv root=" + roots[x], everyone, ig[x]);
            }
            check(name + " iscatterv root=" + roots[x], mine, is[x]);
        }
        long[] recv = new long[r2];
        c.alltoallv(send, 0, sc, sd, recv, 0, rc, rd);
        long[] expected = new long[r2];
        for (int i = 0; i < p; i++) {
            // rank i's send displacement to me
            int off = 0;
            for (int j = 0; j < me; j++) {
                off += (i + j) % 4 * 50 + 1;
            }
            int total = 0;
            for (int j = 0; j < p; j++) {
                total += (i + j) % 4 * 50 + 1;
            }
            System.arraycopy(data(name, tag + 1, i, total), off, expected, rd[i], rc[i]);
        }
        check(name + " alltoallv", expected, recv);
        check(name + " ialltoallv", expected, irecv);
    }

    /** allreduce and allgather across the intercommunicator: each group gets the other group's data. */
    private void inter(Comm inter, Comm half) {
        int me = half.rank();
        int group = worldRank % 2;
        int remote = inter.remoteSize();
        String name = "inter";
        int n = 2000;
        long[] sum = new long[n];
        for (int r = 0; r < remote; r++) {
            long[] d = data(name + (1 - group), 1, r, n);
            for (int i = 0; i < n; i++) {
                sum[i] += d[i];
            }
        }
        long[] out = new long[n];
        inter.allreduce(data(name + group, 1, me, n), 0, out, 0, n, Op.SUM);
        check(name + " allreduce", sum, out);
        long[] all = new long[remote * 10];
        inter.allgather(data(name + group, 2, me, 10), 0, 10, all, 0, 10);
        long[] expected = new long[remote * 10];
        for (int r = 0; r < remote; r++) {
            System.arraycopy(data(name + (1 - group), 2, r, 10), 0, expected, r * 10, 10);
        }
        check(name + " allgather", expected, all);
    }
}
