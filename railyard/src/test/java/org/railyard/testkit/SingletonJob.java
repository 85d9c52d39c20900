package org.railyard.testkit;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.railyard.Comm;
import org.railyard.Railyard;

/**
 * A job of one for a test class: this JVM, started without a launcher, joins as a singleton before
 * the class's first test and leaves after its last. Register it as
 * <pre>{@code @RegisterExtension static final SingletonJob job = new SingletonJob();}</pre>
 * and reach the job through {@link #world()}.
 */
public final class SingletonJob implements BeforeAllCallback, AfterAllCallback {
    private Railyard railyard;

    @Override
    public void beforeAll(ExtensionContext context) {
        railyard = Railyard.init();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        railyard.close();
        railyard = null;
    }

    /** The job's world communicator (of size 1). */
    public Comm world() {
        if (railyard == null) {
            throw new IllegalStateException("the singleton job is joined only while its test class runs");
        }
        return railyard.world();
    }
}
