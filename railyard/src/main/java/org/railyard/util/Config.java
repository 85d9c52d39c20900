package org.railyard.util;

import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The library's settings in one place (the collective algorithms' thresholds are in the collectives'
 * tuning class). A setting {@code railyard.a.b} is read from the system property of that name, else
 * from the environment variable {@code RAILYARD_A_B}, else its default. The launcher passes its
 * options down as environment variables, so a setting given to {@code railyard run} reaches every
 * rank.
 *
 * <p><b>Ranks as threads</b> ({@code railyard run --threads}): every rank loads its own copy of the
 * library through its own class loader, so this class, and its {@linkplain #setOverlay overlay},
 * exist once per rank. The launcher sets the overlay to the environment a rank process would have
 * got (rank, size, job, secret, key-value address, options) before the rank's main runs. The
 * library reads environment variables only through {@link #raw} and {@link #env}, never
 * {@code System.getenv} directly, so that the overlay reaches every reader.
 *
 * <p>Each setting's comment states what it controls and the rule its default follows. The
 * measurements that chose a default are kept in bench/results/settings.md, not here.
 */
public final class Config {
    private Config() {
    }

    /**
     * The launcher's ahead-of-time cache of the ranks' JVMs (JDK 25, JEP 483/514/515): {@code auto},
     * {@code off}, {@code on} (caches under {@code ~/.cache/railyard/aot}) or a directory. With it, a
     * job of a program trains a cache on rank 0 and every later job of the same program, class path
     * and JVM starts all its ranks from it (classes loaded and linked, method profiles kept).
     * {@code auto} (the default) is {@code on} that trains at the second job of a program, not the
     * first, and says nothing unless it trains: a program run once never pays the training (what
     * the cache saves: bench/results/log/2026-11-28-0500-startup.md).
     */
    public static final String AOT_PROP = "railyard.aot";
    public static final String AOT_DEFAULT = "auto";

    /** Transports allowed, in any order, comma separated; empty means all that are found. */
    public static final String TRANSPORTS_PROP = "railyard.transports";
    public static final String TRANSPORTS_DEFAULT = "";

    /** Messages up to this many bytes go eagerly; larger ones use rendezvous. */
    public static final String EAGER_LIMIT_PROP = "railyard.eager.limit";
    public static final long EAGER_LIMIT_DEFAULT = 64 * 1024;

    /** Bytes per shared-memory ring (one per direction and pair of processes); a power of two. */
    public static final String SHM_RING_PROP = "railyard.shm.ring";
    public static final long SHM_RING_DEFAULT = 4L << 20;

    /** Largest frame on a shared-memory ring, bytes. */
    public static final String SHM_FRAME_PROP = "railyard.shm.frame";
    public static final long SHM_FRAME_DEFAULT = 256 * 1024;

    /**
     * Rendezvous messages between two processes of one node, both of whose buffers are in native
     * memory (a native MemorySegment or a direct ByteBuffer), are read by the receiver straight
     * from the sender's memory (cross-memory attach, one copy) instead of passing the shm ring.
     */
    public static final String CMA_PROP = "railyard.cma";
    public static final boolean CMA_DEFAULT = true;

    /**
     * Smallest message, bytes, that {@link #CMA_PROP} reads from the sender's memory; smaller ones
     * pass the shm ring. Rule: with a processor per rank the ring's copy in and copy out run at
     * once on the two sides, while a read's system call and page pinning cost the receiver more
     * than a cached copy, so the single copy pays only from a size where copying dominates
     * (figures: bench/results/settings.md).
     */
    public static final String CMA_MIN_PROP = "railyard.cma.min";
    public static final long CMA_MIN_DEFAULT = 256 * 1024;

    /**
     * {@link #CMA_MIN_PROP}'s default when the job has more ranks than this machine has processors.
     * Rule: the ring's two copies then no longer run at once, and one copy by the reader costs less
     * than two, so reads start at a smaller size (figures: bench/results/settings.md). An explicit
     * {@link #CMA_MIN_PROP} overrides both defaults.
     */
    public static final long CMA_MIN_CROWDED_DEFAULT = 128 * 1024;

    /**
     * A rank waiting for frames from its node sleeps on a futex beside the shared rings, which the
     * writing peer wakes, instead of parking for a guessed interval (transport/ring/Doorbell).
     * It does so only once its parks have reached {@link #IDLE_MAX_PARK_PROP} (from the first park
     * with {@link #IDLE_SLEEP_FIRST_PROP}), so short waits are unchanged; the sleep stays bounded by
     * the idle settings, so frames from other transports are seen as before.
     */
    public static final String DOORBELL_PROP = "railyard.doorbell";
    public static final boolean DOORBELL_DEFAULT = true;

    /** Largest frame on a TCP connection, bytes; also the size of its staging buffers / 4. */
    public static final String TCP_FRAME_PROP = "railyard.tcp.frame";
    public static final long TCP_FRAME_DEFAULT = 256 * 1024;

    /** Socket buffer sizes asked of the kernel for TCP data connections, bytes (0: kernel default). */
    public static final String TCP_SOCKBUF_PROP = "railyard.tcp.sockbuf";
    public static final long TCP_SOCKBUF_DEFAULT = 4L << 20;

    /**
     * How long a TCP data connection may go unanswered before it ends with an error: when nothing
     * has moved on it for half this time, the kernel sends keepalive probes, and a connection whose
     * peer answers none of them is closed ({@code transport.tcp.TcpTransport#keepalive}). A peer that
     * is alive answers the probes from its kernel, even while it computes, so only a path that stays
     * silent this long (a host gone, a cable cut, an interface removed) ends a connection; the
     * rank's waits on that peer then fail with {@code PEER_FAILED} instead of waiting forever.
     * Whole seconds, 8 s to 9 hours; 0 turns the probes off.
     */
    public static final String TCP_KEEPALIVE_PROP = "railyard.tcp.keepalive";
    public static final Duration TCP_KEEPALIVE_DEFAULT = Duration.ofSeconds(60);

    /** Address to bind and publish for TCP; empty: wildcard bind, publish every interface. */
    public static final String TCP_HOST_PROP = "railyard.tcp.host";
    public static final String TCP_HOST_DEFAULT = "";

    /**
     * Bound on opening a connection to a peer, handshake included. Unset, the default grows with the
     * ranks per processor of the node (channel.ChannelTable#connectBound).
     */
    public static final String CONNECT_TIMEOUT_PROP = "railyard.connect.timeout";
    public static final Duration CONNECT_TIMEOUT_DEFAULT = Duration.ofSeconds(20);

    /** Bound on bootstrap fences and lookups. */
    public static final String BOOTSTRAP_TIMEOUT_PROP = "railyard.bootstrap.timeout";
    public static final Duration BOOTSTRAP_TIMEOUT_DEFAULT = Duration.ofSeconds(120);

    /**
     * Largest intermediate buffer of a collective kept for its next call (larger ones are allocated
     * per call). Kept buffers stay in memory for the life of the engine: at most this much per
     * buffer, a few buffers per pooled schedule, eight pooled schedules.
     */
    public static final String COLL_SCRATCH_KEEP_PROP = "railyard.coll.scratch.keep";
    public static final long COLL_SCRATCH_KEEP_DEFAULT = 4L << 20;

    /**
     * Collectives of a communicator whose members run on several sites ({@link #SITE_PROP}) use the
     * site-aware algorithms, which cross the links between sites once per pair of sites where the
     * operation allows (engine.coll.CollSites); off forces the flat algorithms everywhere, for
     * comparison. Every rank of a job must see the same value.
     */
    public static final String COLL_SITES_PROP = "railyard.coll.sites";
    public static final boolean COLL_SITES_DEFAULT = true;

    /** Print each choice the library makes (transport per peer, protocol per size, algorithms) to stderr. */
    public static final String PRINT_CHOICES_PROP = "railyard.print.choices";
    public static final boolean PRINT_CHOICES_DEFAULT = false;

    /**
     * Busy-poll iterations of an idle waiter before it yields, then parks. The default depends on
     * how many ranks share this node's processors ({@link IdlePlan}): this many with a processor to
     * spare, {@link #IDLE_SPINS_FULL_DEFAULT} with one rank per processor, 0 with more ranks than
     * processors (figures: bench/results/settings.md).
     */
    public static final String IDLE_SPINS_PROP = "railyard.idle.spins";
    public static final long IDLE_SPINS_DEFAULT = 20_000;
    /** The default spins of {@link #IDLE_SPINS_PROP} when the node has exactly one rank per processor. */
    public static final long IDLE_SPINS_FULL_DEFAULT = 1_000;
    /**
     * The default spins of {@link #IDLE_SPINS_PROP} for a rank whose every peer is reached through a
     * relay ({@link IdlePlan.Reach#RELAYED}): it then sleeps on its relay connection.
     */
    public static final long IDLE_SPINS_RELAYED_DEFAULT = 0;

    /**
     * Microseconds a wait of a mapped one-sided window (a fence, a lock, post/start/complete/wait)
     * polls before it yields and sleeps (engine.rma.SharedSync).
     */
    public static final String RMA_SPIN_PROP = "railyard.rma.spin";
    public static final long RMA_SPIN_DEFAULT = 100;

    /**
     * Yields of a wait on a node word (a mapped window's, the counter barrier's: engine.rma,
     * util.WaitPlan) after its polls and before it sleeps; the default follows
     * {@link IdlePlan#yields} (none on a crowded node).
     */
    public static final String NODE_YIELDS_PROP = "railyard.node.yields";

    /**
     * Yields of an idle waiter after its spins, before it parks: {@link #IDLE_YIELDS_DEFAULT}, or none
     * on a crowded node ({@link IdlePlan#yields}).
     */
    public static final String IDLE_YIELDS_PROP = "railyard.idle.yields";
    public static final long IDLE_YIELDS_DEFAULT = 100;

    /**
     * True: once its spins and yields are spent, an idle waiter sleeps on the doorbell (when it
     * can) from its first park on, instead of parking for doubling intervals until they reach
     * {@link #IDLE_MAX_PARK_PROP}. The default is true on a crowded node only ({@link IdlePlan#sleepFirst}).
     */
    public static final String IDLE_SLEEP_FIRST_PROP = "railyard.idle.sleepfirst";

    /**
     * Longest sleep of an idle waiter on the doorbell, microseconds, when every channel it could
     * hear from rings it (all on shared memory of this node): a ring ends the sleep at once, so
     * it may be long, and waiting ranks then cost next to no processor time.
     */
    public static final String IDLE_MAX_SLEEP_PROP = "railyard.idle.maxsleep";
    public static final long IDLE_MAX_SLEEP_DEFAULT = 20_000;

    /**
     * Timer slack, nanoseconds, that a thread of the library sets on itself the first time it
     * parks (Linux {@code prctl(PR_SET_TIMERSLACK)}; 0 leaves the system's). The kernel may let a
     * timed sleep run this much longer than asked so as to batch wake-ups. Rule: a waiter's park
     * must end near the time it asked for, and the system's default slack (50 us on Linux) is far
     * longer than a waiter's first parks, which start at 1 us and grow to
     * {@link #IDLE_MAX_PARK_PROP} (see {@link TimerSlack}; figures: bench/results/settings.md,
     * probe: bench/probes/ParkSlackProbe.java).
     */
    public static final String IDLE_TIMER_SLACK_PROP = "railyard.idle.timerslack";
    public static final long IDLE_TIMER_SLACK_DEFAULT = 1000;

    /**
     * The stall report: when an application thread has been waiting in the library this long
     * (a duration; 0, the default, is off), the process prints to standard error what it waits for
     * (its collectives under way with their pending sends and receives, the posted receives, the
     * unexpected messages, the transfers in flight, every channel's sequencing and queues). A
     * diagnostic for a job that stops moving; see docs/ARCHITECTURE.md, "The stall report".
     */
    public static final String STALL_REPORT_PROP = "railyard.stall.report";

    /** Longest park of an idle waiter, microseconds. */
    public static final String IDLE_MAX_PARK_PROP = "railyard.idle.maxpark";
    public static final long IDLE_MAX_PARK_DEFAULT = 100;

    /** Connections per network path to a peer over tcp (the rails of a path); same-node peers keep one shm rail. */
    public static final String RAILS_PROP = "railyard.rails";
    public static final long RAILS_DEFAULT = 1;

    /**
     * Networks that may carry data, as a comma-separated CIDR list (10.1.0.0/16,10.2.0.0/24); empty:
     * every IPv4 network two processes share. A management network left out here never becomes a rail.
     */
    public static final String RAIL_NETS_PROP = "railyard.rail.nets";
    public static final String RAIL_NETS_DEFAULT = "";

    /**
     * How a multi-rail channel spreads messages over its rails: binding, rr, wrr:W, even,
     * weighted:w0,w1,..., adaptive[:alpha], bss:NPATHS,NBATCH[,alpha], epc. See RailPolicies.
     */
    public static final String RAIL_POLICY_PROP = "railyard.rail.policy";
    public static final String RAIL_POLICY_DEFAULT = "adaptive";

    /** Rendezvous data of at least this many bytes may be striped over several rails; smaller never is. */
    public static final String STRIPE_THRESHOLD_PROP = "railyard.stripe.threshold";
    public static final long STRIPE_THRESHOLD_DEFAULT = 256 * 1024;

    /** A rail on which nothing (data, acknowledgement, heartbeat) arrived for this long is declared down. */
    public static final String RAIL_TIMEOUT_PROP = "railyard.rail.timeout";
    public static final Duration RAIL_TIMEOUT_DEFAULT = Duration.ofSeconds(3);

    /** A rail that sent nothing for this long sends a heartbeat (keep well below railyard.rail.timeout). */
    public static final String RAIL_HEARTBEAT_PROP = "railyard.rail.heartbeat";
    public static final Duration RAIL_HEARTBEAT_DEFAULT = Duration.ofMillis(300);

    /** With no rail left to a peer, how long the channel waits for one to return before failing its requests. */
    public static final String PARTITION_TIMEOUT_PROP = "railyard.partition.timeout";
    public static final Duration PARTITION_TIMEOUT_DEFAULT = Duration.ofSeconds(60);

    /** Bytes of sent, unacknowledged frames a multi-rail channel keeps for retransmission; sending waits when full. */
    public static final String RETRANSMIT_BUFFER_PROP = "railyard.retransmit.buffer";
    public static final long RETRANSMIT_BUFFER_DEFAULT = 32L << 20;

    /** Unacknowledged bytes one rail may carry at a time (bounds its queue, so stripe timings stay meaningful). */
    public static final String RAIL_WINDOW_PROP = "railyard.rail.window";
    public static final long RAIL_WINDOW_DEFAULT = 4L << 20;

    /** A receiver acknowledges a rail after this many bytes on it, unless asked earlier. */
    public static final String ACK_BYTES_PROP = "railyard.ack.bytes";
    public static final long ACK_BYTES_DEFAULT = 256 * 1024;

    /** ... or after this long, when something arrived since its last acknowledgement. */
    public static final String ACK_INTERVAL_PROP = "railyard.ack.interval";
    public static final Duration ACK_INTERVAL_DEFAULT = Duration.ofMillis(5);

    /** First wait before reconnecting a rail that died; doubles per failed attempt up to railyard.reconnect.max. */
    public static final String RECONNECT_MIN_PROP = "railyard.reconnect.min";
    public static final Duration RECONNECT_MIN_DEFAULT = Duration.ofMillis(100);

    /** Longest wait between two attempts to reconnect a rail (the doubling of railyard.reconnect.min stops here). */
    public static final String RECONNECT_MAX_PROP = "railyard.reconnect.max";
    public static final Duration RECONNECT_MAX_DEFAULT = Duration.ofSeconds(2);

    /** Largest datagram the udp transport sends, bytes (header of the stack included): fit the path MTU. */
    public static final String UDP_DATAGRAM_PROP = "railyard.udp.datagram";
    public static final long UDP_DATAGRAM_DEFAULT = 1472;

    /** Largest frame a udp link carries for the channel; the stack cuts it into datagrams. */
    public static final String UDP_FRAME_PROP = "railyard.udp.frame";
    public static final long UDP_FRAME_DEFAULT = 64 * 1024;

    /** Socket buffer sizes asked of the kernel for udp sockets, bytes (0: kernel default). */
    public static final String UDP_SOCKBUF_PROP = "railyard.udp.sockbuf";
    public static final long UDP_SOCKBUF_DEFAULT = 4L << 20;

    /**
     * The site (cluster) this process belongs to; processes with different sites are "other site"
     * to each other, and the stack composed between them adds congestion control. Empty: one site.
     */
    public static final String SITE_PROP = "railyard.site";
    public static final String SITE_DEFAULT = "";

    /**
     * The gateway(s) of this process's site, {@code HOST:PORT[,HOST:PORT]} (the second takes over
     * when the first cannot be reached): peers of another site are reached through it (transport
     * {@code gateway}). Empty: no gateway transport; {@code off}: the same, said explicitly.
     */
    public static final String GATEWAY_PROP = "railyard.gateway";
    public static final String GATEWAY_DEFAULT = "";

    /**
     * Relay servers of the job, HOST:PORT separated by commas; the owner relay of rank r (the one
     * that stores its messages) is entry r mod count. Empty: the relay transport is not started.
     */
    public static final String RELAYS_PROP = "railyard.relays";
    public static final String RELAYS_DEFAULT = "";

    /** Frame limit of relay links, bytes (at most the relays' --max-message). */
    public static final String RELAY_FRAME_PROP = "railyard.relay.frame";
    public static final long RELAY_FRAME_DEFAULT = 256 * 1024;

    /** Bytes a process may have sent to one relay that the relay has not yet acknowledged as stored. */
    public static final String RELAY_WINDOW_PROP = "railyard.relay.window";
    public static final long RELAY_WINDOW_DEFAULT = 16L << 20;
    /**
     * Send and receive buffer a rank asks for on its relay sockets, bytes (0: the kernel's defaults
     * and autotuning); the tcp transport's default ({@link #TCP_SOCKBUF_DEFAULT}).
     */
    public static final String RELAY_SOCKBUF_PROP = "railyard.relay.sockbuf";
    public static final long RELAY_SOCKBUF_DEFAULT = TCP_SOCKBUF_DEFAULT;

    /**
     * How long a relay connection that broke is tried again before the relay path fails; also how
     * long a peer may stay away from its owner relay before the ranks waiting on it fail.
     */
    public static final String RELAY_ABSENCE_PROP = "railyard.relay.absence";
    public static final Duration RELAY_ABSENCE_DEFAULT = Duration.ofSeconds(60);

    /**
     * Restarts the launcher may make of each rank ({@code railyard run --restart N}); above 0 the
     * relay transport runs in replay mode: a relay keeps every message for its receiver (nothing is
     * acknowledged), and a rank takes the frames of its peers in the order its owner relay delivered
     * them, so a restarted rank that runs again from the start is given the same messages in the
     * same order (see docs/relay.md, "Restart").
     */
    public static final String RESTARTS_PROP = "railyard.restarts";
    public static final long RESTARTS_DEFAULT = 0;

    /**
     * The directory where {@code Railyard.checkpoint} writes this rank's checkpoint
     * ({@code rank-R.ckpt}) and where a restarted rank finds it; set by {@code railyard run
     * --restart}. Empty: checkpoints are refused.
     */
    public static final String CHECKPOINT_DIR_PROP = "railyard.checkpoint.dir";
    public static final String CHECKPOINT_DIR_DEFAULT = "";

    /** How many times the launcher has restarted this rank: 0 for its first run. */
    public static final String INCARNATION_PROP = "railyard.incarnation";
    public static final long INCARNATION_DEFAULT = 0;

    /**
     * False: this process opens no listening socket; its address card carries no handshake
     * address, and peers reach it only through an indirect transport (the relays).
     */
    public static final String LISTEN_PROP = "railyard.listen";
    public static final boolean LISTEN_DEFAULT = true;

    /**
     * Locality the stack composer uses for every peer instead of the one it finds (same-node,
     * same-site, other-site); empty: found from the nodes and sites of the two ends.
     */
    public static final String STACK_LOCALITY_PROP = "railyard.stack.locality";
    public static final String STACK_LOCALITY_DEFAULT = "";

    /** Scheme the value flow of a new connection is composed for (sync or async), until a VALUE frame says otherwise. */
    public static final String SCHEME_PROP = "railyard.scheme";
    public static final String SCHEME_DEFAULT = "sync";

    /** Segments a reliable stack flow keeps unacknowledged at most (its retransmit buffer and flow window). */
    public static final String STACK_WINDOW_PROP = "railyard.stack.window";
    public static final long STACK_WINDOW_DEFAULT = 1024;

    /** Lower bound of a stack's retransmission timeout. */
    public static final String STACK_RTO_MIN_PROP = "railyard.stack.rto.min";
    public static final Duration STACK_RTO_MIN_DEFAULT = Duration.ofMillis(5);

    /** Upper bound of a stack's retransmission timeout (after backing off). */
    public static final String STACK_RTO_MAX_PROP = "railyard.stack.rto.max";
    public static final Duration STACK_RTO_MAX_DEFAULT = Duration.ofMillis(500);

    /** How long closing a stack waits for its peer to acknowledge what is still in flight. */
    public static final String STACK_LINGER_PROP = "railyard.stack.linger";
    public static final Duration STACK_LINGER_DEFAULT = Duration.ofSeconds(2);

    /** Bound on a reconfiguration (drain, switch, answer); beyond it the link is declared broken. */
    public static final String STACK_SWITCH_TIMEOUT_PROP = "railyard.stack.switch.timeout";
    public static final Duration STACK_SWITCH_TIMEOUT_DEFAULT = Duration.ofSeconds(20);

    /**
     * Fault injection for tests: {@code class:spec}, a {@code org.railyard.stack.MicroProtocol}
     * subclass with a public constructor taking the spec string, inserted between TransportDrive and
     * the link of every stack (for example a seeded layer that drops and reorders datagrams).
     */
    public static final String STACK_INJECT_PROP = "railyard.stack.inject";
    public static final String STACK_INJECT_DEFAULT = "";

    /**
     * Start-up stage timing: each rank prints to stderr, once init returns, the milliseconds from the
     * launch ({@code RAILYARD_LAUNCH_US}, epoch microseconds, set by {@code railyard run} or by
     * whoever starts the launcher; else from the process's own start) to its process start, to
     * {@code Railyard.init} being called, to the bootstrap being done and to init being done, and a
     * second line with init's finer stages and the native set-up's steps
     * (org.railyard.bootstrap.StartupTiming).
     */
    public static final String STARTUP_TIMING_PROP = "railyard.startup.timing";
    public static final boolean STARTUP_TIMING_DEFAULT = false;

    /**
     * Whether init makes the native call handles on a set-up thread of its own, started before the
     * bootstrap, instead of where each is first used (org.railyard.engine.NativeSetup); the results
     * are the same either way. {@code railyard run --threads} turns it off for its ranks unless the
     * environment sets it: there the ranks' set-up threads share one JVM's processors with the ranks.
     */
    public static final String NATIVE_SETUP_PROP = "railyard.native.setup";
    public static final boolean NATIVE_SETUP_DEFAULT = true;

    /** Environment variables of this copy of the library that win over the process's; empty unless set. */
    private static volatile Map<String, String> overlay = Map.of();

    /**
     * Sets the environment this copy of the library sees over the process's own (a variable of the
     * overlay hides the process's variable of that name). The threads launcher calls it, by
     * reflection on the rank's own copy of this class, before the rank's main runs; a process
     * launched one rank per JVM never calls it.
     *
     * @throws IllegalArgumentException if a name or value is null
     */
    public static void setOverlay(Map<String, String> variables) {
        Map<String, String> copy = new HashMap<>();
        variables.forEach((k, v) -> {
            if (k == null || v == null) {
                throw new IllegalArgumentException("environment overlay entry '" + k + "=" + v + "' needs a name and a value");
            }
            copy.put(k, v);
        });
        overlay = Map.copyOf(copy);
    }

    /** The environment as this copy of the library sees it: the process's, with the overlay over it. */
    public static Map<String, String> env() {
        Map<String, String> o = overlay;
        if (o.isEmpty()) {
            return System.getenv();
        }
        Map<String, String> merged = new HashMap<>(System.getenv());
        merged.putAll(o);
        return Map.copyOf(merged);
    }

    /** One environment variable as {@link #env} sees it, or null. */
    public static String getenv(String name) {
        String v = overlay.get(name);
        return v != null ? v : System.getenv(name);
    }

    /** Raw lookup: system property, then environment (the overlay first, see {@link #env}), then null. */
    public static String raw(String prop) {
        String v = System.getProperty(prop);
        if (v == null) {
            v = getenv(envName(prop));
        }
        return v == null || v.isBlank() ? null : v.trim();
    }

    public static String envName(String prop) {
        return prop.toUpperCase(Locale.ROOT).replace('.', '_');
    }

    public static String string(String prop, String def) {
        String v = raw(prop);
        return v == null ? def : v;
    }

    public static boolean bool(String prop, boolean def) {
        String v = raw(prop);
        if (v == null) {
            return def;
        }
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "1", "true", "yes", "on", "y" -> true;
            case "0", "false", "no", "off", "n" -> false;
            default -> throw bad(prop, v, "a boolean (true/false)");
        };
    }

    /** Reads a size; accepts suffixes k, m, g (powers of 1024). */
    public static long bytes(String prop, long def) {
        String v = raw(prop);
        if (v == null) {
            return def;
        }
        return parseBytes(prop, v);
    }

    public static long parseBytes(String what, String v) {
        String s = v.toLowerCase(Locale.ROOT).replace("ib", "").replace("b", "");
        long mult = 1;
        char last = s.isEmpty() ? ' ' : s.charAt(s.length() - 1);
        switch (last) {
            case 'k' -> mult = 1L << 10;
            case 'm' -> mult = 1L << 20;
            case 'g' -> mult = 1L << 30;
            default -> { }
        }
        if (mult != 1) {
            s = s.substring(0, s.length() - 1);
        }
        try {
            long n = Long.parseLong(s.trim());
            if (n < 0) {
                throw bad(what, v, "a non-negative size such as 65536, 64k or 4m");
            }
            return n * mult;
        } catch (NumberFormatException e) {
            throw bad(what, v, "a non-negative size such as 65536, 64k or 4m");
        }
    }

    public static long number(String prop, long def) {
        String v = raw(prop);
        if (v == null) {
            return def;
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw bad(prop, v, "a whole number");
        }
    }

    /** Reads a duration: "500ms", "20s", "2m", "1h", or a bare number of seconds. */
    public static Duration duration(String prop, Duration def) {
        String v = raw(prop);
        return v == null ? def : parseDuration(prop, v);
    }

    public static Duration parseDuration(String what, String v) {
        String s = v.trim().toLowerCase(Locale.ROOT);
        try {
            if (s.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2).trim()));
            }
            if (s.endsWith("us")) {
                return Duration.ofNanos(1000 * Long.parseLong(s.substring(0, s.length() - 2).trim()));
            }
            char unit = s.charAt(s.length() - 1);
            String num = Character.isDigit(unit) ? s : s.substring(0, s.length() - 1).trim();
            double d = Double.parseDouble(num);
            double seconds = switch (unit) {
                case 'h' -> d * 3600;
                case 'm' -> d * 60;
                case 's' -> d;
                default -> {
                    if (!Character.isDigit(unit)) {
                        throw new NumberFormatException();
                    }
                    yield d;
                }
            };
            if (seconds < 0) {
                throw new NumberFormatException();
            }
            return Duration.ofNanos((long) (seconds * 1e9));
        } catch (RuntimeException e) {
            throw bad(what, v, "a duration such as 500ms, 20s, 2m or 1h");
        }
    }

    /** A bad value of a setting (naming its environment variable too), or of a command-line option ({@code --x}). */
    private static IllegalArgumentException bad(String prop, String value, String expected) {
        String what = prop.startsWith("-") ? prop : "setting " + prop + " (env " + envName(prop) + ")";
        return new IllegalArgumentException(what + " = '" + value + "' is not " + expected);
    }
}
