import java.nio.file.*;
import java.util.*;
/** Launcher: runs the railyard command, then prints the cpu (ms) of this JVM's live threads by kind and the process total. */
public class ExitProbe {
    public static void main(String[] args) throws Exception {
        long t0 = System.currentTimeMillis();
        var m = Class.forName("org.railyard.cli.Main").getDeclaredMethod("commandLineFor", String[].class, java.io.PrintStream.class, java.io.PrintStream.class);
        m.setAccessible(true);
        var cl = (picocli.CommandLine) m.invoke(null, args, System.out, System.err);
        int code = cl.execute(args);
        long tick = 10; // USER_HZ 100
        Map<String, Long> by = new TreeMap<>();
        try (var ds = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path t : ds) {
                String stat;
                try { stat = Files.readString(t.resolve("stat")); } catch (java.io.IOException gone) { continue; }
                String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                long ms = (Long.parseLong(f[11]) + Long.parseLong(f[12])) * tick;
                String kind = comm.startsWith("C2 ") ? "C2" : comm.startsWith("C1 ") ? "C1" : comm.startsWith("G1") || comm.startsWith("GC") ? "GC" : comm.equals("java") ? "main" : comm.startsWith("ForkJoin") ? "carriers" : "other";
                by.merge(kind, ms, Long::sum);
            }
        }
        String[] p = Files.readString(Path.of("/proc/self/stat")).split("\\) ")[1].split(" ");
        long total = (Long.parseLong(p[11]) + Long.parseLong(p[12])) * tick;
        long all = by.values().stream().mapToLong(Long::longValue).sum();
        System.err.println("PROC total=" + total + " live_threads=" + all + " " + by + " ended_threads=" + (total - all) + " wall_to_exit=" + (System.currentTimeMillis() - Long.parseLong(System.getenv("RAILYARD_LAUNCH_US")) / 1000));
        System.exit(code);
    }
}
