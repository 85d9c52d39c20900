package org.railyard.transport;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import org.railyard.bootstrap.AddressCard;

/**
 * A transport whose links the connector's handshake never makes: a loopback link
 * ({@link Transport#loopback}) or a link through an intermediary ({@link Transport#join}). Its
 * handshake methods refuse, naming the transport, should a card ever propose it; there is nothing
 * to release on {@link #abandon}.
 */
public interface HandshakeFree extends Transport {
    @Override
    default String offer(int peer, AddressCard peerCard) throws IOException {
        throw refusal();
    }

    @Override
    default Link complete(int peer, String parameters, int maxFrame, SocketChannel handshake) throws IOException {
        throw refusal();
    }

    @Override
    default void abandon(int peer, String parameters) {
    }

    @Override
    default Link accept(int peer, String parameters, SocketChannel handshake) throws IOException {
        throw refusal();
    }

    private IOException refusal() {
        return new IOException("transport " + name() + " makes no link through a handshake");
    }
}
