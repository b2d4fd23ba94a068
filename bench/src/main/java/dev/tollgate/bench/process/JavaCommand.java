package dev.tollgate.bench.process;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Arguments for child JVMs, all run by the same {@code java} as the suite itself. */
public final class JavaCommand {

    /**
     * Heap and collector for every child JVM, fixed and equal so that no variant is favoured by
     * heap resizing. G1 is the JDK's default; stated here so a different JDK default changes nothing.
     */
    public static final List<String> JVM_OPTIONS = List.of("-Xms512m", "-Xmx512m", "-XX:+UseG1GC");

    private JavaCommand() {
    }

    public static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** {@code <options> -cp <this JVM's class path> mainClass args}, for {@link ChildProcesses#startJava}. */
    public static List<String> onOwnClassPath(String mainClass, List<String> args) {
        List<String> command = new ArrayList<>(JVM_OPTIONS);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass);
        command.addAll(args);
        return command;
    }
}
