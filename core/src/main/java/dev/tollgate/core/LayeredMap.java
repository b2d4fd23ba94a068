package dev.tollgate.core;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * An immutable map that is cheap to change a little: a large base map shared between versions and
 * a small overlay of changes (new values and removals) on top. A lookup is at most two hash probes.
 *
 * <p>Cost of {@link #with(Map)}: applying k changes to a map whose base holds n entries copies the
 * overlay, so it costs O(k + m), m being the overlay's size, which never exceeds
 * {@link #maxOverlay(int) max(1024, n/16)}. That is at most a sixteenth of copying the whole map,
 * but not O(1) per change: a batch of one change still copies up to n/16 entries. When the overlay
 * would outgrow its bound it is merged into a new base, in O(n); each change adds at most one
 * overlay entry, so at least max(1024, n/16) changes come between two merges and the merges add an
 * amortised O(1) per change (at most 17 entries copied per change). In all, a batch of k changes
 * costs O(k + max(1024, n/16)) amortised.
 */
public final class LayeredMap<K, V> {

    private static final int MIN_COMPACTION = 1024;

    private final Map<K, V> base;
    /** Changes since the base was built; an empty Optional marks a removal. */
    private final Map<K, Optional<V>> overlay;
    private final int size;

    private LayeredMap(Map<K, V> base, Map<K, Optional<V>> overlay, int size) {
        this.base = base;
        this.overlay = overlay;
        this.size = size;
    }

    public static <K, V> LayeredMap<K, V> of(Map<K, V> entries) {
        return new LayeredMap<>(Map.copyOf(entries), Map.of(), entries.size());
    }

    public static <K, V> LayeredMap<K, V> empty() {
        return new LayeredMap<>(Map.of(), Map.of(), 0);
    }

    public V get(K key) {
        Optional<V> changed = overlay.get(key);
        if (changed != null) {
            return changed.orElse(null);
        }
        return base.get(key);
    }

    public int size() {
        return size;
    }

    /**
     * A new map with {@code changes} applied: a present value puts it, an empty Optional removes
     * the key. This map is left as it was.
     */
    public LayeredMap<K, V> with(Map<K, Optional<V>> changes) {
        if (changes.isEmpty()) {
            return this;
        }
        Map<K, Optional<V>> merged = new HashMap<>(overlay);
        int newSize = size;
        for (Map.Entry<K, Optional<V>> change : changes.entrySet()) {
            boolean before = get(change.getKey()) != null;
            boolean after = change.getValue().isPresent();
            newSize += (after ? 1 : 0) - (before ? 1 : 0);
            merged.put(change.getKey(), change.getValue());
        }
        if (merged.size() > maxOverlay(base.size())) {
            Map<K, V> compacted = new HashMap<>(base);
            merged.forEach((k, v) -> {
                if (v.isPresent()) {
                    compacted.put(k, v.get());
                } else {
                    compacted.remove(k);
                }
            });
            return new LayeredMap<>(Map.copyOf(compacted), Map.of(), newSize);
        }
        return new LayeredMap<>(base, Map.copyOf(merged), newSize);
    }

    /** The most entries the overlay holds over a base of {@code baseSize} before it is merged in. */
    static int maxOverlay(int baseSize) {
        return Math.max(MIN_COMPACTION, baseSize / 16);
    }

    /** Visits every present entry (order unspecified). */
    public void forEach(BiConsumer<K, V> action) {
        base.forEach((k, v) -> {
            if (!overlay.containsKey(k)) {
                action.accept(k, v);
            }
        });
        overlay.forEach((k, v) -> v.ifPresent(value -> action.accept(k, value)));
    }
}
