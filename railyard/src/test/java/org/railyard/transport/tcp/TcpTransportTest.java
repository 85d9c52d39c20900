package org.railyard.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * railyard.tcp.sockbuf: 0 or a size a connection cannot stall on, else an error naming the setting
 * (railyard.tcp.keepalive: util.KeepAliveTest).
 */
class TcpTransportTest {
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
