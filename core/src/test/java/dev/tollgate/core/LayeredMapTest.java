package dev.tollgate.core;

import static dev.tollgate.core.RandomizedCheck.forAll;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LayeredMapTest {

    @Test
    void behavesLikeAPlainMapUnderRandomChanges() {
        forAll(8, random -> {
            Map<Integer, String> expected = new HashMap<>();
            for (int i = 0; i < 3000; i++) {
                expected.put(i, "v" + i);
            }
            LayeredMap<Integer, String> map = LayeredMap.of(expected);
            for (int batch = 0; batch < 200; batch++) {
                Map<Integer, Optional<String>> changes = new HashMap<>();
                int n = 1 + random.nextInt(50);
                for (int i = 0; i < n; i++) {
                    int key = random.nextInt(4000);
                    Optional<String> value = random.nextInt(3) == 0 ? Optional.empty() : Optional.of("w" + random.nextInt());
                    changes.put(key, value);
                }
                LayeredMap<Integer, String> before = map;
                Map<Integer, String> snapshotBefore = new HashMap<>(expected);
                map = map.with(changes);
                changes.forEach((k, v) -> {
                    if (v.isPresent()) {
                        expected.put(k, v.get());
                    } else {
                        expected.remove(k);
                    }
                });
                assertThat(map.size()).isEqualTo(expected.size());
                for (int key = 0; key < 4000; key += 7) {
                    assertThat(map.get(key)).isEqualTo(expected.get(key));
                    assertThat(before.get(key)).isEqualTo(snapshotBefore.get(key)); // old version unchanged
                }
            }
            Map<Integer, String> visited = new HashMap<>();
            map.forEach(visited::put);
            assertThat(visited).isEqualTo(expected);
        });
    }

    @Test
    void theOverlayNeverOutgrowsASixteenthOfTheBase() {
        Map<Integer, String> entries = new HashMap<>();
        for (int i = 0; i < 32_768; i++) {
            entries.put(i, "v" + i);
        }
        LayeredMap<Integer, String> map = LayeredMap.of(entries);
        assertThat(LayeredMap.maxOverlay(32_768)).isEqualTo(2048);
        int base = 32_768;
        int merges = 0;
        int largest = 0;
        for (int i = 0; i < 5000; i++) {
            int before = overlaySize(map);
            map = map.with(Map.of(100_000 + i, Optional.of("new")));
            if (overlaySize(map) < before) {
                merges++;
                base = map.size(); // the overlay is empty after a merge: everything is in the base
                assertThat(overlaySize(map)).isZero();
            }
            // One change at a time copies the overlay, up to its bound, and no further.
            assertThat(overlaySize(map)).isLessThanOrEqualTo(LayeredMap.maxOverlay(base));
            largest = Math.max(largest, overlaySize(map));
        }
        // Merged after 2049 changes over a base of 32,768, then after 2177 over 34,817.
        assertThat(merges).isEqualTo(2);
        assertThat(largest).isEqualTo(LayeredMap.maxOverlay(32_768 + 2049));
        assertThat(map.size()).isEqualTo(32_768 + 5000);
        assertThat(map.get(100_000 + 4999)).isEqualTo("new");
        assertThat(map.get(17)).isEqualTo("v17");
    }

    /**
     * Entries in the map's overlay (changes since its base was last built): internal state, read
     * here rather than exposed by the map, which has no other use for it.
     */
    private static int overlaySize(LayeredMap<?, ?> map) {
        try {
            Field overlay = LayeredMap.class.getDeclaredField("overlay");
            overlay.setAccessible(true);
            return ((Map<?, ?>) overlay.get(map)).size();
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("LayeredMap has no overlay field any more", e);
        }
    }
}
