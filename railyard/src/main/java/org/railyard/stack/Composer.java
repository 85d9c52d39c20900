package org.railyard.stack;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.railyard.transport.Capability;
import org.railyard.transport.DatagramLink;
import org.railyard.transport.Link;
import org.railyard.util.Config;

/**
 * Chooses the micro-protocols of a flow from its {@link Context}, following seed 000, Table I
 * (Ethernet columns), and builds the stack of a connection. The composition, top to bottom:
 *
 * <pre>
 *  transport         scheme  locality         micro-protocols
 *  reliable-ordered  sync    any              Synchronous  > Resize > TransportDrive
 *  reliable-ordered  async   any              Asynchronous > Resize > TransportDrive
 *  unreliable        sync    same node/site   Synchronous  > Resize > SequencedSegment > ReliableFIFO > PositiveAck
 *                                               > Retransmit > RTTEstimation > TransportDrive
 *  unreliable        sync    other site       Synchronous  > Resize > SequencedSegment > ReliableFIFO > PositiveAck
 *                                               > WindCongCtrl > TCPNewRenoCA > DuplicateAck > Retransmit
 *                                               > RTTEstimation > TransportDrive
 *  unreliable        async   same node/site   Asynchronous > Resize > TransportDrive
 *  unreliable        async   other site       Asynchronous > Resize > DCCPWindCCtrl > TCPCongAvoid > DCCPAck
 *                                               > TransportDrive
 * </pre>
 *
 * <p>Over a reliable, ordered transport (tcp, shm, self) the three protocols have nothing to do:
 * the channel already cuts frames to the link's limit, the transport orders and retransmits, and
 * the value flow's latest-value rule is kept at its ends (the communicator view supersedes values
 * still queued, and drops stale ones). So such a link is used as it is, and the composition is
 * only printed. Over an unreliable transport (udp) the link gets a {@link Stack} with two flows:
 * the channel's sequenced frames are always composed for the synchronous scheme (MPI messages
 * must all arrive, in order), the value flow for the scheme its values are sent under
 * ({@code railyard.scheme} at first, then whatever the VALUE frames say, by reconfiguration).
 *
 * <p>Locality: same node when both ends' node identities are equal, same site when their
 * {@code railyard.site} settings are, other site otherwise; {@code railyard.stack.locality} forces
 * one for every peer (the study uses it to compare compositions on one machine).
 */
public final class Composer {
    private Composer() {
    }

    /** Every micro-protocol's name, as {@link #instantiate(List)} knows it. */
    static final List<String> NAMES = List.of("Synchronous", "Asynchronous", "Resize", "SequencedSegment",
            "ReliableFIFO", "PositiveAck", "WindCongCtrl", "TCPNewRenoCA", "DuplicateAck", "Retransmit", "RTTEstimation",
            "DCCPWindCCtrl", "TCPCongAvoid", "DCCPAck", "TransportDrive");

    /**
     * A new instance of the protocol named {@code name}. A switch, not a table of constructor
     * references: each reference is a call site the JVM links when the class initialises (a hidden
     * class each), in every JVM and in every rank of {@code run --threads}, for the first link of the
     * job, whereas protocols are instantiated only over unreliable transports.
     */
    private static MicroProtocol create(String name) {
        return switch (name) {
            case "Synchronous" -> new Synchronous();
            case "Asynchronous" -> new Asynchronous();
            case "Resize" -> new Resize();
            case "SequencedSegment" -> new SequencedSegment();
            case "ReliableFIFO" -> new ReliableFifo();
            case "PositiveAck" -> new PositiveAck();
            case "WindCongCtrl" -> new WindCongCtrl();
            case "TCPNewRenoCA" -> new TcpNewRenoCa();
            case "DuplicateAck" -> new DuplicateAck();
            case "Retransmit" -> new Retransmit();
            case "RTTEstimation" -> new RttEstimation();
            case "DCCPWindCCtrl" -> new DccpWindCCtrl();
            case "TCPCongAvoid" -> new TcpCongAvoid();
            case "DCCPAck" -> new DccpAck();
            case "TransportDrive" -> new TransportDrive();
            default -> throw new IllegalArgumentException("no micro-protocol named " + name + "; known: " + NAMES);
        };
    }

    /** The names of the micro-protocols composed for {@code c}, top to bottom. */
    public static List<String> composition(Context c) {
        List<String> l = new ArrayList<>();
        l.add(c.scheme() == Scheme.SYNC ? "Synchronous" : "Asynchronous");
        l.add("Resize");
        if (!c.reliableTransport()) {
            boolean otherSite = c.locality() == Locality.OTHER_SITE;
            if (c.scheme() == Scheme.SYNC) {
                l.addAll(List.of("SequencedSegment", "ReliableFIFO", "PositiveAck"));
                if (otherSite) {
                    l.addAll(List.of("WindCongCtrl", "TCPNewRenoCA", "DuplicateAck"));
                }
                l.addAll(List.of("Retransmit", "RTTEstimation"));
            } else if (otherSite) {
                l.addAll(List.of("DCCPWindCCtrl", "TCPCongAvoid", "DCCPAck"));
            }
        }
        l.add("TransportDrive");
        return l;
    }

    /** New instances of the protocols named, in that order. */
    public static List<MicroProtocol> instantiate(List<String> names) {
        List<MicroProtocol> l = new ArrayList<>(names.size());
        for (String n : names) {
            l.add(create(n));
        }
        return l;
    }

    /** New instances of the composition for {@code c}. */
    public static List<MicroProtocol> instantiate(Context c) {
        return instantiate(composition(c));
    }

    /** The whole table, one line per context, for the documentation and {@code --print-choices}. */
    public static String table() {
        StringBuilder sb = new StringBuilder();
        for (boolean reliable : new boolean[] {true, false}) {
            for (Scheme s : Scheme.values()) {
                for (Locality l : Locality.values()) {
                    Context c = new Context(s, l, reliable);
                    sb.append(String.format("%-54s %s%n", c, String.join(" > ", composition(c))));
                }
            }
        }
        return sb.toString();
    }

    /** True when the link's transport is reliable and ordered (nothing to compose below the channel). */
    public static boolean reliable(Link link) {
        Set<Capability> caps = link.transport().capabilities();
        return caps.contains(Capability.RELIABLE) && caps.contains(Capability.ORDERED);
    }

    /**
     * The link the channel should use for {@code link}: itself over a reliable, ordered transport,
     * else a {@link Stack} composed for the link's context. The choice is told to {@code choices}
     * (may be null), one line.
     */
    public static Link compose(Link link, Consumer<String> choices) {
        Scheme values = Scheme.parse(Config.string(Config.SCHEME_PROP, Config.SCHEME_DEFAULT));
        if (reliable(link) || !(link instanceof DatagramLink d)) {
            if (choices != null) {
                Context c = new Context(Scheme.SYNC, Locality.SAME_SITE, true);
                choices.accept("stack over " + link.transport().name() + " (reliable-ordered, any locality): frames "
                        + String.join(" > ", composition(c)) + "; values " + String.join(" > ",
                        composition(new Context(Scheme.ASYNC, Locality.SAME_SITE, true)))
                        + " when asynchronous; all pass-through, the link is used as it is");
            }
            return link;
        }
        String forced = Config.string(Config.STACK_LOCALITY_PROP, Config.STACK_LOCALITY_DEFAULT);
        Locality locality = !forced.isEmpty() ? Locality.parse(forced)
                : d.sameNode() ? Locality.SAME_NODE : d.sameSite() ? Locality.SAME_SITE : Locality.OTHER_SITE;
        Stack s = new Stack(d, locality, values, StackSettings.fromConfig().fitting(d), Clock.SYSTEM, injected(d), choices);
        if (choices != null) {
            choices.accept(s.describeComposition());
        }
        return s;
    }

    /** The fault-injection layer named by {@code railyard.stack.inject}, or null. */
    static MicroProtocol injected(Link link) {
        String spec = Config.string(Config.STACK_INJECT_PROP, Config.STACK_INJECT_DEFAULT);
        if (spec.isEmpty()) {
            return null;
        }
        int colon = spec.indexOf(':');
        String cls = colon < 0 ? spec : spec.substring(0, colon);
        String arg = colon < 0 ? "" : spec.substring(colon + 1);
        try {
            ClassLoader cl = Thread.currentThread().getContextClassLoader();
            Class<?> c = Class.forName(cls, true, cl != null ? cl : Composer.class.getClassLoader());
            return (MicroProtocol) c.getConstructor(String.class, int.class).newInstance(arg, link.peer());
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalArgumentException("setting " + Config.STACK_INJECT_PROP + " = '" + spec
                    + "': needs a MicroProtocol class with a public (String, int) constructor: " + e, e);
        }
    }
}
