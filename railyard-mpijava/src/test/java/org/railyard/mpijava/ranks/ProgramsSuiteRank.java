package org.railyard.mpijava.ranks;

/**
 * The six program shapes of issue 26 in one job, one after the other, each from its own
 * {@code MPI.Init} to its own {@code MPI.Finalize} (as MPJ Express lets one JVM do): the 8-rank
 * row of {@code MpjExpressProgramsTest} starts its JVMs once instead of six times. Each program
 * prints its own "done"; the suite prints one more after the last.
 */
public final class ProgramsSuiteRank {
    private ProgramsSuiteRank() {
    }

    public static void main(String[] args) throws Exception {
        BsendObjectsRank.main(args);
        RangeRank.main(args);
        EmptyTypeRank.main(args);
        ConstantsRank.main(args);
        MpjbufRank.main(args);
        ReinitRank.main(args);
        System.out.println("done");
    }
}
