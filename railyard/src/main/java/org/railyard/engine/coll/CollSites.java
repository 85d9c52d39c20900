package org.railyard.engine.coll;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.railyard.types.Kind;
import org.railyard.engine.comm.CommState;

/**
 * Which site (cluster of a grid) each member of a communicator runs on, and the site-aware
 * algorithms of barrier, bcast, reduce and allreduce built on it (the data-moving collectives are
 * in {@link CollSitesMoves}). A third level above {@link CollNodes}: the wide-area links between
 * sites are slow, shared and far, so an operation crosses them once per pair of sites where it
 * can, in the manner of MagPIe (Kielmann et al., 1999) and MPICH-G2: a broadcast goes from the
 * root to one leader per site, which spreads it inside its site with the node-aware algorithms; a
 * reduction folds each site at its leader first and only the leaders' partial results cross.
 *
 * <p>Sites are numbered in the order of their lowest rank; a site's leader is its lowest rank,
 * except that a rooted collective lets the root lead its own site (which saves a hop). Inside a
 * site the members are laid out by node ({@link CollNodes#within}), so a site of several nodes
 * runs the two-level algorithms and a site of one node the flat ones on its members.
 *
 * <p>Reductions run here only for commutative operations: a site's ranks need not be contiguous,
 * so folding by site would break the rank order a non-commutative operation needs.
 */
final class CollSites {
    /** The number of sites. */
    final int count;
    /** Site index of each rank of the communicator. */
    final int[] siteOf;
    /** The ranks of each site, ascending. */
    final int[][] members;
    /** Position of each rank among the members of its site. */
    final int[] indexInSite;
    /** The node layout of each site's members. */
    private final CollNodes[] inner;

    private CollSites(String[] siteIds, String[] nodeIds) {
        Map<String, List<Integer>> bySite = new LinkedHashMap<>();
        for (int r = 0; r < siteIds.length; r++) {
            bySite.computeIfAbsent(siteIds[r], n -> new ArrayList<>()).add(r);
        }
        this.count = bySite.size();
        this.siteOf = new int[siteIds.length];
        this.indexInSite = new int[siteIds.length];
        this.members = new int[count][];
        this.inner = new CollNodes[count];
        int i = 0;
        for (List<Integer> ranks : bySite.values()) {
            members[i] = ranks.stream().mapToInt(Integer::intValue).toArray();
            for (int j = 0; j < members[i].length; j++) {
                siteOf[members[i][j]] = i;
                indexInSite[members[i][j]] = j;
            }
            inner[i] = CollNodes.within(nodeIds, members[i]);
            i++;
        }
    }

    /** The layout of {@code c}'s group from the address cards ({@link CollServices#siteOf}, {@link CollServices#nodeOf}). */
    static CollSites of(CollServices e, CommState c) {
        String[] sites = new String[c.size()];
        String[] nodes = new String[c.size()];
        for (int r = 0; r < sites.length; r++) {
            sites[r] = e.siteOf(c.worldRanks[r]);
            nodes[r] = e.nodeOf(c.worldRanks[r]);
        }
        return new CollSites(sites, nodes);
    }

    /** A layout given by site and node names per rank (tests). */
    static CollSites of(String[] sitePerRank, String[] nodePerRank) {
        if (sitePerRank.length != nodePerRank.length) {
            throw new IllegalArgumentException(sitePerRank.length + " sites for " + nodePerRank.length + " nodes");
        }
        return new CollSites(sitePerRank, nodePerRank);
    }

    /** True if the members run on more than one site. */
    boolean spansSites() {
        return count > 1;
    }

    /** The leader of {@code site}: the root if it is there ({@code root >= 0}), else the site's lowest rank. */
    int leader(int site, int root) {
        return root >= 0 && siteOf[root] == site ? root : members[site][0];
    }

    /**
     * The site leaders as a team, one per site in site order (so member i leads site i); with
     * {@code root >= 0} the root leads its site. A process that leads no site gets {@code me == -1}.
     */
    CollTeam leaders(int rank, int root) {
        int[] l = new int[count];
        for (int t = 0; t < count; t++) {
            l[t] = leader(t, root);
        }
        return CollTeam.of(l, rank);
    }

    /** The node layout of the members of {@code site}. */
    CollNodes inner(int site) {
        return inner[site];
    }

    // ---------------------------------------------------------------- barrier, bcast, reductions

    /**
     * Barrier: fan-in to the node leaders, then to the site leader; dissemination among the site
     * leaders (the only messages that cross sites: ceil(log2 sites) rounds); fan-out the same way.
     */
    void barrier(CollSchedule s, int rank) {
        CollNodes in = inner[siteOf[rank]];
        CollTeam local = in.local(rank);
        CollTree.fanIn(s, local);
        if (local.me == 0) {
            CollTeam nodeLeaders = in.leaders(rank, -1);
            CollTree.fanIn(s, nodeLeaders);
            if (nodeLeaders.me == 0) {
                CollTree.dissemination(s, leaders(rank, -1));
            }
            CollTree.fanOut(s, nodeLeaders);
        }
        CollTree.fanOut(s, local);
    }

    /**
     * Broadcast: binomial tree among the site leaders (the root leading its site), so each site
     * receives the message once; then inside each site from its leader with the node-aware
     * broadcast ({@link CollNodes#bcast}).
     */
    void bcast(CollSchedule s, int rank, int root, Object buf, Kind k, int off, int count, int width, boolean longMsg) {
        CollTeam leaders = leaders(rank, root);
        if (leaders.me >= 0 && leaders.size > 1) {
            CollTree.binomialBcast(s, leaders, siteOf[root], buf, k, off, count);
        }
        int site = siteOf[rank];
        inner[site].bcast(s, rank, leader(site, root), buf, k, off, count, width, longMsg);
    }

    /** Folds {@code acc} of the members of {@code rank}'s site into {@code siteLeader}'s: by node, then among node leaders. */
    private void reduceToLeader(CollSchedule s, int rank, int siteLeader, Object acc, int accOff, Kind k, int count) {
        CollNodes in = inner[siteOf[rank]];
        CollTeam local = in.local(rank);
        int leaderNode = in.nodeOf[siteLeader];
        int localRoot = in.nodeOf[rank] == leaderNode ? CollNodes.indexOf(local, siteLeader) : 0;
        if (local.size > 1) {
            CollTree.binomialReduce(s, local, localRoot, acc, accOff, k, count);
        }
        CollTeam nodeLeaders = in.leaders(rank, siteLeader);
        if (nodeLeaders.me >= 0 && nodeLeaders.size > 1) {
            CollTree.binomialReduce(s, nodeLeaders, leaderNode, acc, accOff, k, count);
        }
    }

    /** Reduce (commutative operations): each site folds at its leader, the leaders fold at the root by binomial tree. */
    void reduce(CollSchedule s, int rank, int root, Object acc, int accOff, Kind k, int count) {
        reduceToLeader(s, rank, leader(siteOf[rank], root), acc, accOff, k, count);
        CollTeam leaders = leaders(rank, root);
        if (leaders.me >= 0 && leaders.size > 1) {
            CollTree.binomialReduce(s, leaders, siteOf[root], acc, accOff, k, count);
        }
    }

    /**
     * Allreduce (commutative operations): each site folds at its leader; the leaders allreduce
     * (recursive doubling, or Rabenseifner for long vectors), so each pair of sites exchanges the
     * vector about once each way; each leader broadcasts the result inside its site.
     */
    void allreduce(CollSchedule s, int rank, Object acc, int accOff, Kind k, int count, int width, boolean longMsg) {
        int site = siteOf[rank];
        int lead = members[site][0];
        reduceToLeader(s, rank, lead, acc, accOff, k, count);
        CollNodes.allreduceLeaders(s, leaders(rank, -1), acc, accOff, k, count, width, longMsg);
        inner[site].bcast(s, rank, lead, acc, k, accOff, count, width, longMsg);
    }
}
