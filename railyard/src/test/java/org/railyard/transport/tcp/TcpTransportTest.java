package org.railyard.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import jdk.net.ExtendedSocketOptions;
import org.junit.jupiter.api.Test;

/**
 * railyard.tcp.sockbuf: 0 or a size a connection cannot stall on; railyard.tcp.keepalive: probes
 * that end a silent connection about the bound after its last traffic. Else an error naming the
 * setting.
 */
class TcpTransportTest {
    @Test
    void theKeepaliveBoundIsSplitIntoIdleTimeAndProbesThatEndAboutIt() {
        assertThat(TcpTransport.keepAlive(Duration.ZERO)).as("0: no probes").isNull();
        assertThat(TcpTransport.keepAlive(Duration.ofSeconds(60))).isEqualTo(new TcpTransport.KeepAlive(30, 7, 4));
        assertThat(TcpTransport.keepAlive(Duration.ofSeconds(8))).isEqualTo(new TcpTransport.KeepAlive(4, 1, 4));
        assertThat(TcpTransport.keepAlive(Duration.ofHours(9))).isEqualTo(new TcpTransport.KeepAlive(16200, 4050, 4));
        for (long s = 8; s <= 600; s++) {
            TcpTransport.KeepAlive k = TcpTransport.keepAlive(Duration.ofSeconds(s));
            assertThat(k.idle() + (long) k.interval() * k.count()).as("%d s", s).isBetween(s - TcpTransport.KEEPALIVE_PROBES, s);
        }
        assertThatThrownBy(() -> TcpTransport.keepAlive(Duration.ofSeconds(7))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("railyard.tcp.keepalive = PT7S").hasMessageContaining("0 turns the probes off");
        assertThatThrownBy(() -> TcpTransport.keepAlive(Duration.ofMillis(8500))).hasMessageContaining("whole seconds");
        assertThatThrownBy(() -> TcpTransport.keepAlive(Duration.ofSeconds(-10))).hasMessageContaining("railyard.tcp.keepalive");
        assertThatThrownBy(() -> TcpTransport.keepAlive(Duration.ofHours(10))).hasMessageContaining("32400 s");
    }

    @Test
    void aDataConnectionCarriesTheProbesOfTheSetting() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             SocketChannel client = SocketChannel.open(server.getLocalAddress());
             SocketChannel accepted = server.accept()) {
            TcpTransport.applyKeepAlive(client, null);
            assertThat(client.getOption(StandardSocketOptions.SO_KEEPALIVE)).as("no probes for 0").isFalse();
            TcpTransport.applyKeepAlive(accepted, TcpTransport.keepAlive(Duration.ofSeconds(20)));
            assertThat(accepted.getOption(StandardSocketOptions.SO_KEEPALIVE)).isTrue();
            assertThat(accepted.getOption(ExtendedSocketOptions.TCP_KEEPIDLE)).isEqualTo(10);
            assertThat(accepted.getOption(ExtendedSocketOptions.TCP_KEEPINTERVAL)).isEqualTo(2);
            assertThat(accepted.getOption(ExtendedSocketOptions.TCP_KEEPCOUNT)).isEqualTo(4);
        }
    }

    @Test
    void aSocketBufferBelowOneSegmentIsRefusedNamingTheSetting() {
        assertThat(TcpTransport.sockbuf(0)).as("the kernel's sizes").isZero();
        assertThat(TcpTransport.sockbuf(4L << 20)).isEqualTo(4 << 20);
        assertThat(TcpTransport.sockbuf(TcpTransport.MIN_SOCKBUF)).isEqualTo(TcpTransport.MIN_SOCKBUF);
        assertThatThrownBy(() -> TcpTransport.sockbuf(8192)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("railyard.tcp.sockbuf = 8192").hasMessageContaining("0 leaves the kernel's sizes");
        assertThatThrownBy(() -> TcpTransport.sockbuf(-1)).hasMessageContaining("railyard.tcp.sockbuf = -1");
        assertThatThrownBy(() -> TcpTransport.sockbuf(4L << 30)).hasMessageContaining("is outside");
    }
}
