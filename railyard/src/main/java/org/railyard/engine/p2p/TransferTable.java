package org.railyard.engine.p2p;

import java.util.Arrays;
import org.railyard.engine.request.Transfer;

/**
 * Gives transfers ids that can cross the wire (in RTS, CTS and DATA frames) and finds them again
 * without a map: id = generation &lt;&lt; 32 | slot. A stale or forged id names a slot whose
 * generation differs, and is refused.
 */
final class TransferTable {
    private Transfer[] slots = new Transfer[64];
    private int[] generation = new int[64];
    private int[] free = new int[64];
    private int freeCount;
    private int used;
    /** Per slot: the transfer is one the agent can advance while the application is away. */
    private boolean[] forAgent = new boolean[64];
    private int forAgentCount;

    /**
     * Registers {@code t}; {@code agentWork} says whether the agent can advance it while the
     * application is away (a rendezvous: the answer to a request to send, the data that follows).
     */
    long register(Transfer t, boolean agentWork) {
        int slot;
        if (freeCount > 0) {
            slot = free[--freeCount];
        } else {
            if (used == slots.length) {
                slots = Arrays.copyOf(slots, used * 2);
                generation = Arrays.copyOf(generation, used * 2);
                free = Arrays.copyOf(free, used * 2);
                forAgent = Arrays.copyOf(forAgent, used * 2);
            }
            slot = used++;
        }
        slots[slot] = t;
        forAgent[slot] = agentWork;
        if (agentWork) {
            forAgentCount++;
        }
        generation[slot]++;
        t.id = ((long) generation[slot] << 32) | slot;
        return t.id;
    }

    Transfer get(long id) {
        int slot = (int) id;
        if (slot < 0 || slot >= used) {
            return null;
        }
        Transfer t = slots[slot];
        if (t == null || generation[slot] != (int) (id >>> 32)) {
            return null;
        }
        return t;
    }

    void unregister(Transfer t) {
        int slot = (int) t.id;
        if (slot >= 0 && slot < used && slots[slot] == t) {
            slots[slot] = null;
            free[freeCount++] = slot;
            if (forAgent[slot]) {
                forAgent[slot] = false;
                forAgentCount--;
            }
        }
        t.id = 0;
    }

    /** Transfers registered with {@code agentWork}, not yet unregistered. */
    int forAgent() {
        return forAgentCount;
    }

    /** Number of transfers registered (in flight). */
    int registered() {
        return used - freeCount;
    }

    /** The generation of every slot ever used (a checkpoint keeps them, so that ids go on as before). */
    int[] generations() {
        return Arrays.copyOf(generation, used);
    }

    /** The free slots, in the order they will be taken again (last first). */
    int[] freeSlots() {
        return Arrays.copyOf(free, freeCount);
    }

    /** A rank started from a checkpoint: the table as it was at the checkpoint, all slots free. */
    void resume(int[] generations, int[] freeSlots) {
        int n = Math.max(64, generations.length);
        slots = new Transfer[n];
        generation = Arrays.copyOf(generations, n);
        free = new int[n];
        System.arraycopy(freeSlots, 0, free, 0, freeSlots.length);
        freeCount = freeSlots.length;
        used = generations.length;
    }

    /** Calls {@code f} for every registered transfer (on failure paths only). */
    void forEach(java.util.function.Consumer<Transfer> f) {
        for (int i = 0; i < used; i++) {
            if (slots[i] != null) {
                f.accept(slots[i]);
            }
        }
    }
}
