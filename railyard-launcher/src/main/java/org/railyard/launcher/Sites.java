package org.railyard.launcher;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The sites of a multi-site job ({@code railyard run --sites FILE}): hosts grouped by site, with
 * each site's gateway(s). The file has a line {@code site NAME [gateway HOST:PORT[,HOST:PORT]]}
 * before the hosts of that site, which are written as in a hosts file ({@code name} or
 * {@code name slots=N}); '#' starts a comment. Ranks are placed over all hosts in file order
 * ({@link Host#place}), so a site's ranks are consecutive when every host is filled once.
 *
 * <pre>
 * site east gateway gw-east:7430
 * node1 slots=2
 * site west gateway gw-west:7430,gw-west2:7430
 * node7 slots=2
 * </pre>
 */
public record Sites(List<Site> sites) {
    /** One site: its name, its gateways ({@code HOST:PORT}; empty when the launcher embeds them), its hosts. */
    public record Site(String name, List<String> gateways, List<Host> hosts) {
        public Site {
            gateways = List.copyOf(gateways);
            hosts = List.copyOf(hosts);
        }
    }

    public Sites {
        sites = List.copyOf(sites);
    }

    /** Every host of every site, in file order. */
    public List<Host> hosts() {
        List<Host> all = new ArrayList<>();
        sites.forEach(s -> all.addAll(s.hosts()));
        return all;
    }

    /** The site of each rank of a job of {@code np}, placed as {@link Host#place} places them. */
    public List<Site> placeSites(int np) {
        List<Site> bySlot = new ArrayList<>();
        List<Host> hosts = new ArrayList<>();
        for (Site s : sites) {
            for (Host h : s.hosts()) {
                hosts.add(h);
                bySlot.add(s);
            }
        }
        List<Site> out = new ArrayList<>(np);
        while (out.size() < np) {
            for (int i = 0; i < hosts.size() && out.size() < np; i++) {
                for (int k = 0; k < hosts.get(i).slots() && out.size() < np; k++) {
                    out.add(bySlot.get(i));
                }
            }
        }
        return out;
    }

    /**
     * Reads a sites file.
     *
     * @throws IllegalArgumentException naming the file and line of the first fault: a host before
     *                                  any site, a site named twice or without hosts, a malformed
     *                                  gateway, or a file that cannot be read or names no site
     */
    public static Sites readFile(Path file) {
        List<String> lines = Host.lines(file, "sites file");
        List<Site> sites = new ArrayList<>();
        Set<String> names = new HashSet<>();
        String name = null;
        List<String> gateways = List.of();
        List<Host> hosts = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String[] words = Host.words(lines.get(i));
            if (words[0].isEmpty()) {
                continue;
            }
            String where = "sites file " + file + " line " + (i + 1) + ": ";
            if (words[0].equals("site")) {
                if (name != null) {
                    sites.add(close(where, name, gateways, hosts));
                }
                if (words.length != 2 && !(words.length == 4 && words[2].equals("gateway"))) {
                    throw new IllegalArgumentException(where + "expected 'site NAME' or 'site NAME gateway HOST:PORT[,HOST:PORT]'");
                }
                name = words[1];
                if (!name.matches("[!-~]+") || name.matches(".*[;:,].*")) {
                    throw new IllegalArgumentException(where + "site name '" + name + "' must be printable, without ';', ':' or ','");
                }
                if (!names.add(name)) {
                    throw new IllegalArgumentException(where + "site " + name + " is named twice");
                }
                gateways = words.length == 4 ? List.of(words[3].split(",")) : List.of();
                for (String g : gateways) {
                    int colon = g.lastIndexOf(':');
                    if (colon <= 0 || !g.substring(colon + 1).matches("[0-9]{1,5}")) {
                        throw new IllegalArgumentException(where + "gateway '" + g + "' is not HOST:PORT");
                    }
                }
                hosts = new ArrayList<>();
                continue;
            }
            if (name == null) {
                throw new IllegalArgumentException(where + "host '" + words[0] + "' before any 'site NAME' line");
            }
            hosts.add(Host.entry(where, words));
        }
        if (name == null) {
            throw new IllegalArgumentException("sites file " + file + " names no site");
        }
        sites.add(close("sites file " + file + ": ", name, gateways, hosts));
        return new Sites(sites);
    }

    private static Site close(String where, String name, List<String> gateways, List<Host> hosts) {
        if (hosts.isEmpty()) {
            throw new IllegalArgumentException(where + "site " + name + " lists no host");
        }
        return new Site(name, gateways, hosts);
    }
}
