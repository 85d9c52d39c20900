package org.railyard.engine.p2p;

import java.util.Arrays;
import org.railyard.engine.request.Transfer;

/**
 * Sends and receives of blocking calls and collective schedules, given back once done, so that
 * the steady state allocates no requests. Used under the progress lock.
 */
final class TransferPools {
    private final Transfer.Owner owner;
    private final int rank;
    private SendTransfer[] sends = new SendTransfer[8];
    private int sendCount;
    private RecvTransfer[] recvs = new RecvTransfer[8];
    private int recvCount;

    TransferPools(Transfer.Owner owner, int rank) {
        this.owner = owner;
        this.rank = rank;
    }

    /** A send that is not pooled (a non-blocking call's request, which the application keeps). */
    SendTransfer newSend() {
        return new SendTransfer(owner);
    }

    /** A receive that is not pooled. */
    RecvTransfer newRecv() {
        return new RecvTransfer(owner, rank);
    }

    SendTransfer acquireSend() {
        SendTransfer t = sendCount > 0 ? sends[--sendCount] : newSend();
        t.mayBeRead = true;
        return t;
    }

    void releaseSend(SendTransfer t) {
        if (t.state == Transfer.PENDING) {
            return; // still referenced by a queue (cannot happen after await); let it go
        }
        t.clear();
        if (sendCount == sends.length) {
            sends = Arrays.copyOf(sends, sendCount * 2);
        }
        sends[sendCount++] = t;
    }

    RecvTransfer acquireRecv() {
        return recvCount > 0 ? recvs[--recvCount] : newRecv();
    }

    void releaseRecv(RecvTransfer t) {
        if (t.state == Transfer.PENDING) {
            return;
        }
        t.clear();
        t.channel = null;
        if (recvCount == recvs.length) {
            recvs = Arrays.copyOf(recvs, recvCount * 2);
        }
        recvs[recvCount++] = t;
    }
}
