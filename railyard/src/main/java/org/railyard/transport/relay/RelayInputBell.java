package org.railyard.transport.relay;

import java.util.function.IntSupplier;
import org.railyard.transport.Bell;

/**
 * The relay transport's input bell ({@link org.railyard.transport.Transport#inputBell}): a
 * waiting thread sleeps on the readiness of this rank's receiving connection, so the kernel
 * wakes exactly that thread when the owner relay writes a DELIVER, and the waiter leaves the
 * processor to the relay meanwhile (on a node where the ranks and the relay share few
 * processors, a rank that polls holds the one the relay needs to forward what it waits for).
 *
 * <p>Input on the receiving connection ends the sleep, and {@link #wakeSleepers}: a thread that
 * did work, a STORED read by a port's thread, a link failed. A rank back-pressured by a sending
 * port (its frames wait for STOREDs, which come on that port's connection) sleeps on both
 * connections: the STOREDs that free its room end the sleep as a DELIVER does, and its next look
 * reads them (a port's own reader thread takes them only after the rank stopped looking for a
 * while, so a sleep on the receiving connection alone would outlast them). One thread sleeps at a
 * time; the others park. The sleep is bounded by the caller's interval, rounded up to whole
 * milliseconds.
 */
final class RelayInputBell implements Bell {
    private final RelayTransport transport;

    RelayInputBell(RelayTransport transport) {
        this.transport = transport;
    }

    @Override
    public boolean usable() {
        RelayReceiver r = receiver();
        return r != null && r.broken() == null;
    }

    @Override
    public boolean enabled() {
        return true;
    }

    @Override
    public boolean sleep(long nanos, IntSupplier lastLook) {
        RelayReceiver r = receiver();
        if (r == null) {
            return false;
        }
        RelayPort pressed = transport.pressedPort();
        if (pressed == null) {
            return r.sleepUntilReadable(nanos, lastLook, transport::backPressured, null);
        }
        RelayReceiver stored = pressed.receiver();
        if (stored == null) {
            return false; // between two connections of that port: park
        }
        // pressed by another port after the last look: its STOREDs would not end this sleep
        return r.sleepUntilReadable(nanos, lastLook, () -> {
            RelayPort p = transport.pressedPort();
            return p != null && p != pressed;
        }, stored == r ? null : stored);
    }

    @Override
    public void wakeSleepers() {
        RelayReceiver r = receiver();
        if (r != null) {
            r.wakeSleeper();
        }
    }

    @Override
    public long wakes() {
        RelayReceiver r = receiver();
        return r == null ? 0 : r.sleepWakes();
    }

    private RelayReceiver receiver() {
        RelayPort p = transport.receivingPort();
        return p == null ? null : p.receiver();
    }
}
