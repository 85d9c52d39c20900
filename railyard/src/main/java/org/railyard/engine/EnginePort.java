package org.railyard.engine;

import java.util.concurrent.locks.ReentrantLock;
import org.railyard.channel.LocalMemory;
import org.railyard.engine.comm.CommState;
import org.railyard.engine.request.Transfer;

/**
 * What the ports of the components that post transfers ({@link CollPort}, {@link RmaPort}) pass to
 * the engine alike: each method here is the one of the same name in both services interfaces,
 * handed to the engine as it is. A port adds what its component alone asks for.
 */
abstract class EnginePort {
    final Engine engine;

    EnginePort(Engine engine) {
        this.engine = engine;
    }

    public int rank() {
        return engine.rank();
    }

    public void checkComm(CommState c) {
        engine.checkComm(c);
    }

    public ReentrantLock progressLock() {
        return engine.progressLock();
    }

    public void recycle(Transfer t) {
        engine.recycle(t);
    }

    public String nodeOf(int worldRank) {
        return engine.nodeOf(worldRank);
    }

    public LocalMemory localMemory() {
        return engine.localMemory();
    }

    public void choice(String line) {
        engine.choice(line);
    }
}
