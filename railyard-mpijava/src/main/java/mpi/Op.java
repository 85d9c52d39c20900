package mpi;

import org.railyard.types.Kind;
import org.railyard.types.Reduction;

/**
 * A reduction operation: the predefined ones ({@code MPI.SUM} ...) or one of the program's own,
 * built from a {@link User_function}.
 *
 * <h2>How it maps to Railyard</h2>
 * A predefined operation is Railyard's {@link Reduction} of the same name; a user operation
 * becomes a Railyard reduction that calls the function on the base-type arrays the engine
 * combines, with as many base values per item as the datatype has ({@link Reduction#width()}), so
 * that no algorithm splits an element. Reductions over {@link MPI#OBJECT} run the function on
 * Object arrays, see {@link Intracomm#Reduce}.
 */
public class Op {
    /** Railyard's reduction, for the predefined operations; null for user operations. */
    final Reduction predefined;
    final User_function function;
    final boolean commute;
    private final String name;
    private boolean freed;

    /** Railyard's operation for a predefined one (made once); null for user operations. */
    private final org.railyard.Op nativePredefined;

    Op(Reduction predefined) {
        this.predefined = predefined;
        this.nativePredefined = org.railyard.Op.of(predefined);
        this.function = null;
        this.commute = predefined.commutative();
        this.name = predefined.name();
    }

    /** A user operation; {@code commute} says whether it is commutative (it must be associative either way). */
    public Op(User_function function, boolean commute) throws MPIException {
        if (function == null) {
            throw MPIException.error("Op: the user function is null");
        }
        this.predefined = null;
        this.nativePredefined = null;
        this.function = function;
        this.commute = commute;
        this.name = "user op " + function.getClass().getName();
    }

    /**
     * MPJ Express's form with an operation code; Railyard needs no code (the function is the
     * operation), so this is {@link #Op(User_function, boolean)}.
     */
    public Op(User_function function, boolean commute, int code) throws MPIException {
        this(function, commute);
    }

    /** Frees a user operation: later use fails. The predefined operations cannot be freed. */
    public void free() throws MPIException {
        if (predefined != null) {
            throw MPIException.error("the predefined operation MPI." + name + " cannot be freed");
        }
        freed = true;
    }

    boolean isUser() {
        return function != null;
    }

    /** The Railyard operation that applies this one to the base values of {@code type}. */
    org.railyard.Op nativeOp(Datatype type) {
        Reduction r = reduction(type);
        return predefined != null ? nativePredefined : org.railyard.Op.of(r);
    }

    /** The Railyard reduction that applies this operation to the base values of {@code type}. */
    Reduction reduction(Datatype type) {
        if (freed) {
            throw MPIException.error("operation " + name + " was freed");
        }
        if (predefined != null) {
            checkApplies(type);
            return predefined;
        }
        int width = Math.max(1, type.size());
        // Railyard reduces packed values: a type with holes is described to the function by its contiguous image.
        Datatype seen = type.contiguous ? type : Datatype.Contiguous(type.size(), MPI.basicOf(type.base));
        User_function f = function;
        return Reduction.of(name, commute, width, (Kind kind, Object in, int inOff, Object inout, int ioOff, int count) ->
                f.Call(in, inOff, inout, ioOff, count / width, seen));
    }

    /**
     * Fails at every rank alike, before anything is sent, if a predefined operation does not apply
     * to the base type: found during the reduction, the error would stop some ranks and leave the
     * others waiting for them.
     */
    private void checkApplies(Datatype type) {
        if (type.kind == null) {
            throw MPIException.error("MPI." + name + " does not apply to datatype " + type);
        }
        if (predefined.width() > 1) {
            boolean numeric = switch (type.kind) {
                case SHORT, INT, LONG, FLOAT, DOUBLE -> true;
                default -> false;
            };
            if (!numeric || type.size() % predefined.width() != 0) {
                throw MPIException.error("MPI." + name + " needs (value, index) pairs: use MPI.SHORT2, INT2, LONG2, FLOAT2 or "
                        + "DOUBLE2 (or a type of whole pairs of one of those base types), not " + type);
            }
            return;
        }
        int bit = 1 << type.kind.ordinal();
        if ((appliesTo & bit) != 0) {
            return;
        }
        Object empty = type.kind.newArray(0);
        try {
            predefined.apply(type.kind, empty, 0, empty, 0, 0);
        } catch (org.railyard.error.RailyardException e) {
            throw MPIException.of(e);
        }
        appliesTo |= bit;
    }

    /**
     * The base kinds (a bit per {@code Kind} ordinal) this predefined operation was found to apply
     * to, so that a collective's call checks a kind once, not once a call (the check applied the
     * operation to an empty array it allocated). A race only repeats a check.
     */
    private volatile int appliesTo;

    @Override
    public String toString() {
        return name;
    }
}
