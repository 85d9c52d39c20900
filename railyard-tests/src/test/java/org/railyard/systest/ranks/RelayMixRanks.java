package org.railyard.systest.ranks;

import java.util.Arrays;

/**
 * Runs the program named by {@code args[0]} (with the rest of the arguments) in a job where some
 * ranks listen for no connection: the ranks named in {@code RELAY_SILENT} (comma-separated) set
 * {@code railyard.listen=false} before Railyard starts, so every pair with one of them goes
 * through the relays while the other pairs may go direct.
 */
public final class RelayMixRanks {
    private RelayMixRanks() {
    }

    public static void main(String[] args) throws Exception {
        String rank = System.getenv("RAILYARD_RANK");
        String silent = System.getenv().getOrDefault("RELAY_SILENT", "");
        if (rank != null && Arrays.asList(silent.split(",")).contains(rank)) {
            System.setProperty("railyard.listen", "false");
        }
        Class.forName(args[0]).getMethod("main", String[].class)
                .invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
    }
}
