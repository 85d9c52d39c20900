/** The mpiJava 1.2 facade (package {@code mpi}), built on Railyard's exported API only. */
module org.railyard.mpijava {
    requires transitive org.railyard;

    exports mpi;
}
