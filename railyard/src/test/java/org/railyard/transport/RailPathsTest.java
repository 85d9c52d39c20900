package org.railyard.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.railyard.bootstrap.AddressCard;

/** Paths found from two address cards: same subnet only, allowed networks only, numbered alike at both ends. */
class RailPathsTest {
    private static AddressCard card(int rank, String node, List<String> nets) {
        return new AddressCard(rank, node, 1, List.of(InetSocketAddress.createUnresolved("127.0.0.1", 4000 + rank),
                InetSocketAddress.createUnresolved(nets.isEmpty() ? "10.9.9.9" : nets.getFirst().split("/")[0], 4000 + rank)),
                List.of("tcp"), nets);
    }

    private static List<String> names(List<RailPaths.Path> p) {
        return p.stream().map(RailPaths.Path::name).toList();
    }

    @Test
    void pathsPairAddressesOfOneSubnetInAddressOrderAndBothEndsNumberThemAlike() {
        AddressCard a = card(0, "h0", List.of("10.250.0.2/24", "10.2.0.1/24", "10.1.0.1/24", "192.168.5.1/16"));
        AddressCard b = card(1, "h1", List.of("10.2.0.2/24", "10.1.0.2/24", "10.250.1.2/24", "172.16.0.1/12"));
        List<RailPaths.Path> fromA = RailPaths.between(a, b, List.of());
        List<RailPaths.Path> fromB = RailPaths.between(b, a, List.of());
        assertThat(names(fromA)).containsExactly("10.1.0.1 -> 10.1.0.2", "10.2.0.1 -> 10.2.0.2");
        assertThat(names(fromB)).containsExactly("10.1.0.2 -> 10.1.0.1", "10.2.0.2 -> 10.2.0.1");
        assertThat(fromA.getFirst().remote().getPort()).isEqualTo(4001);
        assertThat(fromA.getFirst().local().getHostAddress()).isEqualTo("10.1.0.1");
    }

    @Test
    void railNetsKeepAManagementNetworkOut() {
        AddressCard a = card(0, "h0", List.of("10.250.0.2/16", "10.1.0.1/24"));
        AddressCard b = card(1, "h1", List.of("10.250.1.2/16", "10.1.0.2/24"));
        assertThat(names(RailPaths.between(a, b, List.of()))).containsExactly("10.1.0.1 -> 10.1.0.2", "10.250.0.2 -> 10.250.1.2");
        assertThat(names(RailPaths.between(a, b, RailPaths.parseNets("10.1.0.0/16")))).containsExactly("10.1.0.1 -> 10.1.0.2");
    }

    @Test
    void processesOfOneNodeUseTheLoopbackAndStrangersAnyRoute() {
        AddressCard a = card(0, "same", List.of("10.1.0.1/24"));
        AddressCard b = card(1, "same", List.of("10.1.0.1/24"));
        assertThat(names(RailPaths.between(a, b, List.of()))).containsExactly("loopback");
        AddressCard c = card(2, "far", List.of("10.7.0.1/24"));
        assertThat(names(RailPaths.between(a, c, List.of()))).containsExactly(RailPaths.ANY_ROUTE);
    }

    @Test
    void processesOfOneMachineUseTheLoopbackWhateverTheirNodeNames() {
        // nodes named apart on one machine (tests, site labs): an interface address they would dial
        // may belong to something else on the machine and go away; the loopback stays
        AddressCard a = withMachine(card(0, "n0", List.of("10.237.176.21/30")), "host.1234abcd.net4026531840");
        AddressCard b = withMachine(card(1, "n1", List.of("10.237.176.21/30")), "host.1234abcd.net4026531840");
        assertThat(a.sameMachine(b)).isTrue();
        assertThat(names(RailPaths.between(a, b, List.of()))).containsExactly("loopback");
        AddressCard c = withMachine(card(2, "n2", List.of("10.237.176.21/30")), "host.1234abcd.net4026532999");
        assertThat(a.sameMachine(c)).as("another network namespace").isFalse();
        assertThat(names(RailPaths.between(a, c, List.of()))).containsExactly(RailPaths.ANY_ROUTE);
        assertThat(card(3, "n3", List.of()).sameMachine(card(4, "n4", List.of()))).as("cards without the entry").isFalse();
        assertThat(AddressCard.decode(0, a.encode()).sameMachine(b)).as("through the bootstrap").isTrue();
    }

    private static AddressCard withMachine(AddressCard c, String machine) {
        return new AddressCard(c.rank(), c.node(), c.pid(), c.handshake(), c.transports(), c.nets(), c.site(),
                java.util.Map.of(AddressCard.MACHINE, machine));
    }

    @Test
    void aMalformedNetworkIsNamed() {
        assertThatThrownBy(() -> RailPaths.parseNets("10.1.0.0/16, 10.2.0.0")).hasMessageContaining("'10.2.0.0'");
        assertThatThrownBy(() -> RailPaths.parseNets("10.1.0.0/33")).hasMessageContaining("prefix");
        assertThatThrownBy(() -> RailPaths.parseNets("10.1.300.0/24")).hasMessageContaining("IPv4");
    }

    @Test
    void cardsCarryTheirInterfacesAndOldCardsStillDecode() {
        AddressCard a = card(0, "h0", List.of("10.1.0.1/24", "10.2.0.1/24"));
        assertThat(AddressCard.decode(0, a.encode())).isEqualTo(a);
        AddressCard old = AddressCard.decode(3, "node:x;pid:5;hs:127.0.0.1/7;tr:tcp");
        assertThat(old.nets()).isEmpty();
    }
}
