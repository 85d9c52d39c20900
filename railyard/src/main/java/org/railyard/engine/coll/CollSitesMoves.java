package org.railyard.engine.coll;

import org.railyard.types.Kind;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * The site-aware forms of the collectives that move data without reducing it: gather(v),
 * scatter(v), allgather(v), alltoall(v), over the layout of a {@link CollSites}. Each pair of
 * sites exchanges one message per direction (at most): the blocks a site sends to another are
 * packed at its leader into one byte message, and the receiving leader unpacks and hands them on
 * inside its site. Blocks travel between sites as bytes; each end converts from its send type and
 * to its receive type, as a flat algorithm does.
 *
 * <p>A site leader must know the size of each block it packs or unpacks. Where only the member
 * itself knows it (the v-variants), the caller first collects the members' sizes at their
 * leaders ({@link #collectAtLeaders}, a message inside each site; for a non-blocking call
 * {@link #collectThen}, the first round of its schedule) and passes them in; sizes are in bytes.
 *
 * <p>Sub-tags: 0 for blocks between members of one site, 1 for packs between a leader and its
 * members, 2 for packs between leaders, 3 for the sizes of a non-blocking call; a member and its
 * leader exchange both a block and a pack in one round, and the sub-tag keeps them apart.
 */
final class CollSitesMoves {
    private static final int BLOCK = 0;
    private static final int MEMBER_PACK = 1;
    private static final int LEADER_PACK = 2;
    /** The sizes a member tells its leader first in a non-blocking v-collective. */
    private static final int SIZES = 3;

    private CollSitesMoves() {
    }

    private static int fits(long bytes, String what) {
        if (bytes > Integer.MAX_VALUE) {
            throw new RailyardException(ErrorClass.COUNT, what + ": the " + bytes
                    + " bytes one site sends another exceed what one message holds");
        }
        return (int) bytes;
    }

    /**
     * Collects {@code mine} (the same length at every member) of every member of each site at the
     * site's lowest rank, as a blocking exchange inside each site (no message crosses sites).
     * Returns the members' arrays one after the other in site order at the lowest rank of each
     * site, null elsewhere. Every member of the communicator calls it.
     */
    static int[] collectAtLeaders(Collectives coll, CollSites sites, org.railyard.engine.comm.CommState c, int id,
                                  int[] mine) {
        CollSchedule s = coll.schedule(c, id, null, -1, CollChoice.SITE_AWARE);
        int[] site = sites.members[sites.siteOf[c.rank]];
        int len = mine.length;
        int[] all = null;
        if (c.rank == site[0]) {
            all = new int[site.length * len];
            System.arraycopy(mine, 0, all, 0, len);
            for (int x = 1; x < site.length; x++) {
                s.recv(all, Kind.INT, x * len, len, site[x]);
            }
        } else {
            s.send(mine, Kind.INT, 0, len, site[0]);
        }
        s.round();
        coll.finish(coll.start(s));
        return all;
    }

    /**
     * The non-blocking form of {@link #collectAtLeaders}: the collection is the first round of
     * {@code s} (sub-tag {@link #SIZES}), and {@code rest} builds the remaining rounds once it is
     * in, given what {@link #collectAtLeaders} returns.
     */
    static void collectThen(CollSchedule s, CollSites sites, int rank, int[] mine, java.util.function.Consumer<int[]> rest) {
        int[] site = sites.members[sites.siteOf[rank]];
        int len = mine.length;
        int[] all;
        if (rank == site[0]) {
            all = new int[site.length * len];
            System.arraycopy(mine, 0, all, 0, len);
            for (int x = 1; x < site.length; x++) {
                s.recv(s.comm, all, Kind.INT, x * len, len, site[x], SIZES);
            }
        } else {
            all = null;
            s.send(s.comm, mine, Kind.INT, 0, len, site[0], SIZES);
        }
        s.then(() -> rest.accept(all));
    }

    // ---------------------------------------------------------------- gather, scatter

    /**
     * Gather(v) at {@code root}: the members of the root's site send to it directly; each other
     * site's leader packs its members' blocks (in rank order) into one message to the root, which
     * unpacks them. {@code counts} and {@code displs} matter at the root; {@code bytes} (bytes of
     * each member's block, by position in its site) at the leader of each site but the root's.
     */
    static void gatherv(CollSchedule s, CollSites st, int rank, int root, Object sbuf, int soff, int scount, Kind sk,
                        Object rbuf, int roff, int[] counts, int[] displs, Kind rk, int[] bytes) {
        int site = st.siteOf[rank];
        int rootSite = st.siteOf[root];
        if (rank == root) {
            for (int r : st.members[site]) {
                if (r != root && counts[r] > 0) {
                    s.recv(rbuf, rk, roff + displs[r], counts[r], r);
                }
            }
            s.copy(sk, sbuf, soff, scount, rk, rbuf, roff + displs[root]);
            Object[] packs = new Object[st.count];
            for (int t = 0; t < st.count; t++) {
                long size = 0;
                for (int r : st.members[t]) {
                    size += (long) counts[r] * rk.size;
                }
                if (t != rootSite && size > 0) {
                    packs[t] = s.scratch(Kind.BYTE, fits(size, "gather"));
                    s.recv(packs[t], Kind.BYTE, 0, (int) size, st.leader(t, root));
                }
            }
            s.round();
            for (int t = 0; t < st.count; t++) {
                if (packs[t] != null) {
                    int at = 0;
                    for (int r : st.members[t]) {
                        int b = counts[r] * rk.size;
                        s.copy(Kind.BYTE, packs[t], at, b, rk, rbuf, roff + displs[r]);
                        at += b;
                    }
                }
            }
            return;
        }
        int lead = st.leader(site, root);
        if (site == rootSite || rank != lead) {
            if (scount > 0) {
                s.send(sbuf, sk, soff, scount, lead);
            }
            s.round();
            return;
        }
        int[] mem = st.members[site];
        long total = CollChecks.sum(bytes, bytes.length);
        Object pack = total == 0 ? null : s.scratch(Kind.BYTE, fits(total, "gather"));
        int at = 0;
        for (int x = 0; x < mem.length; x++) {
            if (mem[x] == rank) {
                s.copy(sk, sbuf, soff, scount, Kind.BYTE, pack, at);
            } else if (bytes[x] > 0) {
                s.recv(pack, Kind.BYTE, at, bytes[x], mem[x]);
            }
            at += bytes[x];
        }
        s.round();
        if (total > 0) {
            s.send(pack, Kind.BYTE, 0, (int) total, root);
        }
        s.round();
    }

    /**
     * Scatter(v) from {@code root}, the mirror of {@link #gatherv}: the root packs each other
     * site's blocks into one message to its leader, which hands them on. {@code counts} and
     * {@code displs} matter at the root, {@code bytes} at the leaders of the other sites.
     */
    static void scatterv(CollSchedule s, CollSites st, int rank, int root, Object sbuf, int soff, int[] counts,
                         int[] displs, Kind sk, Object rbuf, int roff, int rcount, Kind rk, int[] bytes) {
        int site = st.siteOf[rank];
        int rootSite = st.siteOf[root];
        if (rank == root) {
            for (int r : st.members[site]) {
                if (r != root && counts[r] > 0) {
                    s.send(sbuf, sk, soff + displs[r], counts[r], r);
                }
            }
            s.copy(sk, sbuf, soff + displs[root], counts[root], rk, rbuf, roff);
            for (int t = 0; t < st.count; t++) {
                long size = 0;
                for (int r : st.members[t]) {
                    size += (long) counts[r] * sk.size;
                }
                if (t == rootSite || size == 0) {
                    continue;
                }
                Object pack = s.scratch(Kind.BYTE, fits(size, "scatter"));
                int at = 0;
                for (int r : st.members[t]) {
                    s.copy(sk, sbuf, soff + displs[r], counts[r], Kind.BYTE, pack, at);
                    at += counts[r] * sk.size;
                }
                s.send(pack, Kind.BYTE, 0, (int) size, st.leader(t, root));
            }
            s.round();
            return;
        }
        int lead = st.leader(site, root);
        if (site == rootSite || rank != lead) {
            if (rcount > 0) {
                s.recv(rbuf, rk, roff, rcount, lead);
            }
            s.round();
            return;
        }
        int[] mem = st.members[site];
        long total = CollChecks.sum(bytes, bytes.length);
        if (total == 0) {
            return;
        }
        Object pack = s.scratch(Kind.BYTE, fits(total, "scatter"));
        s.recv(pack, Kind.BYTE, 0, (int) total, root);
        s.round();
        int at = 0;
        for (int x = 0; x < mem.length; x++) {
            if (mem[x] == rank) {
                s.copy(Kind.BYTE, pack, at, bytes[x], rk, rbuf, roff);
            } else if (bytes[x] > 0) {
                s.send(pack, Kind.BYTE, at, bytes[x], mem[x]);
            }
            at += bytes[x];
        }
        s.round();
    }

    // ---------------------------------------------------------------- allgather

    /**
     * Allgather(v): each site's leader collects its members' blocks, the leaders exchange their
     * sites' blocks (one message each way per pair of sites), and each leader broadcasts all
     * blocks inside its site ({@link CollNodes#bcast}); every member unpacks them into its receive
     * buffer. Blocks are laid out site by site, members in rank order, so a site's blocks are one
     * contiguous piece.
     */
    static void allgatherv(CollSchedule s, CollSites st, int rank, Object sbuf, int soff, int scount, Kind sk,
                           Object rbuf, int roff, int[] counts, int[] displs, Kind rk, long bcastLong) {
        int p = st.siteOf.length;
        int[] at = s.ints(p);
        int[] siteStart = s.ints(st.count + 1);
        long total = 0;
        for (int t = 0; t < st.count; t++) {
            siteStart[t] = fits(total, "allgather");
            for (int r : st.members[t]) {
                at[r] = fits(total, "allgather");
                total += (long) counts[r] * rk.size;
            }
        }
        int all = fits(total, "allgather");
        siteStart[st.count] = all;
        if (all == 0) {
            return;
        }
        Object full = s.scratch(Kind.BYTE, all);
        int site = st.siteOf[rank];
        int[] mem = st.members[site];
        int lead = mem[0];
        if (rank != lead) {
            if (scount > 0) {
                s.send(sbuf, sk, soff, scount, lead);
            }
            s.round();
        } else {
            s.copy(sk, sbuf, soff, scount, Kind.BYTE, full, at[rank]);
            for (int r : mem) {
                if (r != rank && counts[r] > 0) {
                    s.recv(full, Kind.BYTE, at[r], counts[r] * rk.size, r);
                }
            }
            s.round();
            int mine = siteStart[site + 1] - siteStart[site];
            for (int t = 0; t < st.count; t++) {
                int theirs = siteStart[t + 1] - siteStart[t];
                if (t == site) {
                    continue;
                }
                if (mine > 0) {
                    s.send(full, Kind.BYTE, siteStart[site], mine, st.members[t][0]);
                }
                if (theirs > 0) {
                    s.recv(full, Kind.BYTE, siteStart[t], theirs, st.members[t][0]);
                }
            }
            s.round();
        }
        st.inner(site).bcast(s, rank, lead, full, Kind.BYTE, 0, all, 1, all >= bcastLong);
        for (int r = 0; r < p; r++) {
            if (counts[r] > 0) {
                s.copy(Kind.BYTE, full, at[r], counts[r] * rk.size, rk, rbuf, roff + displs[r]);
            }
        }
    }

    // ---------------------------------------------------------------- alltoall

    /**
     * Alltoall(v): members of one site exchange their blocks directly; each member sends its
     * leader one pack of all its blocks for other sites and receives from it one pack of all its
     * blocks from other sites; the leaders regroup the packs by destination site and exchange one
     * message per pair of sites. At the leader of each site, {@code sendBytes[x * p + j]} is the
     * number of bytes its member x sends to rank j and {@code recvBytes[x * p + j]} the number it
     * receives from j (p the communicator's size); elsewhere they are not read.
     */
    static void alltoallv(CollSchedule s, CollSites st, int rank, Object sbuf, int soff, int[] scounts, int[] sdispls,
                          Kind sk, Object rbuf, int roff, int[] rcounts, int[] rdispls, Kind rk, int[] sendBytes,
                          int[] recvBytes) {
        int p = st.siteOf.length;
        int site = st.siteOf[rank];
        int[] mem = st.members[site];
        int lead = mem[0];
        // blocks inside the site, straight between members
        for (int j : mem) {
            if (j == rank) {
                s.copy(sk, sbuf, soff + sdispls[j], scounts[j], rk, rbuf, roff + rdispls[j]);
                continue;
            }
            if (scounts[j] > 0) {
                s.send(s.comm, sbuf, sk, soff + sdispls[j], scounts[j], j, BLOCK);
            }
            if (rcounts[j] > 0) {
                s.recv(s.comm, rbuf, rk, roff + rdispls[j], rcounts[j], j, BLOCK);
            }
        }
        long outSize = 0;
        long inSize = 0;
        for (int j = 0; j < p; j++) {
            if (st.siteOf[j] != site) {
                outSize += (long) scounts[j] * sk.size;
                inSize += (long) rcounts[j] * rk.size;
            }
        }
        if (rank != lead) {
            Object out = outSize == 0 ? null : s.scratch(Kind.BYTE, fits(outSize, "alltoall"));
            int at = 0;
            for (int t = 0; t < st.count; t++) {
                if (t != site) {
                    for (int j : st.members[t]) {
                        s.copy(sk, sbuf, soff + sdispls[j], scounts[j], Kind.BYTE, out, at);
                        at += scounts[j] * sk.size;
                    }
                }
            }
            Object in = inSize == 0 ? null : s.scratch(Kind.BYTE, fits(inSize, "alltoall"));
            if (outSize > 0) {
                s.send(s.comm, out, Kind.BYTE, 0, (int) outSize, lead, MEMBER_PACK);
            }
            if (inSize > 0) {
                s.recv(s.comm, in, Kind.BYTE, 0, (int) inSize, lead, MEMBER_PACK);
            }
            s.round();
            at = 0;
            for (int t = 0; t < st.count; t++) {
                if (t != site) {
                    for (int j : st.members[t]) {
                        int b = rcounts[j] * rk.size;
                        if (b > 0) {
                            s.copy(Kind.BYTE, in, at, b, rk, rbuf, roff + rdispls[j]);
                        }
                        at += b;
                    }
                }
            }
            return;
        }
        leaderAlltoall(s, st, rank, sbuf, soff, scounts, sdispls, sk, rbuf, roff, rdispls, rk, sendBytes, recvBytes);
    }

    /** The leader's part of {@link #alltoallv}, after the blocks inside the site are posted. */
    private static void leaderAlltoall(CollSchedule s, CollSites st, int rank, Object sbuf, int soff, int[] scounts,
                                       int[] sdispls, Kind sk, Object rbuf, int roff, int[] rdispls, Kind rk,
                                       int[] sendBytes, int[] recvBytes) {
        int p = st.siteOf.length;
        int site = st.siteOf[rank];
        int[] mem = st.members[site];
        int m = mem.length;
        // every member's pack for the other sites, one after the other, each ordered by site then rank
        long[] outOff = new long[m + 1];
        for (int x = 0; x < m; x++) {
            long size = 0;
            for (int j = 0; j < p; j++) {
                if (st.siteOf[j] != site) {
                    size += sendBytes[x * p + j];
                }
            }
            outOff[x + 1] = outOff[x] + size;
        }
        Object outAll = outOff[m] == 0 ? null : s.scratch(Kind.BYTE, fits(outOff[m], "alltoall"));
        int at = (int) outOff[0];
        for (int t = 0; t < st.count; t++) {
            if (t != site) {
                for (int j : st.members[t]) {
                    s.copy(sk, sbuf, soff + sdispls[j], scounts[j], Kind.BYTE, outAll, at);
                    at += scounts[j] * sk.size;
                }
            }
        }
        for (int x = 1; x < m; x++) {
            int size = (int) (outOff[x + 1] - outOff[x]);
            if (size > 0) {
                s.recv(s.comm, outAll, Kind.BYTE, (int) outOff[x], size, mem[x], MEMBER_PACK);
            }
        }
        s.round();
        // one pack per other site: member by member, the piece of its pack for that site
        Object[] recvPacks = new Object[st.count];
        for (int t = 0; t < st.count; t++) {
            if (t == site) {
                continue;
            }
            long sendSize = 0;
            long recvSize = 0;
            for (int x = 0; x < m; x++) {
                for (int j : st.members[t]) {
                    sendSize += sendBytes[x * p + j];
                    recvSize += recvBytes[x * p + j];
                }
            }
            if (sendSize > 0) {
                Object pack = s.scratch(Kind.BYTE, fits(sendSize, "alltoall"));
                int to = 0;
                for (int x = 0; x < m; x++) {
                    long from = outOff[x];
                    for (int u = 0; u < t; u++) {
                        if (u != site) {
                            for (int j : st.members[u]) {
                                from += sendBytes[x * p + j];
                            }
                        }
                    }
                    int len = 0;
                    for (int j : st.members[t]) {
                        len += sendBytes[x * p + j];
                    }
                    s.copy(Kind.BYTE, outAll, (int) from, len, Kind.BYTE, pack, to);
                    to += len;
                }
                s.send(s.comm, pack, Kind.BYTE, 0, (int) sendSize, st.members[t][0], LEADER_PACK);
            }
            if (recvSize > 0) {
                recvPacks[t] = s.scratch(Kind.BYTE, fits(recvSize, "alltoall"));
                s.recv(s.comm, recvPacks[t], Kind.BYTE, 0, (int) recvSize, st.members[t][0], LEADER_PACK);
            }
        }
        s.round();
        // each member's blocks from the other sites, ordered by site then rank: the packs from
        // site t hold, sender by sender, the blocks for this site's members in order
        for (int x = 0; x < m; x++) {
            long inSize = 0;
            for (int j = 0; j < p; j++) {
                if (st.siteOf[j] != site) {
                    inSize += recvBytes[x * p + j];
                }
            }
            Object in = x == 0 || inSize == 0 ? null : s.scratch(Kind.BYTE, fits(inSize, "alltoall"));
            int to = 0;
            for (int t = 0; t < st.count; t++) {
                if (recvPacks[t] == null) {
                    continue;
                }
                int from = 0;
                for (int y : st.members[t]) {
                    for (int x2 = 0; x2 < m; x2++) {
                        int b = recvBytes[x2 * p + y];
                        if (x2 == x && b > 0) {
                            if (x == 0) {
                                s.copy(Kind.BYTE, recvPacks[t], from, b, rk, rbuf, roff + rdispls[y]);
                            } else {
                                s.copy(Kind.BYTE, recvPacks[t], from, b, Kind.BYTE, in, to);
                                to += b;
                            }
                        }
                        from += b;
                    }
                }
            }
            if (in != null) {
                s.send(s.comm, in, Kind.BYTE, 0, (int) inSize, mem[x], MEMBER_PACK);
            }
        }
        s.round();
    }
}
