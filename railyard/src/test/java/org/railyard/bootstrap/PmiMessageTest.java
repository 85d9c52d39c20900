package org.railyard.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Parsing of single PMI-1 lines, as Hydra writes them. */
class PmiMessageTest {
    private static final String FROM = "test server";

    @Test
    void parsesCommandAndAttributes() {
        PmiMessage m = PmiMessage.parse("cmd=get_result rc=0 msg=success value=a=b", FROM);
        assertThat(m.cmd()).isEqualTo("get_result");
        assertThat(m.rc(FROM)).isZero();
        assertThat(m.attr("msg")).isEqualTo("success");
        assertThat(m.required("value", FROM)).isEqualTo("a=b"); // split at the first '=' only
        assertThat(m.attr("absent")).isNull();
    }

    @Test
    void toleratesRepeatedSpacesAndEmptyValues() {
        PmiMessage m = PmiMessage.parse("  cmd=put_result   rc=-1  msg= ", FROM);
        assertThat(m.cmd()).isEqualTo("put_result");
        assertThat(m.rc(FROM)).isEqualTo(-1);
        assertThat(m.attr("msg")).isEmpty();
    }

    @Test
    void missingRcCountsAsSuccess() {
        assertThat(PmiMessage.parse("cmd=barrier_out", FROM).rc(FROM)).isZero();
    }

    @Test
    void malformedLinesAreQuoted() {
        assertThatThrownBy(() -> PmiMessage.parse("", FROM)).hasMessageContaining("test server sent a malformed PMI-1 line ''");
        assertThatThrownBy(() -> PmiMessage.parse("cmd= x=1", FROM)).hasMessageContaining("does not start with cmd=NAME");
        assertThatThrownBy(() -> PmiMessage.parse("cmd=a =b", FROM)).hasMessageContaining("'=b' is not key=value");
        PmiMessage m = PmiMessage.parse("cmd=maxes vallen_max=lots", FROM);
        assertThatThrownBy(() -> m.requiredInt("vallen_max", FROM))
                .hasMessageContaining("'cmd=maxes vallen_max=lots'").hasMessageContaining("not a whole number");
        assertThatThrownBy(() -> m.required("keylen_max", FROM)).hasMessageContaining("without the attribute 'keylen_max'");
    }

    @Test
    void longLinesAreShortenedInMessages() {
        String quoted = PmiMessage.quote("x".repeat(5000));
        assertThat(quoted).hasSizeLessThan(200).contains("(5000 chars)");
    }
}
