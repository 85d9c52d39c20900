package org.railyard.engine.coll;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.railyard.types.Kind;
import org.railyard.engine.comm.CommState;

/**
 * Where a communicator's members run, and the node-aware two-level algorithms built on it. Nodes
 * are numbered in the order of their lowest rank; a node's leader is its lowest rank (a rooted
 * collective lets the root stand in for its node's leader, which saves a hop).
 *
 * <p>Two levels pay when several processes share a node and there are several nodes: the slow
 * links between nodes then carry one message per node instead of one per process. The engine
 * chooses them exactly then ({@link #twoLevel()}), for commutative reductions only (a node's
 * ranks need not be contiguous, so the rank order of a non-commutative reduction would break).
 */
final class CollNodes {
    final int count;
    /** Node index of each rank of the communicator; -1 for a rank outside a layout made {@link #within}. */
    final int[] nodeOf;
    /** The ranks on each node, ascending. */
    final int[][] members;

    private CollNodes(String[] nodeIds, int[] subset) {
        Map<String, List<Integer>> byNode = new LinkedHashMap<>();
        int n = subset == null ? nodeIds.length : subset.length;
        for (int i = 0; i < n; i++) {
            int r = subset == null ? i : subset[i];
            byNode.computeIfAbsent(nodeIds[r], id -> new ArrayList<>()).add(r);
        }
        this.count = byNode.size();
        this.nodeOf = new int[nodeIds.length];
        if (subset != null) {
            Arrays.fill(nodeOf, -1);
        }
        this.members = new int[count][];
        int i = 0;
        for (List<Integer> ranks : byNode.values()) {
            members[i] = ranks.stream().mapToInt(Integer::intValue).toArray();
            for (int r : members[i]) {
                nodeOf[r] = i;
            }
            i++;
        }
    }

    /** The layout of {@code c}'s group from the address cards ({@link CollServices#nodeOf}). */
    static CollNodes of(CollServices e, CommState c) {
        String[] ids = new String[c.size()];
        for (int r = 0; r < ids.length; r++) {
            ids[r] = e.nodeOf(c.worldRanks[r]);
        }
        return new CollNodes(ids, null);
    }

    /** A layout given by node names per rank (tests, and simulating several nodes on one). */
    static CollNodes of(String... nodeIdPerRank) {
        return new CollNodes(nodeIdPerRank, null);
    }

    /**
     * The layout of only the communicator ranks {@code ranks} (ascending; the members of one site,
     * {@link CollSites}), with {@code nodeIdPerRank} naming the node of every rank of the
     * communicator. Its teams and algorithms involve those ranks alone.
     */
    static CollNodes within(String[] nodeIdPerRank, int[] ranks) {
        return new CollNodes(nodeIdPerRank, ranks);
    }

    /** True if there are several nodes and at least one of them holds several ranks. */
    boolean twoLevel() {
        return count > 1 && count < nodeOf.length;
    }

    /** The members of {@code rank}'s node, as a team; member 0 is the node leader. */
    CollTeam local(int rank) {
        return CollTeam.of(members[nodeOf[rank]], rank);
    }

    /**
     * The node leaders as a team, one per node in node order; with {@code root >= 0} the root
     * replaces its node's leader. A process that is no leader gets a team with {@code me == -1}.
     */
    CollTeam leaders(int rank, int root) {
        int[] l = new int[count];
        for (int n = 0; n < count; n++) {
            l[n] = members[n][0];
        }
        if (root >= 0) {
            l[nodeOf[root]] = root;
        }
        return CollTeam.of(l, rank);
    }

    // ---------------------------------------------------------------- two-level algorithms

    /** Barrier: fan-in to the node leader, dissemination among leaders, fan-out. */
    void barrier(CollSchedule s, int rank) {
        CollTeam local = local(rank);
        CollTree.fanIn(s, local);
        if (local.me == 0) {
            CollTree.dissemination(s, leaders(rank, -1));
        }
        CollTree.fanOut(s, local);
    }

    /**
     * Broadcast: among the node leaders (the root leading its own node) by binomial tree or, for
     * long messages, scatter then ring; then within each node from its leader by binomial tree.
     */
    void bcast(CollSchedule s, int rank, int root, Object buf, Kind k, int off, int count, int width, boolean longMsg) {
        CollTeam leaders = leaders(rank, root);
        int rootNode = nodeOf[root];
        if (leaders.me >= 0) {
            bcastLevel(s, leaders, rootNode, buf, k, off, count, width, longMsg);
        }
        CollTeam local = local(rank);
        int localRoot = nodeOf[rank] == rootNode ? indexOf(local, root) : 0;
        // within a node memory is the bottleneck, and the tree copies no more in fewer steps
        bcastLevel(s, local, localRoot, buf, k, off, count, width, false);
    }

    private static void bcastLevel(CollSchedule s, CollTeam t, int root, Object buf, Kind k, int off, int count,
                                   int width, boolean longMsg) {
        if (t.size == 1) {
            return;
        }
        if (longMsg && t.size > 2 && count / width >= t.size) {
            CollTree.scatterRingBcast(s, t, root, buf, k, off, count, width);
        } else {
            CollTree.binomialBcast(s, t, root, buf, k, off, count);
        }
    }

    static int indexOf(CollTeam t, int rank) {
        for (int i = 0; i < t.size; i++) {
            if (t.rank(i) == rank) {
                return i;
            }
        }
        throw new IllegalStateException("rank " + rank + " is not in the team");
    }

    /**
     * Allreduce among the leaders of a level ({@code leaders.me} -1: not one of them, nothing to
     * do): recursive doubling, or Rabenseifner for long vectors of enough items.
     */
    static void allreduceLeaders(CollSchedule s, CollTeam leaders, Object acc, int accOff, Kind k, int count, int width,
                                 boolean longMsg) {
        if (leaders.me >= 0 && leaders.size > 1) {
            if (longMsg && count / width >= leaders.pof2()) {
                CollReduce.rabenseifner(s, leaders, acc, accOff, k, count, width);
            } else {
                CollReduce.recursiveDoubling(s, leaders, acc, accOff, k, count);
            }
        }
    }

    /**
     * Allreduce (commutative operations): binomial reduce to the node leader, allreduce among the
     * leaders (recursive doubling, or Rabenseifner for long vectors), binomial broadcast back
     * within the node.
     */
    void allreduce(CollSchedule s, int rank, Object acc, int accOff, Kind k, int count, int width, boolean longMsg) {
        CollTeam local = local(rank);
        if (local.size > 1) {
            CollTree.binomialReduce(s, local, 0, acc, accOff, k, count);
        }
        allreduceLeaders(s, leaders(rank, -1), acc, accOff, k, count, width, longMsg);
        if (local.size > 1) {
            CollTree.binomialBcast(s, local, 0, acc, k, accOff, count);
        }
    }
}
