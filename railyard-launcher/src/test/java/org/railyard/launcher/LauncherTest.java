package org.railyard.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.railyard.launcher.JobResult.Outcome;
import org.railyard.launcher.JobResult.RankStatus;

/** {@code railyard run} with real rank processes ({@link RankProgram}), local and through a fake rsh. */
@Timeout(120)
class LauncherTest {
    /** Ranks only run a few lines: skip the optimizing compiler and big heaps to start fast on 2 cores. */
    private static final List<String> QUICK_JVM = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx64m", "-Xss512k");
    private static final String PROGRAM = RankProgram.class.getName();

    @TempDir
    Path tmp;

    /** What a job printed, as {@code railyard run} prints it. */
    record Output(int exitCode, String out, String err) {
        List<String> outLines() {
            return out.lines().toList();
        }

        List<String> errLines() {
            return err.lines().toList();
        }

        /** The pid a rank printed first thing. */
        long pidOf(int rank) {
            Matcher m = Pattern.compile("^\\[" + rank + "] pid (\\d+)$", Pattern.MULTILINE).matcher(out);
            assertThat(m.find()).as("rank %d printed its pid in:%n%s", rank, out).isTrue();
            return Long.parseLong(m.group(1));
        }
    }

    private static Output cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = RunCommand.newCommandLine(o, e).execute(args);
        }
        return new Output(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** {@code run -np N --jvm-arg ... <extra options> RankProgram <program args>}. */
    private static Output runProgram(int np, List<String> options, String... programArgs) {
        List<String> args = new ArrayList<>(List.of("-np", Integer.toString(np)));
        for (String flag : QUICK_JVM) {
            args.add("--jvm-arg=" + flag);
        }
        args.addAll(options);
        args.add(PROGRAM);
        args.addAll(List.of(programArgs));
        return cli(args.toArray(String[]::new));
    }

    @Test
    void aCrowdedLocalJobOfOneJvmPerRankIsPointedToThreads() {
        assertThat(RunCommand.crowdedHint(4, 2, true)).as("2 ranks per processor").isEqualTo("railyard run: 4 ranks on 2"
                + " processors, one JVM each: every JVM compiles, loads and links the same code on them; --threads runs"
                + " the ranks as threads of one JVM (README, --threads)");
        assertThat(RunCommand.crowdedHint(2, 1, true)).contains("2 ranks on 1 processor,");
        assertThat(RunCommand.crowdedHint(3, 2, true)).as("below 2 per processor").isNull();
        assertThat(RunCommand.crowdedHint(64, 64, true)).as("a rank per processor").isNull();
        assertThat(RunCommand.crowdedHint(32, 2, false)).as("not this machine's ranks (hosts, srun)").isNull();
    }

    @Test
    void fourRanksExchangeKeysAndTheirOutputIsPrefixed() {
        Output o = runProgram(4, List.of("--timeout", "60s"), "exchange");

        assertThat(o.exitCode()).as("stderr:%n%s", o.err()).isZero();
        for (int r = 0; r < 4; r++) {
            assertThat(o.outLines()).contains("[" + r + "] rank " + r + " of 4 sees local/0/4,local/1/4,local/2/4,local/3/4");
            assertThat(o.errLines()).contains("[" + r + "] rank " + r + " done");
        }
        // Every line is whole and prefixed: nothing from one rank was spliced into another's line.
        assertThat(o.outLines()).allMatch(l -> l.matches("\\[[0-3]] (pid \\d+|rank [0-3] of 4 sees [a-z0-9/,]+)"));
    }

    @Test
    void rankKilledBySignalIsReportedAndTheOthersAreStopped() {
        List<String> out = new CopyOnWriteArrayList<>();
        List<String> err = new CopyOnWriteArrayList<>();
        JobSpec spec = JobSpec.of(4, PROGRAM, "kill", "2").withJvmArgs(QUICK_JVM).withTimeout(Duration.ofSeconds(60));

        JobResult result = Launcher.run(spec, (r, l) -> out.add(r + ":" + l), (r, l) -> err.add(r + ":" + l));

        assertThat(result.exitCode()).as("stderr: %s", err).isEqualTo(137);
        RankStatus killed = result.ranks().get(2);
        assertThat(killed.outcome()).isEqualTo(Outcome.KILLED);
        assertThat(killed.exitCode()).isEqualTo(137);
        assertThat(out).contains("2:pid " + killed.pid());
        assertThat(err).contains(LineSink.LAUNCHER + ":railyard: rank 2 (pid " + killed.pid()
                + ") was killed by signal 9 (SIGKILL); stopping the other 3 ranks");
        assertThat(result.ranks()).filteredOn(s -> s.rank() != 2).extracting(RankStatus::outcome).containsOnly(Outcome.STOPPED);
        assertThat(result.summary()).isEqualTo("rank 2 (pid " + killed.pid() + ") was killed by signal 9 (SIGKILL);"
                + " the launcher stopped ranks 0, 1 and 3");
        for (RankStatus s : result.ranks()) {
            assertThat(ProcessHandle.of(s.pid()).filter(ProcessHandle::isAlive)).as("rank %d still alive", s.rank()).isEmpty();
        }
    }

    @Test
    void exitCodeOfTheFailingRankIsTheJobsExitCode() {
        Output o = runProgram(3, List.of(), "exit", "1", "3");

        assertThat(o.exitCode()).as("stderr:%n%s", o.err()).isEqualTo(3);
        assertThat(o.errLines()).contains("railyard: rank 1 (pid " + o.pidOf(1) + ") exited with code 3; stopping the other 2 ranks");
    }

    @Test
    void timeoutStopsEveryRank() {
        Output o = runProgram(2, List.of("--timeout", "3s"), "sleep");

        assertThat(o.exitCode()).as("stderr:%n%s", o.err()).isEqualTo(JobResult.TIMEOUT_EXIT);
        assertThat(o.errLines()).contains("railyard: job timeout of 3s expired; stopping 2 ranks");
    }

    @Test
    void clientWithAWrongSecretIsRefusedAndTheServerKeepsServing() {
        Output o = runProgram(2, List.of("--timeout", "60s"), "intruder");

        assertThat(o.exitCode()).as("stderr:%n%s", o.err()).isZero();
        assertThat(o.outLines()).contains("[0] intruder refused: AUTH",
                "[0] rank 0 of 2 sees local/0/2,local/1/2", "[1] rank 1 of 2 sees local/0/2,local/1/2");
        assertThat(o.errLines()).anyMatch(l -> l.startsWith("railyard: refused a key-value connection from ")
                && l.endsWith("it does not know the job secret (claimed rank 0 of job " + jobIdIn(o.err()) + ")"));
    }

    /** The job id the server logged; the wrong-secret client claimed the real one, taken from its env. */
    private static String jobIdIn(String err) {
        Matcher m = Pattern.compile("of job (\\S+)\\)").matcher(err);
        return m.find() ? m.group(1) : "?";
    }

    /**
     * With remote hosts, the key-value server is advertised at the address this machine sends
     * from to them (the route's source), not at whichever interface the system lists first; a
     * name that does not resolve, or the loopback, gives no route source.
     */
    @Test
    void remoteRanksAreToldTheAddressThisMachineReachesThemFrom() throws IOException {
        String own = null;
        for (java.net.NetworkInterface nif : java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces())) {
            for (java.net.InetAddress a : java.util.Collections.list(nif.getInetAddresses())) {
                if (nif.isUp() && a instanceof java.net.Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()) {
                    own = a.getHostAddress();
                }
            }
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(own != null, "this machine has no non-loopback IPv4 address");
        assertThat(Launcher.routeSource(own)).as("the route to this machine's own address %s", own).isEqualTo(own);
        assertThat(Launcher.advertisedHost(List.of(Host.of("localhost"), Host.of(own)))).isEqualTo(own);
        assertThat(Launcher.routeSource("127.0.0.1")).as("the loopback").isNull();
        assertThat(Launcher.routeSource("no-such-host.invalid")).as("a name that does not resolve").isNull();
    }

    @Test
    void hostsFilePlacesRanksRoundRobinBySlotsThroughRsh() throws IOException {
        Path hosts = hostsFile();
        Output o = runProgram(4, List.of("--hosts", hosts.toString(), "--rsh", fakeRsh().toString(), "--timeout", "60s"), "exchange");

        assertThat(o.exitCode()).as("stderr:%n%s", o.err()).isZero();
        // nodeA has 2 slots, nodeB 1: ranks 0,1 on nodeA, 2 on nodeB, then round two: 3 on nodeA.
        String expected = "nodeA/0/3,nodeA/1/3,nodeB/0/1,nodeA/2/3";
        for (int r = 0; r < 4; r++) {
            assertThat(o.outLines()).contains("[" + r + "] rank " + r + " of 4 sees " + expected);
        }
    }

    @Test
    void remoteRanksAreStoppedWhenOneFails() throws Exception {
        Output o = runProgram(3, List.of("--hosts", hostsFile().toString(), "--rsh", fakeRsh().toString(), "--timeout", "60s"),
                "exit", "2", "5");

        assertThat(o.exitCode()).as("stderr:%n%s", o.err()).isEqualTo(5);
        assertThat(o.errLines()).contains("railyard: rank 2 (on nodeB) exited with code 5; stopping the other 2 ranks");
        // The JVMs behind the rsh commands, not just the rsh commands, must be gone.
        for (int r = 0; r < 2; r++) {
            Optional<ProcessHandle> jvm = ProcessHandle.of(o.pidOf(r));
            if (jvm.isPresent()) {
                jvm.get().onExit().get(20, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void rankThatCannotStartFailsTheJobWith127() throws IOException {
        Path missing = tmp.resolve("no-such-rsh");
        Output o = runProgram(2, List.of("--hosts", hostsFile().toString(), "--rsh", missing.toString()), "exchange");

        assertThat(o.exitCode()).isEqualTo(JobResult.START_FAILED_EXIT);
        assertThat(o.errLines()).singleElement().asString()
                .startsWith("railyard: could not start rank 0 on nodeA: Cannot run program \"" + missing + "\"");
    }

    @Test
    void interruptingTheLauncherStopsTheJob() throws Exception {
        CountDownLatch sleeping = new CountDownLatch(1);
        List<String> err = new CopyOnWriteArrayList<>();
        AtomicReference<JobResult> result = new AtomicReference<>();
        AtomicBoolean stillInterrupted = new AtomicBoolean();
        JobSpec spec = JobSpec.of(1, PROGRAM, "sleep").withJvmArgs(QUICK_JVM).withTimeout(Duration.ofSeconds(60));
        Thread launcher = new Thread(() -> {
            result.set(Launcher.run(spec, (r, l) -> {
                if (l.equals("sleeping")) {
                    sleeping.countDown();
                }
            }, (r, l) -> err.add(l)));
            stillInterrupted.set(Thread.currentThread().isInterrupted());
        });
        launcher.start();
        assertThat(sleeping.await(60, TimeUnit.SECONDS)).as("rank started").isTrue();
        launcher.interrupt();
        launcher.join(Duration.ofSeconds(30));

        assertThat(launcher.isAlive()).isFalse();
        assertThat(result.get().exitCode()).isEqualTo(JobResult.INTERRUPTED_EXIT);
        assertThat(result.get().ranks().getFirst().outcome()).isEqualTo(Outcome.STOPPED);
        assertThat(err).contains("railyard: launcher interrupted; stopping 1 rank");
        assertThat(stillInterrupted).isTrue();
    }

    @Test
    void jarMainAndProgramArgumentsPassThroughUntouched() throws IOException {
        Path jar = tmp.resolve("prog.jar");
        Manifest mf = new Manifest();
        mf.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        mf.getMainAttributes().put(Attributes.Name.MAIN_CLASS, PROGRAM);
        try (OutputStream os = Files.newOutputStream(jar); JarOutputStream jos = new JarOutputStream(os, mf)) {
            jos.flush();
        }
        Output o = cli("-np", "1", "--jvm-arg", QUICK_JVM.getFirst(), jar.toString(), "echo", "-np", "0", "--timeout", "a b");

        assertThat(o.exitCode()).as("stderr:%n%s", o.err()).isZero();
        assertThat(o.outLines()).endsWith("[0] -np", "[0] 0", "[0] --timeout", "[0] a b");
    }

    /** A rank's JVM exits without JDK 25's wait for threads in native code; the job's own option comes after and wins. */
    @Test
    void aRanksJvmExitsWithoutWaitingForThreadsInNativeCodeUnlessTheJobSaysOtherwise() {
        Output plain = runProgram(1, List.of(), "jvm-args");
        assertThat(plain.exitCode()).as("stderr:%n%s", plain.err()).isZero();
        assertThat(plain.outLines()).contains("[0] jvm-arg -XX:UserThreadWaitAttemptsAtExit=0");
        Output asked = runProgram(1, List.of("--jvm-arg=-XX:UserThreadWaitAttemptsAtExit=30"), "jvm-args");
        assertThat(asked.exitCode()).as("stderr:%n%s", asked.err()).isZero();
        assertThat(asked.outLines()).containsSubsequence("[0] jvm-arg -XX:UserThreadWaitAttemptsAtExit=0",
                "[0] jvm-arg -XX:UserThreadWaitAttemptsAtExit=30");
    }

    @Test
    void badInputIsAOneLineErrorWithExitCode2() throws IOException {
        assertUsageError(cli("-np", "0", PROGRAM), "run: -np must be at least 1, got 0");
        assertUsageError(cli("-np", "2"), "run: Missing required parameter: 'MAIN'");
        assertUsageError(cli(PROGRAM), "run: Missing required option: '-np=N'");
        assertUsageError(cli("-np", "two", PROGRAM), "run: Invalid value for option '-np': 'two' is not an int");
        assertUsageError(cli("-np", "1", "--timeout", "soon", PROGRAM),
                "run: Invalid value for option '--timeout': 'soon' is not a duration such as 500ms, 20s, 2m or 1h");
        assertUsageError(cli("-np", "1", "--eager-limit", "lots", PROGRAM),
                "run: --eager-limit 'lots' is not a size such as 65536, 64k or 4m");
        assertUsageError(cli("-np", "1", "--rails", "0", PROGRAM), "run: --rails must be at least 1, got 0");
        assertUsageError(cli("-np", "1", "--rail-policy", "fastest", PROGRAM), "run: --rail-policy 'fastest' is not one of "
                + "binding, rr, wrr:W, even, weighted:w0,w1,..., adaptive[:alpha], bss:NPATHS,NBATCH[,alpha], epc");
        assertUsageError(cli("-np", "1", "--transports", "shm,infiniband", PROGRAM),
                "run: --transports shm,infiniband: transport 'infiniband' is unknown; available: self, shm, tcp, udp, gateway, relay");
        assertUsageError(cli("-np", "1", tmp.resolve("missing.jar").toString()), "run: program jar " + tmp.resolve("missing.jar") + " does not exist");
        Path hosts = tmp.resolve("bad-hosts");
        Files.writeString(hosts, "nodeA\nnodeB slots=zero\n");
        assertUsageError(cli("-np", "1", "--hosts", hosts.toString(), PROGRAM),
                "run: hosts file " + hosts + " line 2: 'slots=zero' is not a number of slots of at least 1");
    }

    private static void assertUsageError(Output o, String message) {
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.out()).isEmpty();
        assertThat(o.errLines()).containsExactly(message, "Try 'run --help' for more information.");
    }

    private Path hostsFile() throws IOException {
        Path hosts = tmp.resolve("hosts");
        Files.writeString(hosts, "# test lab\nnodeA slots=2\n\nnodeB   # one slot\n");
        return hosts;
    }

    /**
     * Stands in for ssh: ignores the host but tells the rank where it "is", then runs the command
     * through a shell the way sshd does.
     */
    private Path fakeRsh() throws IOException {
        Path rsh = tmp.resolve("fake-rsh");
        Files.writeString(rsh, """
                #!/bin/sh
                RSH_TEST_HOST="$1"; export RSH_TEST_HOST
                shift
                exec /bin/sh -c "$*"
                """);
        Files.setPosixFilePermissions(rsh, PosixFilePermissions.fromString("rwxr-xr-x"));
        return rsh;
    }

    @Test
    void aJobWithATimeoutGetsAStallReportAtThreeFifthsOfItUnlessItSetsOne() {
        JobSpec timed = new JobSpec(2, null, PROGRAM, null, null, null, null, Duration.ofSeconds(240), null);
        assertThat(Launcher.stallReportDefault(timed, java.util.Map.of())).containsExactly(java.util.Map.entry("RAILYARD_STALL_REPORT", "144s"));
        JobSpec untimed = new JobSpec(2, null, PROGRAM, null, null, null, null, null, null);
        assertThat(Launcher.stallReportDefault(untimed, java.util.Map.of())).isEmpty();
        JobSpec own = new JobSpec(2, null, PROGRAM, null, null, java.util.Map.of("RAILYARD_STALL_REPORT", "0"), null,
                Duration.ofSeconds(240), null);
        assertThat(Launcher.stallReportDefault(own, java.util.Map.of())).isEmpty();
        assertThat(Launcher.stallReportDefault(timed, java.util.Map.of("RAILYARD_STALL_REPORT", "5s"))).isEmpty();
        JobSpec shortOne = new JobSpec(2, null, PROGRAM, null, null, null, null, Duration.ofMillis(500), null);
        assertThat(Launcher.stallReportDefault(shortOne, java.util.Map.of())).containsEntry("RAILYARD_STALL_REPORT", "1s");
    }
}
