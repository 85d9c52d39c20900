package org.railyard.channel;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.railyard.bootstrap.AddressCard;
import org.railyard.bootstrap.Bootstrap;
import org.railyard.bootstrap.StartupTiming;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.stack.Composer;
import org.railyard.stats.RailStats;
import org.railyard.stats.Stats;
import org.railyard.stats.StatsGroup;
import org.railyard.transport.Capability;
import org.railyard.transport.Connector;
import org.railyard.transport.Bell;
import org.railyard.transport.LinkSource;
import org.railyard.transport.ReplayLog;
import org.railyard.transport.Transport;
import org.railyard.transport.TransportEnv;
import org.railyard.util.Config;
import org.railyard.util.IdlePlan;

/**
 * The virtual channels of a process, one per peer, created on first use (a job of thousands of
 * ranks opens only the connections its program needs). {@link #progress()} is the channel floor's
 * share of the progress agent's duty cycle: new links in, frames up, frames out, and about every
 * millisecond the timed work of multi-rail channels (acknowledgements, heartbeats, silent rails,
 * reconnections) and every {@link Stats#SAMPLE_NANOS} a sample of every rail's counters.
 */
public final class ChannelTable {
    /** Period of the timed work of multi-rail channels. */
    static final long TICK_NANOS = 1_000_000L;

    private final int rank;
    private final VirtualChannel[] channels;
    private final VirtualChannel[] active;
    private int activeCount;
    private final LinkSource links;
    private final FrameSink sink;
    private final long connectTimeoutNanos;
    private final Consumer<String> choices;
    private final Consumer<String> log;
    private final RailSettings settings;
    private final LongSupplier clock;
    private final StatsGroup stats;
    private int reliableChannels;
    private int ticks;
    private long nextTick;
    private long nextSample;
    private String node;
    private List<String> transportNames = List.of();
    private Replay replay;
    private LocalMemory localMemory;
    private int minFrame = Integer.MAX_VALUE;
    private Map<Integer, AddressCard> cards;
    private Bootstrap bootstrap;
    /** The node index of every world rank as the process manager planned it, or null (see {@link #nodeOf}). */
    private int[] plannedNodes;
    private boolean allCardsRead;
    private Bell doorbell = Bell.NONE;
    private Bell inputBell = Bell.NONE;
    /** True once the waiters sleep on the input bell ({@link #sleepOnInput}). */
    private boolean onInput;

    /**
     * Opens the channel floor of this process: loads the transport plugins ({@link ServiceLoader}),
     * keeps those {@code railyard.transports} allows (self always), starts them, binds the handshake
     * listener, and publishes this process's address card through the bootstrap (then fences, so
     * every card can be read). No connection is opened here.
     */
    /** Longest default bound on opening a connection, however crowded the node ({@link #connectBound}). */
    static final Duration CONNECT_BOUND_MAX = Duration.ofMinutes(10);

    /**
     * The default bound on opening a connection ({@code railyard.connect.timeout} unset) when
     * {@code ranks} ranks share {@code processors} processors: {@code base} while every rank has a
     * processor; with more ranks than processors, {@code base} times the ranks per processor
     * (rounded up), at most {@link #CONNECT_BOUND_MAX}. Rule: the handshake of a peer's cold JVM
     * needs some processor time, and a rank that gets a k-th of a processor takes about k times as
     * long to give it; a live but crowded peer must not be declared failed for that. A dead peer is
     * still found sooner: its port refuses the connection, or the launcher reports its end.
     */
    static Duration connectBound(Duration base, int ranks, int processors) {
        if (ranks <= processors || processors <= 0) {
            return base;
        }
        long share = (ranks + processors - 1L) / processors;
        Duration scaled = base.multipliedBy(share);
        Duration cap = base.compareTo(CONNECT_BOUND_MAX) > 0 ? base : CONNECT_BOUND_MAX;
        return scaled.compareTo(cap) > 0 ? cap : scaled;
    }


    /** The transport names of a {@code railyard.transports} value (empty for an empty one). */
    private static List<String> transportList(String list) {
        return list.isBlank() ? List.of() : Arrays.stream(list.split(",")).map(String::trim).toList();
    }

    /** Every transport plugin this process finds. */
    private static List<Transport> plugins() {
        List<Transport> found = new ArrayList<>();
        for (Transport t : ServiceLoader.load(Transport.class, ChannelTable.class.getClassLoader())) {
            found.add(t);
        }
        return found;
    }

    /** "transport 'x' is unknown" for the first name of {@code wanted} that no plugin has, or null. */
    private static String unknownTransport(List<String> wanted, List<Transport> found) {
        List<String> names = found.stream().map(Transport::name).toList();
        return wanted.stream().filter(w -> !names.contains(w)).findFirst()
                .map(w -> "transport '" + w + "' is unknown").orElse(null);
    }

    /** Fails naming {@code spec} and every accepted form when it is no rail policy ({@code railyard.rail.policy}). */
    public static void checkRailPolicy(String spec) {
        try {
            RailPolicies.create(spec, 0, 1);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + spec + "' is not one of " + RailPolicies.FORMS, e);
        }
    }

    /**
     * Checks a list of transports as {@code railyard.transports} takes it (for tools that pass it on
     * to the ranks, such as the launcher), against the plugins this process finds.
     *
     * @throws IllegalArgumentException naming the first unknown transport and the available ones
     */
    public static void checkTransports(String list) {
        List<Transport> found = plugins();
        String unknown = unknownTransport(transportList(list), found);
        if (unknown != null) {
            throw new IllegalArgumentException(unknown + "; available: "
                    + String.join(", ", found.stream().map(Transport::name).toList()));
        }
    }
    public static ChannelTable open(Bootstrap bootstrap, FrameSink sink, Consumer<String> choices, Consumer<String> log) {
        String allowed = Config.string(Config.TRANSPORTS_PROP, Config.TRANSPORTS_DEFAULT);
        List<String> wanted = transportList(allowed);
        List<Transport> found = plugins();
        String unknown = unknownTransport(wanted, found);
        if (unknown != null) {
            throw new RailyardException(ErrorClass.ARG, unknown + " in " + Config.TRANSPORTS_PROP + "; available: "
                    + String.join(", ", found.stream().map(Transport::name).toList()));
        }
        int rank = bootstrap.rank();
        String node = nodeIdentity();
        TransportEnv env = new TransportEnv(rank, bootstrap.size(), bootstrap.jobId(), node,
                Config.bool(Config.DOORBELL_PROP, Config.DOORBELL_DEFAULT)).secret(bootstrap.jobSecret());
        List<Transport> started = new ArrayList<>();
        // the processors counted before the engine bound this thread to one of them
        Duration connectTimeout = Config.duration(Config.CONNECT_TIMEOUT_PROP, connectBound(Config.CONNECT_TIMEOUT_DEFAULT,
                IdlePlan.ranksOnNode(Config.env(), bootstrap.size()), IdlePlan.processorsBeforeBinding()));
        try {
            for (Transport t : found) {
                // self is always kept: a process must be able to send to itself whatever is allowed
                if ((wanted.isEmpty() || wanted.contains(t.name()) || t.name().equals("self")) && t.start(env)) {
                    started.add(t);
                }
            }
            StartupTiming.mark("transports");
            RailSettings settings = RailSettings.fromConfig();
            Connector connector = new Connector(rank, bootstrap.size(), bootstrap.jobId(), bootstrap.jobSecret(),
                    started, connectTimeout);
            // railyard.listen=false (a firewalled rank): no handshake address, peers come through the relays
            List<InetSocketAddress> addresses = Config.bool(Config.LISTEN_PROP, Config.LISTEN_DEFAULT)
                    ? connector.listen(Config.string(Config.TCP_HOST_PROP, Config.TCP_HOST_DEFAULT)) : List.of();
            List<String> offered = connector.transports().stream().map(Transport::name).toList();
            AddressCard mine = new AddressCard(rank, node, ProcessHandle.current().pid(), addresses,
                    offered.stream().filter(n -> !n.equals("self")).toList(), Connector.interfaceNets(),
                    Config.string(Config.SITE_PROP, Config.SITE_DEFAULT), cardEntries(started, machineIdentity()));
            bootstrap.put(AddressCard.key(rank), mine.encode());
            bootstrap.fence();
            StartupTiming.mark("cards fenced");
            ChannelTable table = new ChannelTable(rank, bootstrap.size(), connector, sink, connectTimeout.toNanos(), choices, log,
                    settings, System::nanoTime);
            table.node = node;
            table.doorbell = Bell.of(started);
            table.inputBell = Bell.inputOf(started);
            connector.doorbell(table.doorbell);
            table.transportNames = offered;
            for (Transport t : started) {
                if (t instanceof ReplayLog r) {
                    table.replay = new Replay(r);
                }
                if (table.localMemory == null && t.capabilities().contains(Capability.NODE_MEMORY)) {
                    table.localMemory = new LocalMemory(t.nodeMemory());
                }
            }
            table.bootstrap = bootstrap;
            table.plannedNodes = plannedNodes(bootstrap);
            table.cards = new HashMap<>();
            table.cards.put(rank, mine);
            for (Transport t : started) {
                table.minFrame = Math.min(table.minFrame, t.maxFrame());
            }
            connector.cards(mine, table::nodeCard);
            StartupTiming.mark("channels");
            return table;
        } catch (IOException e) {
            throw new RailyardException(ErrorClass.IO, "cannot open the transports: " + e.getMessage(), e);
        }
    }

    /**
     * Lets every transport plugin make its native call handles ahead ({@link Transport#prepareNative}),
     * on init's native set-up thread while {@link #open} may run on another: instances of their own,
     * found as {@link #open} finds them.
     */
    public static void prepareNative() {
        for (Transport t : plugins()) {
            t.prepareNative();
        }
    }

    /**
     * The card's entries: what every started transport adds, and {@link AddressCard#MACHINE}
     * (unless null); a key given twice is an error.
     */
    private static Map<String, String> cardEntries(List<Transport> started, String machine) {
        Map<String, String> out = new HashMap<>();
        if (machine != null) {
            out.put(AddressCard.MACHINE, machine);
        }
        for (Transport t : started) {
            t.cardEntries().forEach((k, v) -> {
                if (out.putIfAbsent(k, v) != null) {
                    throw new IllegalStateException("transports disagree on the address card entry '" + k + "'");
                }
            });
        }
        return out;
    }

    /**
     * Reads, once, the address card of every rank not yet read, in as few bootstrap requests as
     * the bootstrap allows ({@link Bootstrap#getAll}): what a layout of the job (every rank's node
     * or site) needs, which one get per rank would make N requests per rank to the launcher's
     * single key-value server.
     */
    private void readAllCards() {
        synchronized (cards) {
            if (allCardsRead) {
                return;
            }
            List<Integer> missing = new ArrayList<>();
            for (int p = 0; p < channels.length; p++) {
                if (!cards.containsKey(p)) {
                    missing.add(p);
                }
            }
            List<String> values = bootstrap.getAll(missing.stream().map(AddressCard::key).toList());
            for (int i = 0; i < missing.size(); i++) {
                cards.put(missing.get(i), AddressCard.decode(missing.get(i), values.get(i)));
            }
            allCardsRead = true;
        }
    }

    /** The address card of a rank, read once from the bootstrap (from any thread). */
    private AddressCard nodeCard(int peer) {
        synchronized (cards) {
            return cards.computeIfAbsent(peer, p -> AddressCard.decode(p, bootstrap.get(AddressCard.key(p))));
        }
    }

    /**
     * From now on this process's waiters sleep on the input bell of a started transport
     * ({@link org.railyard.transport.Transport#inputBell}: the relay connection every frame of a
     * relayed rank comes on) instead of the doorbell; false, and nothing changes, if no transport
     * has one. The doorbell is still rung: a thread of this process may sleep on either.
     */
    public boolean sleepOnInput() {
        if (inputBell == Bell.NONE) {
            return false;
        }
        onInput = true;
        return true;
    }

    /** The bell this process's waiters sleep on: the doorbell, or the input bell after {@link #sleepOnInput}. */
    private Bell waitersBell() {
        return onInput ? inputBell : doorbell;
    }

    /**
     * True if a waiter of this process can sleep on its bell now (the doorbell: futexes work,
     * {@code railyard.doorbell} is on, at least one ring; never in tables made without transports).
     */
    public boolean bellUsable() {
        return waitersBell().usable();
    }

    /** True if the doorbell is switched on and futexes work here. */
    public boolean bellEnabled() {
        return doorbell.enabled();
    }

    /** Sleeps on the waiters' bell, at most {@code nanos}: see {@link Bell#sleep}. */
    public boolean sleepOnBell(long nanos, java.util.function.IntSupplier lastLook) {
        return waitersBell().sleep(nanos, lastLook);
    }

    /** Wakes this process's threads that sleep on its bells, if any. */
    public void wakeSleepers() {
        if (onInput) {
            inputBell.wakeSleepers();
        }
        doorbell.wakeSleepers();
    }

    /** Doorbell sleeps a ring ended before their time. */
    public long bellWakes() {
        return doorbell.wakes();
    }

    /**
     * The node a world rank runs on, as the node layout of the engine (splitShared, node-aware
     * collectives, shared windows) takes it: from the process manager's plan when the bootstrap
     * gives one ({@link Bootstrap#nodeOfRank()}, PMI-2's {@code PMI_process_mapping}), read
     * without any exchange, else from the rank's address card (host name and boot id). Ranks of
     * one planned node run on one host, so equal names still mean shared memory is possible; two
     * planned nodes may share a host (Slurm's multiple-slurmd mode), which the layout follows.
     * The transports keep choosing by the cards' identities.
     */
    public String nodeOf(int worldRank) {
        if (plannedNodes != null) {
            return "pmi-node-" + plannedNodes[worldRank];
        }
        readAllCards();
        return nodeCard(worldRank).node();
    }

    /** The bootstrap's node plan if it has one of the job's size, else null. */
    private static int[] plannedNodes(Bootstrap bootstrap) {
        int[] plan = bootstrap.nodeOfRank();
        return plan != null && plan.length == bootstrap.size() ? plan : null;
    }

    /** The site a world rank belongs to (from its card; empty when it set no railyard.site). */
    public String siteOf(int worldRank) {
        readAllCards();
        return nodeCard(worldRank).site();
    }

    /** The process id a world rank gave in its card. */
    public long pidOf(int worldRank) {
        return nodeCard(worldRank).pid();
    }

    /** This process's node identity: host name and boot id, or the setting railyard.node (tests use it). */
    public String node() {
        return node;
    }

    /** Transports started, best first. */
    public List<String> transportNames() {
        return transportNames;
    }

    /** The smallest frame limit among the started transports. */
    public int minFrame() {
        return minFrame;
    }

    private static String nodeIdentity() {
        String forced = Config.raw("railyard.node");
        return forced != null ? forced : hostIdentity();
    }

    /** This kernel: the host name and the start of the boot id (the host name alone where there is none). */
    private static String hostIdentity() {
        String host;
        try {
            host = Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
        } catch (IOException e) {
            host = Config.env().getOrDefault("HOSTNAME", "localhost");
        }
        try {
            String boot = Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).trim();
            return host + "." + boot.substring(0, 8);
        } catch (IOException | RuntimeException e) {
            return host;
        }
    }

    /**
     * This kernel and network namespace ({@link AddressCard#MACHINE}), or null where the namespace
     * cannot be read: two processes with the same reach each other over the loopback whatever their
     * node names say.
     */
    private static String machineIdentity() {
        try {
            String ns = Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString(); // net:[4026531840]
            String digits = ns.replaceAll("[^0-9]", "");
            return digits.isEmpty() ? null : hostIdentity().replaceAll("[^A-Za-z0-9.-]", "-") + ".net" + digits;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * @param links    where links come from (the connector; a double in tests)
     * @param choices  where to print each choice made (transport and rails per peer), or null
     * @param log      where to report broken links and rails
     * @param settings the multi-rail settings
     * @param clock    nanosecond clock for every timeout and measurement (System::nanoTime; tests inject one)
     */
    public ChannelTable(int rank, int size, LinkSource links, FrameSink sink, long connectTimeoutNanos,
                        Consumer<String> choices, Consumer<String> log, RailSettings settings, LongSupplier clock) {
        this.rank = rank;
        this.channels = new VirtualChannel[size];
        this.active = new VirtualChannel[size];
        this.links = links;
        this.sink = sink;
        this.connectTimeoutNanos = connectTimeoutNanos;
        this.choices = choices;
        this.log = log;
        this.settings = settings;
        this.clock = clock;
        this.stats = Stats.open(rank);
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

    /**
     * The started transport that keeps every frame outside this process for a restart (the relay
     * transport in replay mode), or null.
     */
    public Replay replay() {
        return replay;
    }

    /**
     * The memory of this node's processes that a started transport shares (segments, reads of
     * another process's memory), or null: none of the started transports shares it.
     */
    public LocalMemory localMemory() {
        return localMemory;
    }

    /**
     * The packet numbers a checkpoint records of the channel to {@code peer}: the next PSN to
     * stamp, the expected PSN, the acknowledged mark; null if there is no channel to it.
     */
    public long[] sequenceState(int peer) {
        VirtualChannel c = channels[peer];
        if (c == null) {
            return null;
        }
        Sequencer o = c.sequencer();
        return new long[] {o.nextPsn(), o.expected(), o.acked()};
    }

    /** A rank started from a checkpoint: the channel to {@code peer} numbers its packets on from {@link #sequenceState}. */
    public void resumeSequence(int peer, long next, long expected, long acked) {
        channel(peer).sequencer().resume(next, expected, acked);
    }

    /** The channel to {@code peer} if one exists, else null. */
    public VirtualChannel existing(int peer) {
        return channels[peer];
    }

    /** One duty cycle; returns the amount of work done (0 when idle). */
    public int progress() {
        int work = 0;
        LinkSource.Event e;
        while ((e = links.poll()) != null) {
            VirtualChannel c = channel(e.peer());
            if (e.rail() == LinkSource.PROBE) {
                c.probed(e.error(), e.refused());
            } else if (e.link() != null) {
                int peer = e.peer();
                // the stack floor composes what the transport lacks (over udp); other links pass as they are
                c.attach(Composer.compose(e.link(), choices == null ? null
                        : s -> printChoice("rank " + rank + " -> rank " + peer + ": " + s)), e.rail(), e.rails(), e.epoch());
            } else {
                c.connectFailed(e.rail(), e.rails(), e.error(), e.refused());
            }
            work++;
        }
        for (int i = 0; i < activeCount; i++) {
            VirtualChannel c = active[i];
            work += c.progressReceive();
            work += c.progressSend();
        }
        // the clock costs a few tens of nanoseconds: single-rail channels (shm latency) read it rarely
        if (reliableChannels > 0 || (++ticks & 63) == 0) {
            long now = clock.getAsLong();
            if (now - nextTick >= 0) {
                nextTick = now + TICK_NANOS;
                for (int i = 0; i < activeCount; i++) {
                    active[i].checkDeadline(now);
                    active[i].tick(now);
                }
            }
            if (now - nextSample >= 0) {
                nextSample = now + Stats.SAMPLE_NANOS;
                for (int i = 0; i < activeCount; i++) {
                    active[i].sample(now);
                }
            }
        }
        return work;
    }

    /**
     * True if every frame this process can receive now would ring its waiters' bell: each channel
     * that is up runs over shared memory alone (a channel still connecting rings when the connector
     * finishes it). Never with the input bell: a frame to this process from itself rings only the
     * doorbell. Call holding the progress lock.
     */
    public boolean allRing() {
        if (onInput) {
            return false;
        }
        for (int i = 0; i < activeCount; i++) {
            VirtualChannel c = active[i];
            if (c.state() == VirtualChannel.State.UP && !c.sharesMemory()) {
                return false;
            }
        }
        return true;
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

    /**
     * True if no frame of this process waits on the channel floor's own progress: everything is
     * sent, no channel is still connecting, and no channel runs acknowledgements and timers of its
     * own (multi-rail or a reliability stack), whose peers wait for them. Frames that arrive and
     * wait in their link to be read do not count, nor does a link the connector finished (it is
     * attached at the next duty cycle). Call holding the progress lock.
     */
    public boolean quiet() {
        if (reliableChannels > 0) {
            return false;
        }
        for (int i = 0; i < activeCount; i++) {
            if (active[i].state() != VirtualChannel.State.UP || !active[i].idle()) {
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

    /** Closes every rail; with choices printed, prints what every rail did. */
    public void closeAll() {
        for (int i = 0; i < activeCount; i++) {
            active[i].closeRails();
        }
        links.close();
        if (choices != null) {
            for (RailStats.Snapshot s : stats.snapshot()) {
                choices.accept(s.describe());
            }
        }
    }

    /** Every channel's description, for {@code --print-choices} and diagnostics. */
    public String describe() {
        return describe(false);
    }

    /** Every open channel's sequencing and queue state too, for a stall report (lock held). */
    public String diagnose() {
        return describe(true);
    }

    private String describe(boolean sequencing) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < activeCount; i++) {
            VirtualChannel c = active[i];
            sb.append(sequencing ? "  channel to rank " : "  rank " + rank + " -> rank ").append(c.peer()).append(": ")
                    .append(c.state());
            if (sequencing) {
                Sequencer order = c.sequencer();
                sb.append(c.failure() == null ? "" : " (" + c.failure() + ")").append(", next psn ").append(order.nextPsn())
                        .append(", expecting psn ").append(order.expected()).append(", peer acknowledged up to ")
                        .append(order.acked())
                        .append(c.idle() ? ", nothing queued or unacknowledged" : ", frames queued or unacknowledged")
                        .append(c.peerLeft() ? ", peer said bye" : "");
            }
            for (Rail r : c.rails()) {
                sb.append("\n    rail: ").append(r)
                        .append(sequencing && r.link != null && r.link.hasPendingOutput() ? ", output pending" : "");
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    int rank() {
        return rank;
    }

    LinkSource links() {
        return links;
    }

    RailSettings settings() {
        return settings;
    }

    StatsGroup stats() {
        return stats;
    }

    long nanoTime() {
        return clock.getAsLong();
    }

    void reliableChannelAdded() {
        reliableChannels++;
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
