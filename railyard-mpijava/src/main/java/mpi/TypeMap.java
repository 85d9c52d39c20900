package mpi;

/**
 * The one concrete {@link Datatype}: every predefined and derived type is a type map over one base
 * type, so the abstract class (abstract as in MPJ Express) carries all the behaviour.
 */
final class TypeMap extends Datatype {
    TypeMap(int base, int[] disp, int dataLo, int dataHi, int markLb, int markUb, String name, boolean predefined) {
        super(base, disp, dataLo, dataHi, markLb, markUb, name, predefined);
    }
}
