package org.railyard.channel;

/**
 * Decides which rail of a virtual channel carries the next frame. With one rail the answer is
 * always that rail ({@link #BINDING}); the multi-rail policies (round robin, striping, adaptive)
 * plug in here, and a policy's name is what {@code --print-choices} shows.
 */
public interface RailPolicy {
    /** Short name for printing. */
    String name();

    /**
     * Index of the rail in {@code rails} (all up) for the next frame of {@code frameLength} bytes.
     */
    int select(Rail[] rails, int railCount, int frameLength);

    /** Every frame on the first rail that is up. */
    RailPolicy BINDING = new RailPolicy() {
        @Override
        public String name() {
            return "binding";
        }

        @Override
        public int select(Rail[] rails, int railCount, int frameLength) {
            return 0;
        }
    };
}
