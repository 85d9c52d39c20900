package org.railyard.systest.pmi;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.railyard.bootstrap.Bootstrap;
import org.railyard.bootstrap.Bootstraps;

/**
 * One rank of {@link PmiHydraSystemTest}, started by {@code mpiexec.hydra}: finds its bootstrap
 * with {@link Bootstraps#detect()}, puts a short key and a long one (longer than Hydra's 1024-byte
 * value limit, so it travels in parts), fences, reads every rank's keys, and prints one line that
 * the test parses:
 *
 * <pre>PMIKV rank=R size=S name=pmi-1 job=J secret=FINGERPRINT seen=0,1,2,3</pre>
 *
 * The secret itself is never printed; its SHA-256 prefix shows that every rank holds the same one.
 * Any mismatch ends the process with status 1 after a line starting {@code PMIKV-FAIL}.
 */
public final class PmiKvRank {
    /** Length of the long value; Hydra's vallen_max is 1024, so this needs three parts. */
    static final int LONG_VALUE_CHARS = 2500;

    private PmiKvRank() {
    }

    public static void main(String[] args) throws NoSuchAlgorithmException {
        try (Bootstrap boot = Bootstraps.detect()) {
            int rank = boot.rank();
            boot.put("systest-short-" + rank, shortValue(rank));
            boot.put("systest-long-" + rank, longValue(rank));
            boot.fence();
            List<String> seen = new ArrayList<>();
            for (int r = 0; r < boot.size(); r++) {
                String s = boot.get("systest-short-" + r);
                String l = boot.get("systest-long-" + r);
                if (!s.equals(shortValue(r)) || !l.equals(longValue(r))) {
                    System.out.println("PMIKV-FAIL rank=" + rank + " read wrong values for rank " + r + ": short='" + s
                            + "' long has " + l.length() + " chars");
                    System.out.flush();
                    System.exit(1);
                }
                seen.add(Integer.toString(r));
            }
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(boot.jobSecret());
            System.out.println("PMIKV rank=" + rank + " size=" + boot.size() + " name=" + boot.name() + " job="
                    + boot.jobId() + " secret=" + HexFormat.of().formatHex(digest, 0, 8) + " seen=" + String.join(",", seen));
            System.out.flush();
        }
    }

    static String shortValue(int rank) {
        return "hello-from-" + rank;
    }

    /** A value unique to the rank and easy to check: the rank's tag repeated. */
    static String longValue(int rank) {
        String tag = "r" + rank + "-";
        StringBuilder sb = new StringBuilder(LONG_VALUE_CHARS);
        int i = 0;
        while (sb.length() < LONG_VALUE_CHARS) {
            sb.append(tag).append(i++).append('.');
        }
        sb.setLength(LONG_VALUE_CHARS);
        return sb.toString();
    }
}
