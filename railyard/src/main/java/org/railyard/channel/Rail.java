package org.railyard.channel;

import org.railyard.transport.Link;

/** One path of a virtual channel: a transport link and what it has carried. */
public final class Rail {
    final Link link;
    long framesSent;
    long bytesSent;
    long framesReceived;
    long bytesReceived;

    Rail(Link link) {
        this.link = link;
    }

    public Link link() {
        return link;
    }

    public long framesSent() {
        return framesSent;
    }

    public long bytesSent() {
        return bytesSent;
    }

    public long framesReceived() {
        return framesReceived;
    }

    public long bytesReceived() {
        return bytesReceived;
    }

    @Override
    public String toString() {
        return link.describe() + " (sent " + framesSent + " frames / " + bytesSent + " B, received "
                + framesReceived + " frames / " + bytesReceived + " B)";
    }
}
