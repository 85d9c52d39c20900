package org.railyard.channel;

/**
 * Enhanced point-to-point and collective, EPC (seed 002 sec. 6.2): the policy follows the
 * communication pattern the engine marks on each message. Large data of a blocking point-to-point
 * send is striped evenly over every rail (only one message is outstanding, so it should use them
 * all); large data of a non-blocking send goes whole, round robin (several are outstanding, and
 * whole messages avoid the striping overhead); large data of a collective is striped again (a
 * collective step has too few messages in flight to fill the rails otherwise). Small messages of a
 * non-blocking send go round robin, the others on the first rail.
 */
final class EpcPolicy implements RailPolicy {
    private final RoundRobinPolicy roundRobin = new RoundRobinPolicy(1);

    @Override
    public String name() {
        return "epc";
    }

    @Override
    public int select(Rail[] live, int count, long bytes, int pattern, boolean bulk) {
        return pattern == Outbound.NONBLOCKING ? roundRobin.select(live, count, bytes, pattern, bulk) : 0;
    }

    @Override
    public boolean stripes(int pattern) {
        return pattern != Outbound.NONBLOCKING;
    }

    @Override
    public void plan(Rail[] live, int count, long bytes, long[] share) {
        Stripes.evenly(count, bytes, share);
    }
}
