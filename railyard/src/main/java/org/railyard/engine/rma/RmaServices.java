package org.railyard.engine.rma;

/** The engine as one-sided communication sees it; implemented by the engine's RmaPort. */
public interface RmaServices {
    int rank();
}
