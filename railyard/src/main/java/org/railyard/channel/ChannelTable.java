package org.railyard.channel;

import java.util.function.Consumer;
import org.railyard.transport.Connector;

/**
 * The virtual channels of a process, one per peer, created on first use (a job of thousands of
 * ranks opens only the connections its program needs). {@link #progress()} is the channel floor's
 * share of the progress agent's duty cycle: new links in, frames up, frames out.
 */
public final class ChannelTable {
    private final int rank;
    private final VirtualChannel[] channels;
    private final VirtualChannel[] active;
    private int activeCount;
    private final Connector connector;
    private final FrameSink sink;
    private final long connectTimeoutNanos;
    private final Consumer<String> choices;
    private final Consumer<String> log;
    private int ticks;

    /**
     * @param choices where to print each choice made (transport per peer), or null
     * @param log where to report broken links
     */
    public ChannelTable(int rank, int size, Connector connector, FrameSink sink, long connectTimeoutNanos,
                        Consumer<String> choices, Consumer<String> log) {
        this.rank = rank;
        this.channels = new VirtualChannel[size];
        this.active = new VirtualChannel[size];
        this.connector = connector;
        this.sink = sink;
        this.connectTimeoutNanos = connectTimeoutNanos;
        this.choices = choices;
        this.log = log;
    }

    /** The channel to {@code peer}, created (not yet connected) on first call. */
    public VirtualChannel channel(int peer) {
        VirtualChannel c = channels[peer];
        if (c == null) {
            c = new VirtualChannel(this, peer);
            channels[peer] = c;
            active[activeCount++] = c;
        }
        return c;
    }

    /** The channel to {@code peer} if one exists, else null. */
    public VirtualChannel existing(int peer) {
        return channels[peer];
    }

    /** One duty cycle; returns the amount of work done (0 when idle). */
    public int progress() {
        int work = 0;
        Connector.Event e;
        while ((e = connector.poll()) != null) {
            VirtualChannel c = channel(e.peer());
            if (e.link() != null) {
                c.attach(e.link());
            } else {
                c.connectFailed(e.error());
            }
            work++;
        }
        for (int i = 0; i < activeCount; i++) {
            VirtualChannel c = active[i];
            work += c.progressReceive();
            work += c.progressSend();
        }
        if ((++ticks & 1023) == 0) {
            long now = System.nanoTime();
            for (int i = 0; i < activeCount; i++) {
                active[i].checkDeadline(now);
            }
        }
        return work;
    }

    /** True when no channel has anything left to send. */
    public boolean allSent() {
        for (int i = 0; i < activeCount; i++) {
            VirtualChannel c = active[i];
            if (c.state() == VirtualChannel.State.UP && !c.idle()) {
                return false;
            }
            if (c.state() == VirtualChannel.State.CONNECTING && !c.idle()) {
                return false;
            }
        }
        return true;
    }

    /** Queues a goodbye on every open channel. */
    public void sayGoodbye() {
        for (int i = 0; i < activeCount; i++) {
            active[i].sendBye();
        }
    }

    /** Closes every rail. */
    public void closeAll() {
        for (int i = 0; i < activeCount; i++) {
            active[i].closeRails();
        }
        connector.close();
    }

    /** Every channel's description, for {@code --print-choices} and diagnostics. */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < activeCount; i++) {
            VirtualChannel c = active[i];
            sb.append("  rank ").append(rank).append(" -> rank ").append(c.peer()).append(": ").append(c.state());
            for (Rail r : c.rails()) {
                sb.append("\n    rail: ").append(r);
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    int rank() {
        return rank;
    }

    Connector connector() {
        return connector;
    }

    FrameSink sink() {
        return sink;
    }

    long connectTimeoutNanos() {
        return connectTimeoutNanos;
    }

    void printChoice(String s) {
        if (choices != null) {
            choices.accept(s);
        }
    }

    void log(String s) {
        log.accept(s);
    }
}
