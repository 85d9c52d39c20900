/** Applications written on Railyard's API: the obstacle problem and its solvers. */
module org.railyard.apps {
    requires org.railyard;
    requires me.tongfei.progressbar;

    exports org.railyard.apps.obstacle;
}
