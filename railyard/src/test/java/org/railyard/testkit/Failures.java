package org.railyard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.assertj.core.api.AbstractThrowableAssert;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/** Assertions on the library's errors. */
public final class Failures {
    private Failures() {
    }

    /** Asserts that {@code call} throws a {@link RailyardException} of class {@code expected}; its message can be checked further. */
    public static AbstractThrowableAssert<?, ? extends Throwable> assertFails(ErrorClass expected, ThrowingCallable call) {
        return assertThatThrownBy(call)
                .isInstanceOfSatisfying(RailyardException.class,
                        e -> assertThat(e.errorClass()).as("class of %s", e).isEqualTo(expected));
    }
}
