package org.railyard.systest.lab;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.railyard.bench.BenchCommand;
import org.railyard.launcher.Launcher;
import picocli.CommandLine;

/**
 * Runs a benchmark inside a fresh {@link NetLab} and removes the lab afterwards: the
 * {@code railyard bench} command line, with the lab's hosts, rsh script, rail networks and
 * launcher address filled in. Used by {@code bench/lab/run.sh}.
 *
 * <pre>
 * LabBench [--rates 400mbit,400mbit] [--hosts 2] stream|latency|... [railyard bench options]
 * </pre>
 *
 * <p>In the benchmark's options, {@code {cut:R}} and {@code {restore:R}} stand for the shell
 * commands that set rail R down and up at host 0, and {@code {rate:R:RATE}} for the one that
 * changes its bandwidth, and {@code {host:H}} for the namespace of host H, so
 * {@code --step '30%:{cut:1}' --step '+10s:{restore:1}'} scripts a fault.
 * A rate {@code -} leaves a rail unlimited. Exit status: the benchmark's; 3 if no lab can be made.
 */
public final class LabBench {
    private LabBench() {
    }

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{(cut|restore|rate|host):(\\d+)(?::([^}]+))?}");

    public static void main(String[] args) {
        List<String> rates = List.of("400mbit", "400mbit");
        int hosts = 2;
        int i = 0;
        for (; i < args.length; i++) {
            if (args[i].equals("--rates")) {
                rates = Arrays.stream(args[++i].split(",")).map(r -> r.equals("-") ? null : r).toList();
            } else if (args[i].equals("--hosts")) {
                hosts = Integer.parseInt(args[++i]);
            } else {
                break;
            }
        }
        if (i >= args.length) {
            System.err.println("usage: LabBench [--rates R0,R1,...] [--hosts N] BENCHMARK [railyard bench options]");
            System.exit(2);
        }
        String why = NetLab.unavailable();
        if (why != null) {
            System.err.println("LabBench: " + why);
            System.exit(3);
        }
        int code;
        try (NetLab lab = NetLab.create(hosts, new ArrayList<>(rates))) {
            System.err.println("LabBench: " + lab + ", rail networks " + lab.railNets());
            List<String> cmd = new ArrayList<>();
            boolean stream = args[i].equals("stream");
            if (stream) {
                cmd.add("stream");
                i++;
            } else {
                cmd.add(args[i++]);
                cmd.addAll(List.of("--np", "2"));
            }
            cmd.addAll(List.of("--hosts", lab.hostsFile(1).toString(), "--rsh", lab.rsh().toString(),
                    "--env", "RAILYARD_TRANSPORTS=tcp", "--env", "RAILYARD_RAIL_NETS=" + lab.railNets()));
            for (; i < args.length; i++) {
                cmd.add(fill(args[i], lab));
            }
            System.setProperty(Launcher.LAUNCHER_HOST_PROP, lab.launcherHost());
            System.err.println("LabBench: railyard bench " + String.join(" ", cmd));
            code = new CommandLine(new BenchCommand()).execute(cmd.toArray(String[]::new));
        }
        System.exit(code);
    }

    /** Replaces the lab placeholders of one argument. */
    static String fill(String arg, NetLab lab) {
        Matcher m = PLACEHOLDER.matcher(arg);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            int r = Integer.parseInt(m.group(2));
            String cmd = switch (m.group(1)) {
                case "cut" -> lab.cutCommand(r, 0);
                case "restore" -> lab.restoreCommand(r, 0);
                case "host" -> lab.host(r);
                default -> lab.rateCommand(r, m.group(3));
            };
            m.appendReplacement(sb, Matcher.quoteReplacement(cmd));
        }
        m.appendTail(sb);
        return sb.toString();
    }
}
