// The collections that have writes executed but not yet on disk, shared by all connections. A
// read of such a collection may show data a crash could still undo, so its reply waits for the
// next commit too; reads of other collections answer at once.

import java.util.concurrent.ConcurrentHashMap;

final class PendingWrites {

    /** Stands for a write whose collections are not known (dropDatabase, unknown commands). */
    private static final String ANY = "*";

    private final ConcurrentHashMap<String, Integer> counts = new ConcurrentHashMap<>();

    /** Before the write runs. namespace null: it may touch any collection. */
    void begin(String namespace) {
        counts.merge(namespace == null ? ANY : namespace, 1, Integer::sum);
    }

    /** Once the commit that holds the write is on disk (or has failed). */
    void end(String namespace) {
        counts.computeIfPresent(namespace == null ? ANY : namespace, (key, n) -> n == 1 ? null : n - 1);
    }

    /** Whether a read of namespace (null: of any collection) may see a write not yet on disk. */
    boolean affect(String namespace) {
        if (namespace == null) return !counts.isEmpty();
        return counts.containsKey(namespace) || counts.containsKey(ANY);
    }
}
