package org.railyard.gateway;

import java.io.IOException;

/** Input that closes its connection: the message is the reason, logged and sent in an ERROR. */
final class BadInput extends IOException {
    BadInput(String why) {
        super(why);
    }
}
