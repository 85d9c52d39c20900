package org.railyard.bootstrap;

import java.util.ArrayList;
import java.util.List;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * The job attribute {@code PMI_process_mapping} of PMI-2 (Slurm and Hydra serve it): which node
 * each rank runs on, as a list of blocks {@code (vector,(first,nodes,ranks),...)}.
 *
 * <p>A block {@code (first,nodes,ranks)} gives {@code ranks} consecutive ranks to each of the
 * {@code nodes} nodes numbered from {@code first}; the blocks are taken in order, and the list
 * starts again from its first block until every rank has a node. So {@code (vector,(0,2,4))} is
 * 8 ranks in blocks of 4 on nodes 0 and 1, and {@code (vector,(0,2,1))} is the same 8 ranks dealt
 * round-robin (0,1,0,1,...). Slurm writes one block per node in its own order for a cyclic or
 * arbitrary distribution.
 */
public final class ProcessMapping {
    private ProcessMapping() {
    }

    /**
     * The node index of every rank.
     *
     * @param value the attribute as the server sent it
     * @param size  the number of ranks in the job
     * @param from  names the server in error messages
     * @throws RailyardException BOOTSTRAP quoting the value if it is not a block list, or its blocks
     *         give no rank a node
     */
    public static int[] nodeOfRank(String value, int size, String from) {
        List<int[]> blocks = blocks(value, from);
        int[] nodeOf = new int[size];
        int rank = 0;
        while (rank < size) {
            int before = rank;
            for (int[] b : blocks) {
                for (long node = b[0]; node < (long) b[0] + b[1] && rank < size; node++) {
                    for (int k = 0; k < b[2] && rank < size; k++) {
                        nodeOf[rank++] = (int) node;
                    }
                }
            }
            if (rank == before) {
                throw bad(value, from, "its blocks place no rank (every block has 0 nodes or 0 ranks)");
            }
        }
        return nodeOf;
    }

    private static List<int[]> blocks(String value, String from) {
        String v = value.replace(" ", "");
        if (!v.startsWith("(vector") || !v.endsWith(")")) {
            throw bad(value, from, "it does not have the form (vector,(first,nodes,ranks),...)");
        }
        String inner = v.substring("(vector".length(), v.length() - 1);
        List<int[]> blocks = new ArrayList<>();
        int i = 0;
        while (i < inner.length()) {
            if (inner.charAt(i) != ',' || i + 1 >= inner.length() || inner.charAt(i + 1) != '(') {
                throw bad(value, from, "expected ',(' at character " + ("(vector".length() + i));
            }
            int close = inner.indexOf(')', i);
            if (close < 0) {
                throw bad(value, from, "a block is not closed");
            }
            String[] nums = inner.substring(i + 2, close).split(",", -1);
            if (nums.length != 3) {
                throw bad(value, from, "block '(" + inner.substring(i + 2, close) + ")' does not hold three numbers");
            }
            int[] b = new int[3];
            for (int k = 0; k < 3; k++) {
                try {
                    b[k] = Integer.parseInt(nums[k]);
                } catch (NumberFormatException e) {
                    b[k] = -1;
                }
                if (b[k] < 0) {
                    throw bad(value, from, "'" + nums[k] + "' in block '(" + inner.substring(i + 2, close)
                            + ")' is not a whole number >= 0");
                }
            }
            blocks.add(b);
            i = close + 1;
        }
        if (blocks.isEmpty()) {
            throw bad(value, from, "it holds no block");
        }
        return blocks;
    }

    private static RailyardException bad(String value, String from, String why) {
        return new RailyardException(ErrorClass.BOOTSTRAP, from + " gave PMI_process_mapping "
                + PmiMessage.quote(value) + ", which cannot be read: " + why);
    }
}
