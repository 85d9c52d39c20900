package org.railyard.launcher;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * Reports bad command-line input in one line plus a hint, instead of picocli's default of the
 * message followed by the whole usage: the usage of {@code railyard run} is long enough to push
 * the actual error off the screen.
 */
public final class ShortErrorHandler implements IParameterExceptionHandler {
    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine cl = ex.getCommandLine();
        PrintWriter err = cl.getErr();
        String name = cl.getCommandSpec().qualifiedName();
        err.println(name + ": " + ex.getMessage());
        UnmatchedArgumentException.printSuggestions(ex, err);
        err.println("Try '" + name + " --help' for more information.");
        err.flush();
        return cl.getCommandSpec().exitCodeOnInvalidInput();
    }
}
