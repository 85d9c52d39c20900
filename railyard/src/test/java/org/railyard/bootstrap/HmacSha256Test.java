package org.railyard.bootstrap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Random;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class HmacSha256Test {
    private static final HexFormat HEX = HexFormat.of();

    @Test
    void rfc4231Vectors() {
        byte[] key1 = new byte[20];
        java.util.Arrays.fill(key1, (byte) 0x0b);
        assertEquals("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
                HEX.formatHex(HmacSha256.of(key1, "Hi There".getBytes(StandardCharsets.US_ASCII))));
        assertEquals("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
                HEX.formatHex(HmacSha256.of("Jefe".getBytes(StandardCharsets.US_ASCII),
                        "what do ya ".getBytes(StandardCharsets.US_ASCII),
                        "want for nothing?".getBytes(StandardCharsets.US_ASCII))));
    }

    /** Keys shorter than, equal to and longer than the block, empty messages, messages in pieces. */
    @Test
    void sameBytesAsJceMacForSeededKeysAndMessages() throws Exception {
        Random random = new Random(4231);
        for (int i = 0; i < 500; i++) {
            byte[] key = new byte[i < 200 ? i : random.nextInt(300)];
            random.nextBytes(key);
            int pieces = random.nextInt(4);
            byte[][] parts = new byte[pieces][];
            ByteArrayOutputStream whole = new ByteArrayOutputStream();
            for (int p = 0; p < pieces; p++) {
                parts[p] = new byte[random.nextInt(200)];
                random.nextBytes(parts[p]);
                whole.write(parts[p]);
            }
            Mac mac = Mac.getInstance("HmacSHA256");
            // the JCE refuses an empty key; HMAC defines it (zero padding), so compare from length 1
            if (key.length > 0) {
                mac.init(new SecretKeySpec(key, "HmacSHA256"));
                assertArrayEquals(mac.doFinal(whole.toByteArray()), HmacSha256.of(key, parts),
                        "key of " + key.length + " bytes, " + pieces + " pieces");
            }
            assertEquals(HmacSha256.LENGTH, HmacSha256.of(key, parts).length);
        }
    }
}
