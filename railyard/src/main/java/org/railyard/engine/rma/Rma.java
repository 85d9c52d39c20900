package org.railyard.engine.rma;

import org.railyard.engine.comm.CommState;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/** One-sided communication of one process: its windows, served by the engine's progress. API stage. */
public final class Rma {
    public Rma(RmaServices services) {
    }

    public RmaWindow create(CommState c, Object buffer, int dispUnit) {
        throw new RailyardException(ErrorClass.INTERNAL, "one-sided communication is not built yet");
    }

    public RmaWindow allocate(CommState c, long bytes, int dispUnit, boolean shared) {
        throw new RailyardException(ErrorClass.INTERNAL, "one-sided communication is not built yet");
    }

    public RmaWindow createDynamic(CommState c) {
        throw new RailyardException(ErrorClass.INTERNAL, "one-sided communication is not built yet");
    }

    /** Serves the windows' incoming operations; called in every duty cycle under the progress lock. */
    public int progress() {
        return 0;
    }
}
