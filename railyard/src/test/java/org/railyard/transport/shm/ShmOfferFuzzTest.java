package org.railyard.transport.shm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.railyard.bootstrap.AddressCard;
import org.railyard.fuzz.Fuzz;
import org.railyard.transport.Link;
import org.railyard.transport.TransportEnv;

/**
 * The acceptor's side of an shm offer (file, ring bytes, frame bytes) over arbitrary text: a real
 * file offered by the same plugin, mapped when the offer is sound; refused with an
 * {@link IOException} naming what was wrong otherwise. In the corpus ({@code fuzz/shm-offer})
 * {@code @FILE@}, {@code RING} and {@code FRAME} stand for the offered file and its geometry.
 */
class ShmOfferFuzzTest {

    @Test
    void anOfferIsMappedOrRefusedWithAReason() throws IOException {
        ShmTransport shm = new ShmTransport();
        assertThat(shm.start(new TransportEnv(0, 2, "fuzz-" + ProcessHandle.current().pid(), "node-a"))).isTrue();
        AddressCard peer = new AddressCard(1, "node-a", 1, List.of(), List.of("shm"));
        String offer = shm.offer(1, peer);
        String[] f = offer.split("\\|");
        try {
            Fuzz fuzz = Fuzz.of("shm-offer", IOException.class, input -> {
                String params = new String(input, StandardCharsets.UTF_8).replace("@FILE@", f[0]).replace("RING", f[1])
                        .replace("FRAME", f[2]);
                Link link = shm.accept(1, params, null);
                try {
                    assertThat(link.maxFrame()).as("the offer's frame limit, which the ring holds")
                            .isEqualTo(Integer.parseInt(params.split("\\|")[2])).isBetween(64, Integer.parseInt(f[1]) / 4);
                } finally {
                    link.close();
                }
            }).budget(31, 1000);
            assertThat(fuzz.run()).as("offers mapped").isBetween(1, 500);
        } finally {
            shm.abandon(1, offer);
        }
    }
}
