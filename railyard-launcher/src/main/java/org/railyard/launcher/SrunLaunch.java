package org.railyard.launcher;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.railyard.util.Config;

/**
 * {@code railyard run} inside a Slurm allocation ({@code SLURM_JOB_ID} set, no {@code --hosts}):
 * the ranks are started by {@code srun --mpi=pmi2} on the allocation's nodes and bootstrap through
 * PMI-2, instead of by this launcher with its key-value server. The launcher says so, runs one
 * {@code srun} under the same watch as its own ranks (the job's timeout, stop on interrupt), and
 * gives each line back its rank from srun's {@code --label} prefix.
 *
 * <p>{@code --kill-on-bad-exit=1}: a task that fails or dies ends the whole step, and srun names
 * it ("task 2: Killed"). The setting {@value #SRUN_PROP} {@code =false} (env
 * {@code RAILYARD_LAUNCHER_SRUN}) keeps the launcher's own way inside an allocation.
 */
final class SrunLaunch {
    /** Setting: false to start ranks as outside an allocation even when SLURM_JOB_ID is set. */
    static final String SRUN_PROP = "railyard.launcher.srun";

    /** srun --label puts "N: " before each line of task N (padded to the width of the largest). */
    private static final Pattern LABEL = Pattern.compile("^\\s*(\\d+): ?(.*)$", Pattern.DOTALL);

    private SrunLaunch() {
    }

    /** True when {@code env} is inside an allocation and the setting does not say otherwise. */
    static boolean applies(JobSpec spec, Map<String, String> env) {
        return spec.hosts().isEmpty() && env.get("SLURM_JOB_ID") != null && Config.bool(SRUN_PROP, true);
    }

    /** The srun command line that starts {@code np} tasks of {@code rankCommand}. */
    static List<String> command(int np, List<String> rankCommand) {
        List<String> c = new ArrayList<>(List.of("srun", "--mpi=pmi2", "--label", "--kill-on-bad-exit=1", "-n",
                Integer.toString(np)));
        c.addAll(rankCommand);
        return c;
    }

    /** Runs the job through srun; lines keep their rank, srun's own messages go to the launcher's. */
    static JobResult run(JobSpec spec, List<String> rankCommand, Map<String, String> env, Map<String, String> launch,
                         LineSink out, LineSink err) {
        err.line(LineSink.LAUNCHER, "railyard run: inside Slurm allocation " + env.get("SLURM_JOB_ID")
                + ": starting " + spec.np() + (spec.np() == 1 ? " rank" : " ranks") + " through srun --mpi=pmi2"
                + " (set RAILYARD_LAUNCHER_SRUN=false to start them here instead)");
        Map<String, String> srunEnv = new java.util.LinkedHashMap<>(spec.env());
        srunEnv.putAll(launch);
        Job job = new Job(List.of(Job.Launch.local(0, command(spec.np(), rankCommand), srunEnv)), spec.timeout(),
                relabel(out), relabel(err));
        JobResult r = job.run();
        String summary = r.ok() ? "every rank exited 0 (srun --mpi=pmi2, " + spec.np() + " tasks)"
                : r.summary().replace("rank 0 (pid", "srun (pid");
        return new JobResult(r.exitCode(), List.of(), summary);
    }

    /** A sink that takes the rank from srun's label; unlabelled lines are srun's own. */
    private static LineSink relabel(LineSink sink) {
        return (rank, line) -> {
            if (rank == LineSink.LAUNCHER) {
                sink.line(rank, line.replace("rank 0 (pid", "srun (pid"));
                return;
            }
            Matcher m = LABEL.matcher(line);
            if (m.matches()) {
                sink.line(Integer.parseInt(m.group(1)), m.group(2));
            } else {
                sink.line(LineSink.LAUNCHER, line);
            }
        };
    }
}
