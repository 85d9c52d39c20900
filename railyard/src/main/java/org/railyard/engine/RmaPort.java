package org.railyard.engine;

import org.railyard.engine.rma.RmaServices;

/** The engine as one-sided communication sees it: {@link RmaServices}, each call passed to the engine. */
final class RmaPort implements RmaServices {
    private final Engine engine;

    RmaPort(Engine engine) {
        this.engine = engine;
    }

    @Override
    public int rank() {
        return engine.rank();
    }
}
