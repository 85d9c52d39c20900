package org.railyard.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.util.List;
import org.railyard.error.RailyardException;
import org.junit.jupiter.api.Test;

class AddressCardTest {

    private static final List<InetSocketAddress> HS = List.of(InetSocketAddress.createUnresolved("10.0.0.1", 4000));

    @Test
    void theSiteTravelsInTheCard() {
        AddressCard card = new AddressCard(3, "n1", 42, HS, List.of("tcp", "shm"), List.of("10.0.0.1/24"), "lyon");
        String text = card.encode();
        assertThat(text).endsWith(";site:lyon");
        assertThat(AddressCard.decode(3, text)).isEqualTo(card);
    }

    @Test
    void aCardWithoutASiteBelongsToTheUnnamedSite() {
        AddressCard card = new AddressCard(1, "n1", 7, HS, List.of("tcp"));
        assertThat(card.encode()).doesNotContain("site:");
        assertThat(AddressCard.decode(1, card.encode()).site()).isEmpty();
        assertThat(AddressCard.decode(1, "node:n1;pid:7;hs:10.0.0.1/4000;tr:tcp").site()).isEmpty();
    }

    @Test
    void aSiteNameThatWouldBreakTheEncodingIsRefusedByName() {
        assertThatThrownBy(() -> new AddressCard(0, "n", 1, HS, List.of(), List.of(), "a;b"))
                .isInstanceOf(RailyardException.class).hasMessageContaining("'a;b'").hasMessageContaining("railyard.site");
    }

    @Test
    void transportEntriesTravelInTheCardAndABadOneIsABootstrapError() {
        AddressCard card = new AddressCard(2, "n1", 9, HS, List.of("tcp", "relay"), List.of(), "",
                java.util.Map.of("relay", "10.0.0.9/7000"));
        assertThat(card.encode()).endsWith(";x.relay:10.0.0.9/7000");
        assertThat(AddressCard.decode(2, card.encode()).entries()).containsEntry("relay", "10.0.0.9/7000");
        assertThatThrownBy(() -> AddressCard.decode(2, "node:n1;pid:9;hs:;tr:tcp;x.Relay:x"))
                .isInstanceOf(RailyardException.class).hasMessageContaining("rank 2").hasMessageContaining("'Relay'")
                .extracting(e -> ((RailyardException) e).errorClass()).isEqualTo(org.railyard.error.ErrorClass.BOOTSTRAP);
    }
}
