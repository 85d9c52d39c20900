package org.railyard.fuzz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The fuzz harness catches what it promises to catch, and draws the same inputs for the same seed. */
class FuzzTest {

    @Test
    void theCorpusIsReadFromHexAndPlainFiles() {
        List<byte[]> corpus = Fuzz.neverThrowing("self-test", b -> { }).corpus();
        assertThat(corpus).hasSize(2);
        assertThat(corpus.get(0)).containsExactly(1, 2);
        assertThat(corpus.get(1)).containsExactly('t', 'e', 'x', 't');
    }

    @Test
    void anExceptionOtherThanTheCleanOneFailsNamingTheInput() {
        assertThatThrownBy(() -> Fuzz.of("self-test", IOException.class, b -> {
            if (b.length == 4) {
                throw new IllegalStateException("boom");
            }
            throw new IOException("clean");
        }).budget(1, 10).run()).isInstanceOf(AssertionError.class).hasMessageContaining("corpus sample 1")
                .hasMessageContaining("IllegalStateException: boom").hasMessageContaining("74657874");
    }

    @Test
    void aCleanErrorNeedsAMessage() {
        assertThatThrownBy(() -> Fuzz.of("self-test", IOException.class, b -> {
            throw new IOException();
        }).budget(1, 0).run()).isInstanceOf(AssertionError.class).hasMessageContaining("not in a valid result or a clean error");
    }

    @Test
    void anAllocationSizedByWhatTheInputClaimsFails() {
        assertThatThrownBy(() -> Fuzz.neverThrowing("self-test", b -> {
            byte[] claimed = new byte[64 << 20];
            claimed[b.length] = 1;
        }).budget(1, 0).run()).isInstanceOf(AssertionError.class).hasMessageContaining("allocated");
    }

    @Test
    void aDecoderThatDoesNotEndFailsAsAHang() {
        assertThatThrownBy(() -> Fuzz.neverThrowing("self-test", b -> {
            while (!Thread.currentThread().isInterrupted()) {
                Thread.onSpinWait();
            }
        }).timeBound(200).budget(1, 0).run()).isInstanceOf(AssertionError.class).hasMessageContaining("a hang");
    }

    @Test
    void theSameSeedDrawsTheSameInputs() {
        List<byte[]> corpus = List.of(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, new byte[] {9});
        List<String> first = new ArrayList<>();
        List<String> second = new ArrayList<>();
        Random a = new Random(5);
        Random b = new Random(5);
        for (int i = 0; i < 200; i++) {
            first.add(java.util.HexFormat.of().formatHex(Fuzz.next(a, corpus)));
            second.add(java.util.HexFormat.of().formatHex(Fuzz.next(b, corpus)));
        }
        assertThat(first).isEqualTo(second);
        assertThat(new java.util.HashSet<>(first)).as("and they differ from each other").hasSizeGreaterThan(100);
    }

    @Test
    void everyValidInputIsCounted() {
        assertThat(Fuzz.neverThrowing("self-test", b -> { }).budget(1, 50).run()).isEqualTo(52);
    }
}
