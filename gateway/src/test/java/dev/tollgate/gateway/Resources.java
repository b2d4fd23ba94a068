package dev.tollgate.gateway;

/** Test fixtures' teardown. */
final class Resources {

    private Resources() {
    }

    /**
     * Closes each resource in the order given, skipping those never started (null) and going on
     * when one fails to close, so that one broken fixture does not leave the others running.
     */
    static void closeAll(AutoCloseable... resources) {
        for (AutoCloseable resource : resources) {
            try {
                if (resource != null) {
                    resource.close();
                }
            } catch (Exception ignored) {
                // keep closing the rest
            }
        }
    }
}
