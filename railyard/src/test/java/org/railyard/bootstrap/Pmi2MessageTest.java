package org.railyard.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.railyard.testkit.Failures.assertFails;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.error.ErrorClass;

/**
 * The PMI-2 framing and message parser on what real servers sent (the recordings in
 * {@code resources/pmi2/}: Slurm 22.05's mpi/pmi2 and MPICH 4.0's Hydra), the process mapping on
 * the layouts they gave, and on malformed input.
 */
class Pmi2MessageTest {
    private static final String FROM = "the test server";

    /** The server's messages of a recording, framed as they were on the wire (the init line left out). */
    private static List<String> serverMessages(String recording) throws IOException {
        List<String> out = new ArrayList<>();
        try (InputStream in = Pmi2MessageTest.class.getResourceAsStream("/pmi2/" + recording)) {
            assertThat(in).as(recording).isNotNull();
            for (String line : new String(in.readAllBytes(), StandardCharsets.US_ASCII).split("\n")) {
                if (line.startsWith("S: '") && !line.contains("\\n")) {
                    out.add(line.substring(4, line.length() - 1));
                }
            }
        }
        return out;
    }

    /** Frames and parses every server message of a recording; returns the bodies by command. */
    private static Map<String, Pmi2Message> parseAll(String recording) throws IOException {
        Map<String, Pmi2Message> byCmd = new HashMap<>();
        List<String> messages = serverMessages(recording);
        assertThat(messages).hasSize(9);
        for (String wire : messages) {
            int length = Pmi2Message.length(wire.substring(0, 6), 65536, FROM);
            assertThat(length).as(wire).isEqualTo(wire.length() - 6);
            Pmi2Message m = Pmi2Message.parse(wire.substring(6), FROM);
            assertThat(m.requiredInt("rc", FROM)).as(wire).isZero();
            byCmd.merge(m.cmd() + (m.attr("found") != null ? ":" + m.attr("found") : ""), m, (a, b) -> a);
        }
        return byCmd;
    }

    @Test
    void slurmsMessagesWithTheLengthPaddedOnTheRight() throws IOException {
        Map<String, Pmi2Message> m = parseAll("slurm-2tasks-rank0.txt");
        Pmi2Message init = m.get("fullinit-response");
        assertThat(init.requiredInt("rank", FROM)).isZero();
        assertThat(init.requiredInt("size", FROM)).isEqualTo(2);
        assertThat(m.get("job-getid-response").required("jobid", FROM)).isEqualTo("4.0");
        Pmi2Message card = m.get("kvs-get-response:TRUE");
        assertThat(card.required("value", FROM)).isEqualTo("node:vm%3Bpid:9517");
        assertThat(Pmi2Bootstrap.unescape(card.required("value", FROM), "card-0")).isEqualTo("node:vm;pid:9517");
        assertThat(m.get("kvs-get-response:FALSE").found(FROM)).isFalse();
        String mapping = m.get("info-getjobattr-response:TRUE").required("value", FROM);
        assertThat(mapping).isEqualTo("(vector,(0,1,2))");
        assertThat(ProcessMapping.nodeOfRank(mapping, 2, FROM)).containsExactly(0, 0);
    }

    @Test
    void slurmsCyclicLayoutPutsEveryRankOnTheOneNode() throws IOException {
        List<String> messages = serverMessages("slurm-3tasks-cyclic-rank0.txt");
        Pmi2Message map = Pmi2Message.parse(messages.get(2).substring(6), FROM);
        assertThat(map.cmd()).isEqualTo("info-getjobattr-response");
        assertThat(ProcessMapping.nodeOfRank(map.required("value", FROM), 3, FROM)).containsExactly(0, 0, 0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"hydra-fd-rank0.txt", "hydra-port-rank0.txt"})
    void hydrasMessagesWithTheLengthPaddedOnTheLeft(String recording) throws IOException {
        Map<String, Pmi2Message> m = parseAll(recording);
        assertThat(m.get("job-getid-response").required("jobid", FROM)).startsWith("kvs_");
        assertThat(m.get("fullinit-response").requiredInt("size", FROM)).isEqualTo(2);
        String mapping = m.get("info-getjobattr-response:TRUE").required("value", FROM);
        assertThat(ProcessMapping.nodeOfRank(mapping, 2, FROM)).containsExactly(0, 0);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "(vector,(0,2,4))|8|0,0,0,0,1,1,1,1",
        "(vector,(0,2,1))|8|0,1,0,1,0,1,0,1",
        "(vector,(0,1,3),(1,1,1))|5|0,0,0,1,0",
        "(vector, (0,3,2))|5|0,0,1,1,2",
        "(vector,(1,1,2),(0,1,2))|4|1,1,0,0"})
    void processMappingBlocksRepeatUntilEveryRankHasANode(String value, int size, String expected) {
        int[] want = java.util.Arrays.stream(expected.split(",")).mapToInt(Integer::parseInt).toArray();
        assertThat(ProcessMapping.nodeOfRank(value, size, FROM)).containsExactly(want);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "(vector)|holds no block",
        "vector,(0,1,2)|does not have the form",
        "(vector,(0,1))|does not hold three numbers",
        "(vector,(0,1,x))|'x'",
        "(vector,(0,1,-2))|'-2'",
        "(vector,(0,0,2))|place no rank",
        "(vector,(0,1,2)|not closed",
        "(vector;(0,1,2))|expected ',('"})
    void malformedProcessMappingsAreBootstrapErrors(String value, String why) {
        assertFails(ErrorClass.BOOTSTRAP, () -> ProcessMapping.nodeOfRank(value, 4, FROM))
                .hasMessageContaining("PMI_process_mapping").hasMessageContaining(why);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "'      '|begins with its length",
        "'-1    '|begins with its length",
        "'0     '|begins with its length",
        "'1 2   '|begins with its length",
        "'99999 '|number from 1 to 65536"})
    void badLengthFieldsAreBootstrapErrors(String field, String why) {
        assertFails(ErrorClass.BOOTSTRAP, () -> Pmi2Message.length(field, 65536, FROM))
                .hasMessageContaining(why);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "''|it is empty",
        "rc=0;|does not start with cmd=NAME",
        "cmd=;rc=0;|does not start with cmd=NAME",
        "cmd=x;rc=0|does not end with ';'",
        "cmd=x;rc=0;rc=1;|appears twice",
        "cmd=x;value=a;b;|'b' is not key=value",
        "cmd=x;;rc=0;|empty attribute"})
    void malformedBodiesAreBootstrapErrorsQuotingThem(String body, String why) {
        assertFails(ErrorClass.BOOTSTRAP, () -> Pmi2Message.parse(body, FROM))
                .hasMessageContaining(why).hasMessageContaining("'" + body + "'");
    }

    @Test
    void doubledSemicolonInsideAValueIsOneSemicolonAsMpichWritesIt() {
        Pmi2Message m = Pmi2Message.parse("cmd=kvs-get-response;rc=0;found=TRUE;value=a;;b;", FROM);
        assertThat(m.attr("value")).isEqualTo("a;b");
        assertThat(m.found(FROM)).isTrue();
    }

    @Test
    void framingPadsTheLengthOnTheRightAsSlurmDoes() {
        assertThat(Pmi2Message.frame("cmd=kvs-fence;")).isEqualTo("14    cmd=kvs-fence;");
    }

    @Test
    void escapingRoundTripsAndRefusesForeignPercents() {
        String v = "a;b%c;;%%";
        assertThat(Pmi2Bootstrap.escape(v)).doesNotContain(";");
        assertThat(Pmi2Bootstrap.unescape(Pmi2Bootstrap.escape(v), "k")).isEqualTo(v);
        assertFails(ErrorClass.BOOTSTRAP, () -> Pmi2Bootstrap.unescape("50%off", "k"))
                .hasMessageContaining("'k'").hasMessageContaining("index 2");
    }
}
