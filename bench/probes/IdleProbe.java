import org.railyard.Railyard;

/**
 * What waiting costs: rank 0 sleeps for the given milliseconds between two barriers while the
 * other ranks wait in the second one. Timing the whole job with and without the doorbell
 * ({@code RAILYARD_DOORBELL}) shows the processor time the waiters spend; a run with 0 ms gives
 * the cost of starting and ending the job.
 *
 * <pre>
 * J=/usr/lib/jvm/temurin-25-jdk-amd64/bin
 * $J/javac -cp 'railyard-cli/target/lib/*' -d /tmp/idle bench/probes/IdleProbe.java
 * for d in true false; do
 *   /usr/bin/time -f "doorbell $d: wall %e s, user %U s, sys %S s" env RAILYARD_DOORBELL=$d \
 *     bin/railyard run -np 4 --transports shm -cp /tmp/idle IdleProbe 10000
 * done
 * </pre>
 */
public final class IdleProbe {
    private IdleProbe() {
    }

    public static void main(String[] args) throws InterruptedException {
        try (Railyard ry = Railyard.init(args)) {
            ry.world().barrier();
            if (ry.rank() == 0) {
                Thread.sleep(Long.parseLong(args[0]));
            }
            ry.world().barrier();
        }
    }
}
