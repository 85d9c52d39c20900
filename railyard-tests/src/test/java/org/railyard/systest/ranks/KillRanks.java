package org.railyard.systest.ranks;

import java.util.concurrent.TimeUnit;
import org.railyard.Railyard;

/**
 * After a barrier, the rank named by the first argument kills itself with SIGKILL
 * ({@code kill -9 <own pid>}); every other rank (and the victim, should the kill not work) then
 * blocks in a receive from itself that no one ever sends, so only the launcher can end it.
 */
public final class KillRanks {
    private KillRanks() {
    }

    public static void main(String[] args) throws Exception {
        int victim = Integer.parseInt(args[0]);
        try (Railyard ry = Railyard.init(args)) {
            ry.world().barrier();
            if (ry.rank() == victim) {
                long pid = ProcessHandle.current().pid();
                System.out.println("KILLING rank " + ry.rank() + " pid " + pid);
                System.out.flush();
                Process kill = new ProcessBuilder("kill", "-9", Long.toString(pid)).inheritIO().start();
                if (!kill.waitFor(60, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                    System.out.println("FAIL kill rank " + ry.rank() + ": kill -9 " + pid + " did not work");
                    System.exit(3);
                }
            } else {
                System.out.println("WAITING rank " + ry.rank());
                System.out.flush();
            }
            // never sent: blocks until this process is stopped
            ry.self().recv(new int[1], 0, 1, 0, 42);
            System.out.println("FAIL kill rank " + ry.rank() + ": a receive that nothing matches completed");
            System.exit(4);
        }
    }
}
