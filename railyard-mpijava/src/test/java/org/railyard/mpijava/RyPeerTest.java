package org.railyard.mpijava;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mpiJava peer benchmark {@code bench/peers/mpijava/RyPeer.java}, unchanged, on Railyard:
 * compiled against this module, and, where MPJ Express is installed, compiled against MPJ
 * Express's own jar and run on Railyard (only the jar on the class path changes).
 */
@Timeout(300)
class RyPeerTest {
    private static final Path SOURCE = Path.of("../bench/peers/mpijava/RyPeer.java");
    private static final Path MPJ_JAR = Path.of("/usr/share/mpj/lib/mpj.jar");
    private static final String[] SMALL = {"latency,bw,bibw,allreduce", "--sizes", "8,64k", "--iters", "40", "--window", "8",
        "--no-jit-warmup"};

    @TempDir
    Path work;

    private static void checkReport(MpiJob.Output o) {
        assertThat(o.result().exitCode()).as(o.report()).isZero();
        List<String> lines = o.of(0);
        assertThat(lines.get(0)).startsWith("benchmark\ttransport\tnp\tbytes");
        for (String bench : List.of("latency", "bw", "bibw")) {
            for (String bytes : List.of("8", "65536")) {
                assertThat(lines).as(o.report()).anyMatch(l -> l.startsWith(bench + "\tmpijava\t2\t" + bytes + "\t"));
            }
        }
        assertThat(lines).anyMatch(l -> l.startsWith("allreduce\tmpijava\t2\t65536\t"));
        assertThat(o.of(1)).as("rank 1 prints nothing").isEmpty();
    }

    @Test
    void compiledAgainstThisModule() throws IOException {
        assumeTrue(Files.isRegularFile(SOURCE), "bench/peers/mpijava/RyPeer.java is part of the source tree");
        Path jar = JavaSources.compileToJar(List.of(SOURCE), JavaSources.facadeClasspath(), work, "rypeer");
        checkReport(MpiJob.run(2, List.of(jar.toString()), "RyPeer", SMALL));
    }

    @Test
    void compiledAgainstMpjExpressRunsOnRailyard() throws IOException {
        assumeTrue(Files.isRegularFile(SOURCE), "bench/peers/mpijava/RyPeer.java is part of the source tree");
        assumeTrue(Files.isRegularFile(MPJ_JAR), "MPJ Express (Debian's libmpj-java) is not installed");
        Path jar = JavaSources.compileToJar(List.of(SOURCE), MPJ_JAR.toString(), work, "rypeer-mpj");
        checkReport(MpiJob.run(2, List.of(jar.toString()), "RyPeer", SMALL));
    }
}
