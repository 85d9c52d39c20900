package org.railyard.engine;

import org.railyard.channel.ChannelTable;

/**
 * Checks of settings that tools pass on to the ranks (the launcher, the benchmarks), made before
 * any rank starts, with the same rules the ranks apply: the API reaches the channel floor's
 * checks through here.
 */
public final class SettingChecks {
    private SettingChecks() {
    }

    /** Fails naming {@code spec} and every accepted form when it is no rail policy. */
    public static void railPolicy(String spec) {
        ChannelTable.checkRailPolicy(spec);
    }

    /** Fails naming the first unknown transport of {@code list} and the available ones. */
    public static void transports(String list) {
        ChannelTable.checkTransports(list);
    }
}
