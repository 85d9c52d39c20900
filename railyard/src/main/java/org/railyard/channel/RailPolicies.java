package org.railyard.channel;

import java.util.Locale;

/**
 * The scheduling policies by name, as {@code railyard.rail.policy} spells them:
 *
 * <pre>
 *  binding                    one rail per pair of processes
 *  rr                         round robin, whole messages
 *  wrr:W                      window round robin, W messages per rail in turn
 *  even                       even striping
 *  weighted:w0,w1,...         weighted striping, fixed weights per rail index
 *  adaptive[:alpha]           adaptive striping, eq. 7.4 (alpha 0.5 by default)
 *  bss:NPATHS,NBATCH[,alpha]  batch-based striping and sorting, eq. 8.3 (alpha 0.5 by default)
 *  epc                        enhanced point-to-point and collective (uses the engine's marker)
 * </pre>
 */
public final class RailPolicies {
    private RailPolicies() {
    }

    /** Every accepted form, for error messages and help. */
    public static final String FORMS = "binding, rr, wrr:W, even, weighted:w0,w1,..., adaptive[:alpha], "
            + "bss:NPATHS,NBATCH[,alpha], epc";

    static final double ADAPTIVE_ALPHA = 0.5;
    static final double BSS_ALPHA = 0.5;

    /**
     * A new policy (policies keep per-channel state) for the channel from {@code rank} to {@code peer}.
     *
     * @throws IllegalArgumentException naming the setting and the accepted forms when {@code spec} is not one
     */
    public static RailPolicy create(String spec, int rank, int peer) {
        String s = spec.trim().toLowerCase(Locale.ROOT);
        int colon = s.indexOf(':');
        String name = colon < 0 ? s : s.substring(0, colon);
        String[] args = colon < 0 ? new String[0] : s.substring(colon + 1).split(",");
        try {
            return switch (name) {
                case "binding" -> none(args, new BindingPolicy(rank, peer));
                case "rr", "roundrobin" -> none(args, new RoundRobinPolicy(1));
                case "wrr" -> new RoundRobinPolicy(args.length == 1 ? Integer.parseInt(args[0].trim()) : bad());
                case "even" -> none(args, new EvenStripingPolicy());
                case "weighted" -> {
                    double[] w = new double[args.length];
                    for (int i = 0; i < args.length; i++) {
                        w[i] = Double.parseDouble(args[i].trim());
                    }
                    yield new WeightedStripingPolicy(w);
                }
                case "adaptive" -> new AdaptiveStripingPolicy(args.length == 0 ? ADAPTIVE_ALPHA
                        : args.length == 1 ? Double.parseDouble(args[0].trim()) : bad());
                case "bss" -> {
                    if (args.length < 2 || args.length > 3) {
                        bad();
                    }
                    yield new BssPolicy(Integer.parseInt(args[0].trim()), Integer.parseInt(args[1].trim()),
                            args.length == 3 ? Double.parseDouble(args[2].trim()) : BSS_ALPHA);
                }
                case "epc" -> none(args, new EpcPolicy());
                default -> throw new IllegalArgumentException("unknown policy '" + name + "'");
            };
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("rail policy '" + spec + "' (railyard.rail.policy) is not valid: "
                    + (e instanceof NumberFormatException ? "a parameter is not a number" : e.getMessage())
                    + "; accepted: " + FORMS, e);
        }
    }

    private static RailPolicy none(String[] args, RailPolicy p) {
        if (args.length > 0) {
            throw new IllegalArgumentException("'" + p.name() + "' takes no parameters");
        }
        return p;
    }

    private static int bad() {
        throw new IllegalArgumentException("wrong number of parameters");
    }

    /** A number as short as it reads: 0.5, 2, 0.125. */
    static String number(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
