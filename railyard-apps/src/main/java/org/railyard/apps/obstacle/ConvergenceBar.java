package org.railyard.apps.obstacle;

import java.io.PrintStream;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.DelegatingProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarConsumer;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * A progress bar on standard error that follows a solve. The iteration count alone says little (the
 * solver stops on the residual), so progress is the larger of two fractions: how far the residual
 * has come from its first value towards the tolerance on a log scale (it falls geometrically, so
 * that scale moves at a steady pace), and the share of the iteration budget used.
 *
 * <p>On a terminal the bar redraws in place; otherwise (output piped, or forwarded by
 * {@code railyard run}) it prints one line per second, since a bar that redraws with carriage
 * returns would reach a log as one endless line.
 */
final class ConvergenceBar implements ProgressListener, AutoCloseable {
    private static final int SCALE = 1000;
    private static final int LOG_WIDTH = 100;
    private static final long MESSAGE_EVERY_NANOS = 200_000_000L;

    private final ProgressBar bar;
    private final double logTolerance;
    private final int maxIterations;
    private double logFirst = Double.NaN;
    private long shown;
    private long lastMessage;

    ConvergenceBar(String task, double tolerance, int maxIterations, PrintStream out) {
        this.logTolerance = Math.log(tolerance);
        this.maxIterations = maxIterations;
        boolean terminal = System.console() != null && System.console().isTerminal();
        // On a terminal the library sizes the bar to its width; elsewhere an explicit width keeps it
        // from probing for a terminal that is not there.
        ProgressBarConsumer consumer = terminal
                ? new ConsoleProgressBarConsumer(out)
                : new DelegatingProgressBarConsumer(out::println, LOG_WIDTH);
        this.bar = new ProgressBarBuilder()
                .setTaskName(task)
                .setInitialMax(SCALE)
                .setConsumer(consumer)
                .setUpdateIntervalMillis(terminal ? 200 : 1000)
                // Colour codes are noise in a log.
                .setStyle(terminal ? ProgressBarStyle.COLORFUL_UNICODE_BLOCK : ProgressBarStyle.ASCII)
                .hideEta()
                .build();
    }

    @Override
    public void onCheck(int iteration, double residual) {
        double logResidual = Math.log(residual);
        if (Double.isNaN(logFirst) && Double.isFinite(logResidual)) {
            logFirst = logResidual;
        }
        double byResidual = logFirst > logTolerance ? (logFirst - logResidual) / (logFirst - logTolerance) : 0.0;
        double byIterations = (double) iteration / maxIterations;
        long step = (long) (SCALE * Math.min(1.0, Math.max(byResidual, byIterations)));
        if (step > shown) {
            // Never move backwards: the residual may rise for a few iterations as the contact set changes.
            shown = step;
            bar.stepTo(step);
        }
        long now = System.nanoTime();
        if (now - lastMessage >= MESSAGE_EVERY_NANOS) {
            // Formatting allocates, so it happens a few times a second, not every iteration.
            lastMessage = now;
            bar.setExtraMessage(String.format("it %d  res %.2e", iteration, residual));
        }
    }

    /** Marks the solve finished with its last residual, and removes the bar's refresh thread. */
    void finish(SolveResult result) {
        if (result.converged()) {
            bar.stepTo(SCALE);
        }
        bar.setExtraMessage(String.format("it %d  res %.2e", result.iterations(), result.residual()));
    }

    @Override
    public void close() {
        bar.close();
    }
}
