package org.railyard.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The composer follows seed 000, Table I (Ethernet columns). */
class ComposerTest {
    private static List<String> c(Scheme s, Locality l, boolean reliable) {
        return Composer.composition(new Context(s, l, reliable));
    }

    @Test
    void compositionsPerContextAreThoseOfTableOne() {
        for (Locality l : Locality.values()) {
            assertThat(c(Scheme.SYNC, l, true)).containsExactly("Synchronous", "Resize", "TransportDrive");
            assertThat(c(Scheme.ASYNC, l, true)).containsExactly("Asynchronous", "Resize", "TransportDrive");
        }
        for (Locality l : List.of(Locality.SAME_NODE, Locality.SAME_SITE)) {
            assertThat(c(Scheme.SYNC, l, false)).containsExactly("Synchronous", "Resize", "SequencedSegment",
                    "ReliableFIFO", "PositiveAck", "Retransmit", "RTTEstimation", "TransportDrive");
            assertThat(c(Scheme.ASYNC, l, false)).containsExactly("Asynchronous", "Resize", "TransportDrive");
        }
        assertThat(c(Scheme.SYNC, Locality.OTHER_SITE, false)).containsExactly("Synchronous", "Resize",
                "SequencedSegment", "ReliableFIFO", "PositiveAck", "WindCongCtrl", "TCPNewRenoCA", "DuplicateAck",
                "Retransmit", "RTTEstimation", "TransportDrive");
        assertThat(c(Scheme.ASYNC, Locality.OTHER_SITE, false)).containsExactly("Asynchronous", "Resize",
                "DCCPWindCCtrl", "TCPCongAvoid", "DCCPAck", "TransportDrive");
    }

    @Test
    void everyNameIsAProtocolWhoseNameIsThatName() {
        List<String> all = List.of("Synchronous", "Asynchronous", "Resize", "SequencedSegment", "ReliableFIFO",
                "PositiveAck", "WindCongCtrl", "TCPNewRenoCA", "DuplicateAck", "Retransmit", "RTTEstimation",
                "DCCPWindCCtrl", "TCPCongAvoid", "DCCPAck", "TransportDrive");
        for (String n : all) {
            assertThat(Composer.instantiate(List.of(n)).getFirst().name()).isEqualTo(n);
        }
        assertThat(Composer.NAMES).containsExactlyElementsOf(all);
        assertThat(Composer.table()).contains("other-site, unreliable transport", "DCCPAck");
    }

    @Test
    void anUnknownNameIsAnErrorNamingItAndTheKnownOnes() {
        assertThatThrownBy(() -> Composer.instantiate(List.of("Resize", "Nagle")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no micro-protocol named Nagle; known: " + Composer.NAMES);
    }
}
