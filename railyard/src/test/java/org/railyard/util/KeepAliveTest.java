package org.railyard.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import jdk.net.ExtendedSocketOptions;
import org.junit.jupiter.api.Test;

/** railyard.tcp.keepalive: probes that end a silent connection about the bound after its last traffic, else an error naming the setting. */
class KeepAliveTest {
    @Test
    void theBoundIsSplitIntoIdleTimeAndProbesThatEndAboutIt() {
        assertThat(KeepAlive.of(Duration.ZERO)).as("0: no probes").isNull();
        assertThat(KeepAlive.of(Duration.ofSeconds(60))).isEqualTo(new KeepAlive(30, 7, 4));
        assertThat(KeepAlive.of(Duration.ofSeconds(8))).isEqualTo(new KeepAlive(4, 1, 4));
        assertThat(KeepAlive.of(Duration.ofHours(9))).isEqualTo(new KeepAlive(16200, 4050, 4));
        for (long s = 8; s <= 600; s++) {
            KeepAlive k = KeepAlive.of(Duration.ofSeconds(s));
            assertThat(k.idle() + (long) k.interval() * k.count()).as("%d s", s).isBetween(s - KeepAlive.PROBES, s);
        }
        assertThatThrownBy(() -> KeepAlive.of(Duration.ofSeconds(7))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("railyard.tcp.keepalive = 7s").hasMessageContaining("0 turns the probes off");
        assertThatThrownBy(() -> KeepAlive.of(Duration.ofMillis(8500))).hasMessageContaining("whole seconds");
        assertThatThrownBy(() -> KeepAlive.of(Duration.ofSeconds(-10))).hasMessageContaining("railyard.tcp.keepalive");
        assertThatThrownBy(() -> KeepAlive.of(Duration.ofHours(10))).hasMessageContaining("32400 s");
    }

    @Test
    void aConnectionCarriesTheProbesWhetherItHasAChannelOrNot() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             SocketChannel client = SocketChannel.open(server.getLocalAddress());
             SocketChannel accepted = server.accept();
             Socket plain = new Socket(InetAddress.getLoopbackAddress(), ((InetSocketAddress) server.getLocalAddress()).getPort());
             SocketChannel acceptedPlain = server.accept()) {
            KeepAlive.apply(client, null);
            assertThat(client.getOption(StandardSocketOptions.SO_KEEPALIVE)).as("no probes for 0").isFalse();
            KeepAlive.apply(accepted, KeepAlive.of(Duration.ofSeconds(20)));
            assertThat(accepted.getOption(StandardSocketOptions.SO_KEEPALIVE)).isTrue();
            assertThat(accepted.getOption(ExtendedSocketOptions.TCP_KEEPIDLE)).isEqualTo(10);
            assertThat(accepted.getOption(ExtendedSocketOptions.TCP_KEEPINTERVAL)).isEqualTo(2);
            assertThat(accepted.getOption(ExtendedSocketOptions.TCP_KEEPCOUNT)).isEqualTo(4);
            KeepAlive.apply(plain, KeepAlive.of(Duration.ofSeconds(40)));
            assertThat(plain.getOption(StandardSocketOptions.SO_KEEPALIVE)).isTrue();
            assertThat(plain.getOption(ExtendedSocketOptions.TCP_KEEPIDLE)).isEqualTo(20);
            assertThat(plain.getOption(ExtendedSocketOptions.TCP_KEEPCOUNT)).isEqualTo(4);
            assertThat(acceptedPlain.getOption(StandardSocketOptions.SO_KEEPALIVE)).as("the other end is its own").isFalse();
        }
    }
}
