package org.railyard.systest.slurm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.launcher.JobSpec;
import org.railyard.systest.FullMatrix;
import org.railyard.systest.Jobs;
import org.railyard.systest.Transcript;
import org.railyard.testkit.Await;

/**
 * Railyard programs under real Slurm daemons ({@link SlurmCluster}, started and stopped here):
 * {@code srun --mpi=pmi2} with no Railyard launcher at 1, 2, 4 and 8 tasks (the obstacle demo,
 * an mpiJava ping-pong, the collectives, with results equal to {@code railyard run}'s), an
 * {@code sbatch} script, a task killed under srun, {@code scancel}, and {@code railyard run} inside
 * an allocation. Every wait is bounded; skips, saying why, where Slurm cannot run.
 */
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class SlurmSystemTest {
    static final String DEMO = "org.railyard.apps.obstacle.ObstacleDemo";
    static final Duration JOB_LIMIT = Duration.ofMinutes(5);
    static final Pattern RESULT = Pattern.compile("RESULT obstacle .* iterations=(\\d+) converged=true residual=(\\S+) .*");
    static final Pattern COLL = Pattern.compile("COLL rank=(\\d+) size=(\\d+) node-ranks=(\\d+) nodes=(\\d+) digest=(\\S+)");
    private static final Pattern READY = Pattern.compile("(?m)^\\s*(\\d+): READY rank=(\\d+) pid=(\\d+)$");

    @TempDir
    static Path work;
    private static SlurmCluster slurm;

    @BeforeAll
    static void startSlurm() throws Exception {
        slurm = SlurmCluster.startOrSkip(work.resolve("slurm"));
    }

    @AfterAll
    static void stopSlurm() {
        if (slurm != null) {
            slurm.close();
        }
    }

    private static List<String> srun(int tasks, List<String> program) {
        List<String> c = new ArrayList<>(List.of("srun", "--mpi=pmi2", "--label", "--overcommit", "-n",
                Integer.toString(tasks)));
        c.addAll(program);
        return c;
    }

    private static SlurmCluster.Result srunOk(int tasks, List<String> program) throws Exception {
        SlurmCluster.Result r = slurm.exec(srun(tasks, program), JOB_LIMIT);
        assertThat(r.exitCode()).as("srun of %d tasks\n%s\n%s", tasks, r, slurm.logs()).isZero();
        return r;
    }

    /** The stdout lines of a railyard run job's rank. */
    static List<String> railyardRun(int np, Class<?> main, String name, String... args) {
        JobSpec spec = new JobSpec(np, List.of(), main.getName(), List.of(args), List.of(), Map.of(), Jobs.RANK_JVM,
                JOB_LIMIT, null);
        Jobs.Finished job = Jobs.run(name, spec);
        assertThat(job.result().exitCode()).as(job.report()).isZero();
        List<String> lines = new ArrayList<>();
        for (int r = 0; r < np; r++) {
            lines.addAll(job.transcript().texts(r, Transcript.Stream.OUT));
        }
        return lines;
    }

    static Matcher find(Pattern p, String text, String what) {
        Matcher m = p.matcher(text);
        assertThat(m.find()).as("%s in\n%s", what, text).isTrue();
        return m;
    }

    private static String demoReference;

    /** The demo's output under railyard run on 2 ranks, run once for all sizes. */
    static synchronized String demoUnderRailyardRun() throws ClassNotFoundException {
        if (demoReference == null) {
            demoReference = String.join("\n", railyardRun(2, classOf(DEMO), "slurm-demo-reference", "--n", "16"));
        }
        return demoReference;
    }

    @ParameterizedTest(name = "{0} tasks")
    @ValueSource(ints = {1, 2, 4, 8})
    void obstacleDemoUnderSrunAgreesWithRailyardRun(int tasks) throws Exception {
        if (tasks == 8) {
            FullMatrix.heavyRow("the demo under srun on 8 tasks (the collectives run on 8)");
        }
        SlurmCluster.Result r = srunOk(tasks, Jobs.rankJava(classOf(DEMO), "--n", "16"));
        assertThat(r.stdout()).contains("0: OK: parallel solution agrees with sequential");
        Matcher underSrun = find(RESULT, r.stdout(), "the RESULT line");
        Matcher underRun = find(RESULT, demoUnderRailyardRun(), "the RESULT line of railyard run");
        // The synchronous solver reproduces the sequential iterates bit for bit, whatever the launcher and size.
        assertThat(underSrun.group(1)).isEqualTo(underRun.group(1));
        assertThat(underSrun.group(2)).isEqualTo(underRun.group(2));
    }

    @ParameterizedTest(name = "{0} tasks")
    @ValueSource(ints = {1, 2, 4, 8})
    void collectivesUnderSrunGiveWhatRailyardRunGives(int tasks) throws Exception {
        SlurmCluster.Result r = srunOk(tasks, Jobs.rankJava(CollectiveRanks.class));
        assertThat(r.stdout()).contains("0: COLL OK");
        List<String> digests = new ArrayList<>();
        Matcher m = COLL.matcher(r.stdout());
        while (m.find()) {
            assertThat(m.group(2)).isEqualTo(Integer.toString(tasks));
            assertThat(m.group(3)).as("ranks on the one node").isEqualTo(Integer.toString(tasks));
            assertThat(m.group(4)).as("nodes").isEqualTo("1");
            digests.add(m.group(1) + "=" + m.group(5));
        }
        assertThat(digests).as("one line per task\n%s", r).hasSize(tasks);
        if (tasks == 4) {
            List<String> reference = new ArrayList<>();
            for (String line : railyardRun(4, CollectiveRanks.class, "slurm-coll-reference")) {
                Matcher ref = COLL.matcher(line);
                if (ref.matches()) {
                    reference.add(ref.group(1) + "=" + ref.group(5));
                }
            }
            assertThat(digests).containsExactlyInAnyOrderElementsOf(reference);
        }
    }

    @ParameterizedTest(name = "{0} tasks")
    @ValueSource(ints = {2, 4})
    void mpiJavaPingPongUnderSrunBootstrapsThroughPmi2(int tasks) throws Exception {
        SlurmCluster.Result r = srunOk(tasks, Jobs.rankJava(MpiPingPong.class));
        assertThat(r.stdout()).contains("0: PINGPONG OK size=" + tasks + " rounds=" + (tasks * 11));
        for (int t = 0; t < tasks; t++) {
            assertThat(r.stdout()).contains(t + ": BOOTSTRAP rank=" + t + " name=pmi-2");
        }
    }

    @Test
    void sbatchScriptWritesTheDemosOkLine() throws Exception {
        Path out = work.resolve("sbatch-demo.out");
        Path script = work.resolve("demo.sbatch");
        Files.writeString(script, "#!/bin/sh\n#SBATCH --ntasks=2\n#SBATCH --output=" + out + "\n"
                + "srun --mpi=pmi2 " + String.join(" ", Jobs.rankJava(classOf(DEMO), "--n", "16")) + "\n");
        SlurmCluster.Result sub = slurm.exec(List.of("sbatch", "--parsable", script.toString()), Duration.ofSeconds(60));
        assertThat(sub.exitCode()).as("sbatch\n%s", sub).isZero();
        String job = sub.stdout().trim();
        String state = awaitEnd(job);
        assertThat(state).as("state of job %s; output:\n%s", job, readOrEmpty(out)).isEqualTo("COMPLETED");
        assertThat(readOrEmpty(out)).contains("OK: parallel solution agrees with sequential");
    }

    @Test
    void aTaskKilledUnderSrunEndsTheStepAndIsNamed() throws Exception {
        String marker = "ry-killed-" + ProcessHandle.current().pid();
        Path out = work.resolve("killed.out");
        Process srun = slurm.spawn(srun(4, Jobs.rankJava(HangingRanks.class, marker)), out);
        Map<Integer, Long> pids = awaitReady(out, 4, srun);
        ProcessHandle.of(pids.get(2)).orElseThrow().destroyForcibly();
        String text = failedStep(srun, out);
        assertThat(text).containsPattern("task 2: (Killed|Exited)");
        awaitNoProcessWith(marker);
    }

    @Test
    void abortOfOneTaskEndsTheStepThroughPmi2() throws Exception {
        String marker = "ry-abort-" + ProcessHandle.current().pid();
        Path out = work.resolve("abort.out");
        // no --kill-on-bad-exit: the tasks that wait are ended only because the aborting one asked Slurm
        Process srun = slurm.spawn(srun(4, Jobs.rankJava(AbortingRanks.class, marker)), out);
        String text;
        try {
            awaitReady(out, 4, null);
            text = failedStep(srun, out);
        } finally {
            srun.destroyForcibly();
        }
        assertThat(text).contains("railyard: rank 1 called abort(5)");
        awaitNoProcessWith(marker);
    }

    @Test
    void scancelLeavesNoProcessBehind() throws Exception {
        String marker = "ry-scancel-" + ProcessHandle.current().pid();
        Path out = work.resolve("scancel.out");
        Path script = work.resolve("hang.sbatch");
        Files.writeString(script, "#!/bin/sh\n#SBATCH --ntasks=4\n#SBATCH --overcommit\n#SBATCH --output=" + out + "\n"
                + "srun --mpi=pmi2 --label " + String.join(" ", Jobs.rankJava(HangingRanks.class, marker)) + "\n");
        SlurmCluster.Result sub = slurm.exec(List.of("sbatch", "--parsable", script.toString()), Duration.ofSeconds(60));
        assertThat(sub.exitCode()).as("sbatch\n%s", sub).isZero();
        String job = sub.stdout().trim();
        awaitReady(out, 4, null);
        SlurmCluster.Result cancel = slurm.exec(List.of("scancel", job), Duration.ofSeconds(60));
        assertThat(cancel.exitCode()).as("scancel\n%s", cancel).isZero();
        assertThat(awaitEnd(job)).isEqualTo("CANCELLED");
        awaitNoProcessWith(marker);
    }

    @Test
    void railyardRunInsideAnAllocationGoesThroughSrunAndSaysSo() throws Exception {
        List<String> command = new ArrayList<>(List.of("salloc", "--ntasks=2"));
        command.addAll(Jobs.rankJava(RunMain.class, "-np", "2", CollectiveRanks.class.getName()));
        SlurmCluster.Result r = slurm.exec(command, JOB_LIMIT);
        assertThat(r.exitCode()).as("%s", r).isZero();
        assertThat(r.stderr()).contains("railyard run: inside Slurm allocation").contains("through srun --mpi=pmi2");
        assertThat(r.stdout()).contains("[0] COLL OK").contains("[1] COLL rank=1 size=2");
    }

    /** Waits until {@code n} tasks said READY in {@code out}; their pids by rank. */
    private static Map<Integer, Long> awaitReady(Path out, int n, Process srun) {
        Map<Integer, Long> pids = new java.util.TreeMap<>();
        Await.awaitUntil(() -> {
            if (srun != null && !srun.isAlive()) {
                throw new AssertionError("srun ended early\n" + readOrEmpty(out));
            }
            Matcher m = READY.matcher(readOrEmpty(out));
            while (m.find()) {
                pids.put(Integer.parseInt(m.group(2)), Long.parseLong(m.group(3)));
            }
            return pids.size() == n;
        }, JOB_LIMIT, () -> n + " tasks READY in " + out + "\n" + readOrEmpty(out));
        return pids;
    }

    /** Waits up to the job bound for the step {@code srun} runs to end; asserts that it failed and returns its output. */
    private static String failedStep(Process srun, Path out) throws InterruptedException {
        assertThat(srun.waitFor(JOB_LIMIT.toSeconds(), TimeUnit.SECONDS)).as("srun ended\n%s", readOrEmpty(out)).isTrue();
        String text = readOrEmpty(out);
        assertThat(srun.exitValue()).as(text).isNotZero();
        return text;
    }

    /** Waits until the job has left the running states; its final state. */
    private static String awaitEnd(String job) {
        String[] state = {""};
        Await.awaitUntil(() -> {
            SlurmCluster.Result r = slurm.exec(List.of("scontrol", "show", "job", "-o", job), Duration.ofSeconds(30));
            Matcher m = Pattern.compile("JobState=(\\S+)").matcher(r.stdout());
            state[0] = m.find() ? m.group(1) : "?";
            return !List.of("PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "?").contains(state[0]);
        }, JOB_LIMIT, () -> "job " + job + " to end (last state " + state[0] + ")\n" + slurm.logs());
        return state[0];
    }

    private static void awaitNoProcessWith(String marker) {
        Await.awaitUntil(() -> ProcessHandle.allProcesses()
                .noneMatch(p -> p.info().commandLine().map(c -> c.contains(marker)).orElse(false)),
                Duration.ofSeconds(60), () -> "no process left with " + marker + " on its command line");
    }

    private static String readOrEmpty(Path p) {
        try {
            return Files.exists(p) ? Files.readString(p) : "";
        } catch (java.io.IOException e) {
            return "(cannot read " + p + ": " + e.getMessage() + ")";
        }
    }

    static Class<?> classOf(String name) throws ClassNotFoundException {
        return Class.forName(name);
    }

    /** {@code railyard run} as the CLI runs it, for salloc to start. */
    public static final class RunMain {
        private RunMain() {
        }

        public static void main(String[] args) {
            System.exit(org.railyard.launcher.RunCommand.newCommandLine(System.out, System.err).execute(args));
        }
    }
}
