package mpi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.railyard.Layout;

/** How the facade's datatypes become Railyard's one-sided layouts (no job needed). */
class WinLayoutTest {

    @Test
    void aBasicTypeIsOneValueOfItsKind() {
        assertThat(MPI.DOUBLE.layout()).isEqualTo(Layout.of(org.railyard.Datatype.DOUBLE));
        assertThat(MPI.INT.layout().contiguous()).isTrue();
    }

    @Test
    void aVectorKeepsItsRunsAndItsExtent() {
        Layout l = Datatype.Vector(3, 2, 4, MPI.INT).layout();
        assertThat(l).isEqualTo(Layout.vector(3, 2, 4, org.railyard.Datatype.INT));
        assertThat(l.extent()).isEqualTo(10);
        assertThat(l.size()).isEqualTo(6);
    }

    @Test
    void consecutiveSlotsOfAnIndexedTypeMergeIntoOneRun() {
        Layout l = Datatype.Indexed(new int[] {2, 1, 3}, new int[] {0, 2, 6}, MPI.LONG).layout();
        assertThat(l.runCount()).isEqualTo(2);
        assertThat(l.runDisp(0)).isZero();
        assertThat(l.runLength(0)).isEqualTo(3);
        assertThat(l.runDisp(1)).isEqualTo(6);
        assertThat(l.runLength(1)).isEqualTo(3);
        assertThat(l.extent()).isEqualTo(9);
    }

    @Test
    void anUpperBoundMarkerSetsTheExtent() {
        Datatype t = Datatype.Struct(new int[] {2, 1}, new int[] {1, 8}, new Datatype[] {MPI.FLOAT, MPI.UB});
        Layout l = t.layout();
        assertThat(l.extent()).isEqualTo(t.Extent());
        assertThat(l.span(2)).isEqualTo(t.Extent() + 3);
    }

    @Test
    void typesWithoutBasicValuesOrBeforeSlotZeroAreRefusedByName() {
        assertThatThrownBy(MPI.OBJECT::layout).hasMessageContaining("OBJECT").hasMessageContaining("one-sided");
        Datatype early = Datatype.Hindexed(new int[] {1}, new int[] {-2}, MPI.INT);
        assertThatThrownBy(early::layout).hasMessageContaining("before slot 0").hasMessageContaining("-2");
    }
}
