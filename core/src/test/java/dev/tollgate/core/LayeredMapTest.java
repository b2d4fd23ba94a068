package dev.tollgate.core;

import static dev.tollgate.core.RandomizedCheck.forAll;
import static org.assertj.core.api.Assertions.assertThat;

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
}
