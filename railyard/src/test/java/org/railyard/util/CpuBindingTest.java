package org.railyard.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** {@code railyard.bind}, applied on threads of their own so the test runner's thread stays unbound. */
class CpuBindingTest {
    @AfterEach
    void clear() {
        System.clearProperty(CpuBinding.PROP);
    }

    /** Runs apply on a new thread; returns its report and the processor count that thread then sees. */
    private static String[] onThread(Map<String, String> env) throws InterruptedException {
        AtomicReference<String> report = new AtomicReference<>();
        AtomicInteger processors = new AtomicInteger();
        Thread t = new Thread(() -> {
            report.set(CpuBinding.apply(env));
            processors.set(Runtime.getRuntime().availableProcessors());
        });
        t.start();
        t.join();
        return new String[] {report.get(), Integer.toString(processors.get())};
    }

    @Test
    void noneNeverBinds() throws InterruptedException {
        System.setProperty(CpuBinding.PROP, "none");
        assertThat(onThread(Map.of("RAILYARD_LOCAL_RANK", "0", "RAILYARD_LOCAL_SIZE", "2"))[0])
                .isEqualTo("not bound to a processor (railyard.bind=none)");
    }

    @Test
    void byDefaultRanksAreBoundOnlyWhenTheyFillTheProcessors() throws InterruptedException {
        assertThat(CpuBinding.DEFAULT).isEqualTo("full");
        assertThat(CpuBinding.unfit("full", 2, 2)).isNull();
        assertThat(CpuBinding.unfit("full", 64, 64)).isNull();
        assertThat(CpuBinding.unfit("full", 2, 4)).isEqualTo(
                "2 ranks on this node, 4 processors allowed: railyard.bind=full binds only ranks that fill the processors");
        assertThat(CpuBinding.unfit("full", 4, 2)).startsWith("4 ranks on this node, 2 processors allowed");
        assertThat(CpuBinding.unfit("auto", 2, 4)).isNull();
        assertThat(CpuBinding.unfit("auto", 3, 2)).isEqualTo("3 ranks on this node share 2 processors");
        assertThat(CpuBinding.unfit("core", 3, 2)).isNull();
        assertThat(onThread(Map.of("RAILYARD_LOCAL_RANK", "0", "RAILYARD_LOCAL_SIZE", "1"))[0])
                .isEqualTo("not bound to a processor (the only rank on its node)");
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void coreBindsTheThreadToOneProcessor() throws InterruptedException {
        System.setProperty(CpuBinding.PROP, "core");
        int all = Runtime.getRuntime().availableProcessors();
        String[] r = onThread(Map.of("RAILYARD_LOCAL_RANK", "1", "RAILYARD_LOCAL_SIZE", "2"));
        assertThat(r[0]).startsWith("bound to processor ").contains("rank 1 of 2 on this node");
        assertThat(r[1]).isEqualTo("1");
        // the runner's thread is untouched
        assertThat(Runtime.getRuntime().availableProcessors()).isEqualTo(all);
    }

    @Test
    void autoLeavesALoneRankAndAnUnknownPositionUnbound() throws InterruptedException {
        System.setProperty(CpuBinding.PROP, "auto");
        assertThat(onThread(Map.of("RAILYARD_LOCAL_RANK", "0", "RAILYARD_LOCAL_SIZE", "1"))[0])
                .isEqualTo("not bound to a processor (the only rank on its node)");
        assertThat(onThread(Map.of())[0]).isEqualTo("not bound to a processor (position on the node unknown)");
        assertThat(onThread(Map.of("MPI_LOCALRANKID", "3", "MPI_LOCALNRANKS", "2"))[0])
                .isEqualTo("not bound to a processor (position on the node unknown)");
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void autoDoesNotBindMoreRanksThanProcessors() throws InterruptedException {
        System.setProperty(CpuBinding.PROP, "auto");
        int many = Runtime.getRuntime().availableProcessors() + 1;
        assertThat(onThread(Map.of("MPI_LOCALRANKID", "0", "MPI_LOCALNRANKS", Integer.toString(many)))[0])
                .startsWith("not bound to a processor (" + many + " ranks on this node share ");
    }

    @Test
    void aWrongModeIsNamed() {
        System.setProperty(CpuBinding.PROP, "socket");
        assertThatThrownBy(() -> CpuBinding.apply(Map.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("railyard.bind must be full, auto, core or none, got 'socket'");
    }
}
